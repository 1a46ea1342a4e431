"""The metric suite of one model (engine) against the ground truth, all on C-alpha frames.

Distributions: TIC 0-3, radius of gyration and C-alpha bonds (Angstrom), C-alpha angles and
dihedrals (degrees) (1-D: Wasserstein-1, circular for the dihedrals, and KL(ground truth ||
model)), TIC 0/1 (2-D W1 by exact optimal transport between histograms, POT, and 2-D KL).
Also the contact-map difference, the share of bonds outside 3.5-4.5 A, and coverage.
Model frame weights: ``we`` (the exported WE weights), ``msm`` (grid-MSM stationary weights)
or ``counts`` (uniform).

Weight pooling: each WE iteration's weights sum to one, and the frames of all iterations are
pooled with their weights as exported and normalized once over all frames, so every
iteration counts equally. ``discard_iterations`` (a leading count, or a fraction of the
iterations when below 1) drops the first iterations before any weighting.

KL binning (:mod:`westbench.metrics.binning`): ``bins`` bins fixed from the ground truth's
range (padded) plus an overflow bin on each side, the same for every engine of a protein;
the dihedrals' bins span the circle. Model mass outside the ground truth's support is
penalised, never rewarded; an empty model bin where the ground truth has mass p gets
min(``kl_floor``, p).

Uncertainty (:mod:`westbench.metrics.intervals`, :mod:`westbench.metrics.noise_floor`):
``bootstrap`` replicates resample independent units (ground-truth runs; WE replicas, or
``bootstrap_blocks`` blocks of contiguous iterations) for a BCa interval of every W1 and KL
that always contains its estimate, with the bootstrap's bias. The noise floor of each is the
ground truth against itself at the model's sample size (under ``msm``, each pseudo-model reweighted
by its own grid MSM, so the floor holds that estimate's error); the verdict is *separated* when the
interval lies above the floor's range, else *within noise*.

What the data cannot give (an MSM without transitions, an interval from too few units) is
null with its reason (:attr:`MetricSuite.caveats`), never an exception.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> ca = np.cumsum(rng.normal(0, 0.2, size=(200, 6, 3)), axis=1).astype(np.float32)
>>> frames = {"ca": ca, "tics": rng.normal(size=(200, 4)), "weight": np.full(200, 1 / 200),
...           "traj": np.repeat(np.arange(20), 10)}
>>> values, table = compute_metrics(frames, frames, weighting="counts")
>>> values["w1"]["tic0"], values["kl"]["tic01"]
(0.0, 0.0)
"""

from __future__ import annotations

import logging
from typing import Mapping

import numpy as np
import pandas as pd

from westbench.errors import WestbenchError
from westbench.geometry.coverage_grid import CoverageGrid
from westbench.geometry.features import scored_columns
from westbench.io.canonical import canonical_frames
from westbench.metrics.divergences import CircularWasserstein1D, Wasserstein1D
from westbench.metrics.estimability import Caveats
from westbench.metrics.kl_rows import suite_kl
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.msm import MsmWeights, msm_grid
from westbench.metrics.noise_floor import MORE_RUNS, MORE_STARTS
from westbench.metrics.resampling import BinnedDivergences, iteration_blocks, resampling_units
from westbench.metrics.settings import MetricSettings
from westbench.metrics.structure import PairDistanceW1, mean_distance_map
from westbench.metrics.suite_frames import (
    PERIODS,
    UNITS,
    discard_leading_iterations,
    distributions,
    simulated_time_ps,
)
from westbench.metrics.suite_macrostates import SuiteMacrostates
from westbench.metrics.suite_records import TABLE_COLUMNS, floor_record, tica_quality
from westbench.metrics.suite_scoring import SuiteScoring
from westbench.metrics.suite_statistics import SuiteStatistics
from westbench.metrics.suite_weights import WEIGHTINGS, SuiteWeights
from westbench.metrics.weighted import normalized
from westbench.seeds import derive_seed

# The suite's names, whichever of its modules defines them: callers import them from here.
__all__ = [
    "DEFAULTS",
    "PERIODS",
    "TABLE_COLUMNS",
    "UNITS",
    "WEIGHTINGS",
    "MetricSuite",
    "compute_metrics",
    "discard_leading_iterations",
    "distributions",
    "floor_record",
    "simulated_time_ps",
    "suite_settings",
    "tica_quality",
]

log = logging.getLogger(__name__)

#: The ``metrics`` section's schema defaults and the job's ``seed``, except that a caller who does not say how many
#: bootstrap replicates (tests, notebooks) skips the bootstrap: the workflow passes ``metrics.bootstrap``.
DEFAULTS = MetricSettings(bootstrap=0)


def suite_settings(settings: MetricSettings | Mapping | None) -> MetricSettings:
    """The suite's settings: a :class:`MetricSettings` as given; a mapping's keys over :data:`DEFAULTS`."""
    if isinstance(settings, MetricSettings):
        return settings
    return MetricSettings.of(DEFAULTS, **dict(settings or {}))


class MetricSuite(SuiteScoring, SuiteStatistics, SuiteWeights, SuiteMacrostates):
    """Every metric of one model against the ground truth; features computed once, scored per weighting.

    ``__init__`` sets up the grids, units and caches once; the methods that read them live in one module per job: the
    model's weights (:class:`~westbench.metrics.suite_weights.SuiteWeights`), the estimates, intervals and noise
    floors (:class:`~westbench.metrics.suite_statistics.SuiteStatistics`), the scores of one weighting
    (:class:`~westbench.metrics.suite_scoring.SuiteScoring`) and the macrostates
    (:class:`~westbench.metrics.suite_macrostates.SuiteMacrostates`).

    Parameters
    ----------
    groundtruth, model : mapping
        Frames (contract of :mod:`westbench.io.frames`) with ``tics``; ``model`` carries WE
        ``weight`` and ``traj`` (continuous pieces, for the MSM weighting).
    settings : MetricSettings or mapping, optional
        The ``metrics`` config section and the seed (:class:`~westbench.metrics.settings.MetricSettings`; a mapping's
        missing keys from :data:`DEFAULTS`).
    macrostate_model : MacrostateModel, optional
        The protein's ground-truth macrostates (rule ``macrostates``, one model shared by every
        engine); fitted here on the ground truth when not given.
    floors : dict, optional
        A cache of noise floors (by pseudo-model size) shared by suites of the same ground truth and settings
        (the run's controls, :mod:`westbench.metrics.controls`): each floor is computed once. The 1-D W1 floors
        then come from the first suite's transport grid, which differs from another's by its cells' widths.
    """

    def __init__(
        self,
        groundtruth: Mapping,
        model: Mapping,
        settings: MetricSettings | Mapping | None = None,
        macrostate_model: MacrostateModel | None = None,
        floors: dict | None = None,
    ):
        self.settings = suite_settings(settings)
        # Scores depend on the set of frames, never on the order of rows or a frame written twice.
        groundtruth, model = canonical_frames(groundtruth), canonical_frames(model)
        model, self.discarded_iterations = discard_leading_iterations(model, self.settings.discard_iterations)
        if not len(model["ca"]) or not len(groundtruth["ca"]):
            raise WestbenchError(
                f"no frames to score: the model has {len(model['ca'])}, the ground truth {len(groundtruth['ca'])}"
            )
        self.groundtruth, self.model = groundtruth, model
        self.caveats = Caveats()
        self.groundtruth_weights = normalized(np.asarray(groundtruth["weight"], dtype=np.float64))
        self.reference, self.sample = distributions(groundtruth), distributions(model)
        # A long chain: evenly spaced positions of its bonds, angles and dihedrals stand for all (memory by bytes).
        self.reference = {name: scored_columns(values) for name, values in self.reference.items()}
        self.sample = {name: scored_columns(values) for name, values in self.sample.items()}
        self.names = [name for name in self.reference if name in self.sample]
        self.w1 = {
            name: (
                CircularWasserstein1D(self.reference[name], self.sample[name], 360.0, -180.0)
                if name in PERIODS
                else Wasserstein1D(self.reference[name], self.sample[name])
            )
            for name in self.names
        }
        self.groundtruth_units, self.groundtruth_unit_kind = resampling_units(groundtruth)
        self.model_units, self.model_unit_kind = resampling_units(
            model, self.settings.bootstrap_blocks, decorrelation=self.settings.block_decorrelation
        )
        # The run's memory: how many iterations its TIC 0/1 means take to decorrelate (a sampling speed, reported
        # apart from the scores); None for frames that are not one WE run's.
        self.model_memory = iteration_blocks(model, 1, 0.0)[2] if "seg_id" in model and "iteration" in model else None
        gt_tics = np.asarray(groundtruth["tics"], dtype=np.float64)[:, :2]
        model_tics = np.asarray(model["tics"], dtype=np.float64)[:, :2]
        self.binned = BinnedDivergences(
            self.reference,
            self.sample,
            gt_tics,
            model_tics,
            self.groundtruth_units,
            self.settings,
            PERIODS,
            self.groundtruth_weights,
            kl=self.settings.kl_estimator == "histogram",
        )
        # KL by nearest neighbours in place of the histograms' (metrics.kl_estimator; westbench.metrics.kl).
        self.knn = suite_kl(
            self.settings,
            self.binned.keys,
            self.reference,
            self.sample,
            gt_tics,
            model_tics,
            self.groundtruth_units,
            self.model_units,
            self.groundtruth_weights,
            PERIODS,
            {name: self.w1[name].orders for name in self.w1},
        )
        self.reference_distances = mean_distance_map(groundtruth["ca"], self.groundtruth_weights)
        self.contact_w1 = PairDistanceW1(
            groundtruth["ca"], model["ca"], seed=derive_seed(int(self.settings.seed), "contact_pairs")
        )
        self.grid = CoverageGrid(gt_tics, self.settings.coverage_bins)
        self.msm_grid = msm_grid(gt_tics, self.settings.msm_bins)
        self.macrostate_model = macrostate_model
        self.msm: MsmWeights | None = None
        attrs = getattr(groundtruth, "attrs", {})
        self.tica_caveat, self.ill_posed_tics = tica_quality(attrs)
        self.more_runs = MORE_RUNS.get(str(attrs.get("runs_from", "")), MORE_STARTS)
        if self.tica_caveat:
            self.caveats.add("tica", f"the TICA is not well posed: {self.tica_caveat}")
        self._weights: dict[str, np.ndarray] = {}
        self._floors: dict = {} if floors is None else floors

    @property
    def n_model_units(self) -> int:
        return int(self.model_units.max()) + 1

    @property
    def n_groundtruth_units(self) -> int:
        return int(self.groundtruth_units.max()) + 1


def compute_metrics(
    groundtruth: Mapping, model: Mapping, weighting: str = "we", settings: Mapping | None = None
) -> tuple[dict, pd.DataFrame]:
    """All metrics of ``model`` against ``groundtruth`` under one weighting (see :meth:`MetricSuite.score`)."""
    return MetricSuite(groundtruth, model, settings).score(weighting)
