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
from functools import cached_property
from typing import Mapping

import numpy as np
import pandas as pd

from westbench.errors import WestbenchError
from westbench.geometry.ca_geometry import chain_geometry, quantized
from westbench.geometry.coverage_grid import CoverageGrid
from westbench.geometry.features import scored_columns
from westbench.io.canonical import CONFORMATION, canonical_frames
from westbench.metrics.divergences import CircularWasserstein1D, Wasserstein1D, floored_share
from westbench.metrics.estimability import Caveats, NotEstimable
from westbench.metrics.intervals import MIN_UNITS, unit_bootstrap
from westbench.metrics.kl_rows import kl_mark, suite_kl
from westbench.metrics.metastable import OUTSIDE, UNASSIGNED, MacrostateEstimator, MacrostateModel
from westbench.metrics.msm import MsmWeights, grid_msm, msm_grid
from westbench.metrics.noise_floor import (
    MORE_RUNS,
    MORE_STARTS,
    UNDETERMINED,
    NoiseFloor,
    noise_floor,
    pseudo_model_units,
    verdict,
)
from westbench.metrics.record import SCALAR_METRICS, empty_weighting, make_weighting, not_estimable_rows
from westbench.metrics.resampling import BinnedDivergences, iteration_blocks, resampling_units
from westbench.metrics.settings import MetricSettings
from westbench.metrics.structure import PairDistanceW1, mean_distance_map, share_of_bonds_outside
from westbench.metrics.weighted import effective_sample_size, normalized
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

WEIGHTINGS = ("we", "msm", "counts")
#: The ``metrics`` section's schema defaults and the job's ``seed``, except that a caller who does not say how many
#: bootstrap replicates (tests, notebooks) skips the bootstrap: the workflow passes ``metrics.bootstrap``.
DEFAULTS = MetricSettings(bootstrap=0)
#: Distributions on a circle: (low, high) of their period, in their units (degrees).
PERIODS = {"dihedrals": (-180.0, 180.0)}
#: The unit of each distribution's values (and so of its W1).
UNITS = {
    "tic0": "",
    "tic1": "",
    "tic2": "",
    "tic3": "",
    "tic01": "",
    "rg": "Å",
    "bonds": "Å",
    "angles": "degrees",
    "dihedrals": "degrees",
}


def discard_leading_iterations(frames: Mapping, discard: float) -> tuple[Mapping, int]:
    """The frames without their first iterations: ``discard`` >= 1 a count, below 1 a fraction of the iterations.

    Frames with a single iteration (the ground truth, plain trajectories of one file) are kept whole.

    Examples
    --------
    >>> frames = {"iteration": np.repeat([1, 2, 3, 4], 2), "weight": np.ones(8)}
    >>> kept, n = discard_leading_iterations(frames, 0.5)
    >>> n, kept["iteration"].tolist()
    (2, [3, 3, 4, 4])
    """
    iteration = np.asarray(frames["iteration"]) if "iteration" in frames else np.zeros(len(frames["weight"]))
    levels = np.unique(iteration)
    n = int(discard) if discard >= 1 else int(np.floor(discard * len(levels)))
    if n <= 0 or len(levels) <= 1:
        return frames, 0
    if n >= len(levels):
        raise WestbenchError(
            f"metrics.discard_iterations {discard} leaves none of the {len(levels)} iterations: lower it"
        )
    keep = iteration >= levels[n]
    kept = type(frames)({k: (v[keep] if np.ndim(v) and len(v) == len(keep) else v) for k, v in frames.items()})
    if hasattr(frames, "attrs"):
        kept.attrs = dict(frames.attrs)
    return kept, n


def distributions(frames: Mapping) -> dict[str, np.ndarray]:
    """Per distribution: values (n_frames, k), k values per frame; Rg and bonds in Angstrom, angles and
    dihedrals in degrees (:data:`UNITS`)."""
    ca = np.asarray(frames["ca"])
    out = {f"tic{i}": np.asarray(frames["tics"])[:, i : i + 1] for i in range(min(4, np.shape(frames["tics"])[1]))}
    geometry = chain_geometry(ca)  # float64, rounded to 2^-30 of a unit: ties and edge values stay put (quantized)
    out.update(
        rg=quantized(10.0 * geometry["rg"][:, None]),
        bonds=quantized(10.0 * geometry["bonds"]),
        angles=quantized(np.degrees(geometry["angles"])),
        dihedrals=quantized(np.degrees(geometry["dihedrals"])),
    )
    return out


def suite_settings(settings: MetricSettings | Mapping | None) -> MetricSettings:
    """The suite's settings: a :class:`MetricSettings` as given; a mapping's keys over :data:`DEFAULTS`."""
    if isinstance(settings, MetricSettings):
        return settings
    return MetricSettings.of(DEFAULTS, **dict(settings or {}))


class MetricSuite:
    """Every metric of one model against the ground truth; features computed once, scored per weighting.

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

    def weights(self, weighting: str) -> np.ndarray:
        """Model frame weights under ``weighting`` (we, msm, counts), normalized, cached; raises
        :class:`NotEstimable` when the weighting cannot be had from these frames.

        ``we``: the exported WE weights; ``counts``: every distinct conformation counts once (copies of a row are
        one conformation, weightless rows none: :mod:`westbench.io.canonical`); ``msm``: the stationary
        distribution of the grid MSM over the ground truth's TIC 0/1 grid (:func:`westbench.metrics.msm.grid_msm`;
        its diagnostics in :attr:`msm`).
        """
        if weighting not in self._weights:
            frames = self.model
            if weighting == "we":
                weights = np.asarray(frames["weight"], dtype=np.float64)
            elif weighting == "counts":
                weights = np.ones(len(frames["ca"]))
            elif weighting == "msm":
                self.msm = grid_msm(
                    frames["tics"],
                    frames["traj"],
                    self.msm_grid,
                    self.settings.msm_lag,
                    time=frames.get("time_ps"),
                )
                weights = self.msm.weights
            else:
                raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
            total = float(np.sum(weights))
            if not np.isfinite(total) or total <= 0 or np.any(np.asarray(weights) < 0):
                raise NotEstimable(f"the {weighting} weights are not a distribution (sum {total:.3g})")
            self._weights[weighting] = normalized(weights)
        return self._weights[weighting]

    def effective_frames(self, weighting: str) -> float:
        """Kish's effective sample size of the model's frames under ``weighting``: how many equally weighted frames
        carry the same information (:func:`westbench.metrics.weighted.effective_sample_size`; a conformation counted
        once, its weights summed)."""
        return effective_sample_size(self.weights(weighting), self.model.get(CONFORMATION))

    def model_histograms(self, weights: np.ndarray) -> dict:
        """Per-unit histograms of the model under ``weights`` on the suite's grids."""
        return self.binned.histograms(
            self.sample, np.asarray(self.model["tics"])[:, :2], weights, self.model_units, self.n_model_units
        )

    def estimates(self, weights: np.ndarray, histograms: dict | None = None) -> np.ndarray:
        """Every statistic (:attr:`BinnedDivergences.keys` order) of the whole data: 1-D W1 exact, KL and 2-D W1 on
        their grids (``histograms``: the model's :meth:`model_histograms` under ``weights``, when already made)."""
        gt_ones = np.ones((1, self.n_groundtruth_units))
        model_ones = np.ones((1, self.n_model_units))
        histograms = self.model_histograms(weights) if histograms is None else histograms
        values = self.statistic(weights, histograms)([gt_ones, model_ones])[:, 0]
        for i, (metric, name) in enumerate(self.binned.keys):
            if metric == "w1" and name in self.w1:
                ref_w = np.repeat(self.groundtruth_weights, self.reference[name].shape[1])
                mod_w = np.repeat(weights, self.sample[name].shape[1])
                values[i] = self.w1[name](ref_w, mod_w)
        return values

    def divergences(self, weights: np.ndarray) -> dict:
        """W1 and KL of every distribution under the model's frame ``weights`` (normalized, as :meth:`weights`
        gives them): {metric: {distribution: value}}."""
        out: dict = {"w1": {}, "kl": {}}
        for (metric, name), value in zip(self.binned.keys, self.estimates(weights)):
            out[metric][name] = float(value)
        return out

    def noise_floor(self, effective_frames: float | None = None, weighting: str = "we") -> NoiseFloor:
        """The noise floor of every statistic at the model's effective sample size (the model's frame count when
        not given), cached per pseudo-model size; raises :class:`NotEstimable` with the reason.

        Under a weighting that re-estimates the model's weights (``msm``) each pseudo-model is reweighted the same
        way (:meth:`msm_split_halves`): the floor then holds that estimate's error at the model's size, which a
        perfect engine's score holds too (and the intervals re-estimate it in every replicate:
        :meth:`msm_statistic`)."""
        unit_frames = self.groundtruth_unit_frames
        size = len(self.model["ca"]) if effective_frames is None else effective_frames
        k = pseudo_model_units(unit_frames, size) if len(unit_frames) >= 2 else 0
        key = (weighting, k) if weighting == "msm" else k
        if key not in self._floors:
            self._floors[key] = noise_floor(
                self.msm_split_halves if weighting == "msm" else self.split_halves,
                unit_frames,
                size,
                int(self.settings.floor_splits),
                derive_seed(int(self.settings.seed), "noise_floor"),
                self.more_runs,
            )
        return self._floors[key]

    def statistic(self, weights: np.ndarray, histograms: dict):
        """The bootstrap statistic of every row under the model's frame ``weights``: the binned one
        (:meth:`BinnedDivergences.statistic`), its KL rows by nearest neighbours unless ``kl_estimator`` is
        ``histogram``."""
        binned = self.binned.statistic(histograms)
        return binned if self.knn is None else self.knn.statistic(binned, weights)

    def split_halves(self, subsets: np.ndarray) -> np.ndarray:
        """The noise floor's split divergences of every row (:meth:`BinnedDivergences.split_halves`, KL rows as in
        :meth:`statistic`)."""
        if self.knn is None:
            return self.binned.split_halves(subsets)
        return self.knn.split_halves(self.binned.split_halves)(subsets)

    def msm_split_halves(self, subsets: np.ndarray) -> np.ndarray:
        """The noise floor's splits under the msm weighting: as :meth:`split_halves`, each pseudo-model's frames
        weighted by the grid MSM of those frames alone (on the model's grid and lag), as an engine's are; NaN for a
        split whose MSM cannot be estimated. Raises :class:`NotEstimable` when none can."""
        gt, lag = self.groundtruth, self.settings.msm_lag
        tics, traj = np.asarray(gt["tics"], dtype=np.float64), np.asarray(gt["traj"])
        time = None if gt.get("time_ps") is None else np.asarray(gt["time_ps"], dtype=np.float64)
        out = np.full((len(self.binned.keys), len(subsets)), np.nan)
        reasons = []
        for j, subset in enumerate(np.asarray(subsets, dtype=np.float64)):
            chosen = subset[self.groundtruth_units] > 0
            try:
                msm = grid_msm(tics[chosen], traj[chosen], self.msm_grid, lag, None if time is None else time[chosen])
            except NotEstimable as exc:
                reasons.append(str(exc))
                continue
            weights = np.zeros(len(chosen))
            weights[chosen] = msm.weights
            out[:, j] = self.reweighted_split(1.0 - subset, weights)
        if len(reasons) == len(out[0]):
            raise NotEstimable(f"the grid MSM of no pseudo-model of the ground truth could be estimated: {reasons[0]}")
        return out

    def resampled_msm_weights(self, multiplicity: np.ndarray) -> np.ndarray | None:
        """The model's frame weights under the ``msm`` weighting in one resample of its units (``multiplicity``: how
        many times each unit was drawn): the grid MSM re-estimated from the resample (a unit drawn k times is k
        pieces, its transitions counted k times), each frame's share times its unit's multiplicity. None where the
        resample gives no MSM (its replicate fails and is counted as such)."""
        multiplicity = np.rint(np.asarray(multiplicity)).astype(np.int64)
        units, traj = self.model_units, np.asarray(self.model["traj"])
        copies = multiplicity[units]
        index = np.repeat(np.arange(len(units)), copies)
        # The k-th copy of a frame lies in a piece of its own: piece ids shifted by k times the id span.
        copy = np.arange(len(index)) - np.repeat(np.cumsum(copies) - copies, copies)
        pieces = traj[index] + copy * (int(traj.max()) + 1)
        time = self.model.get("time_ps")
        try:
            msm = grid_msm(  # the arrays weights("msm") reads, so all ones gives its weights exactly
                np.asarray(self.model["tics"])[index],
                pieces,
                self.msm_grid,
                self.settings.msm_lag,
                None if time is None else np.asarray(time)[index],
            )
        except NotEstimable:
            return None
        weights = np.bincount(index, msm.weights, minlength=len(units))
        return weights / weights.sum()

    def msm_statistic(self):
        """The bootstrap statistic under the ``msm`` weighting: in each replicate the model's weights re-estimated
        (:meth:`resampled_msm_weights`) and every statistic computed against the resampled ground truth; NaN for a
        replicate without an MSM."""
        model_ones = np.ones((1, self.n_model_units))

        def compute(multiplicities):
            groundtruth, model = multiplicities
            out = np.full((len(self.binned.keys), len(model)), np.nan)
            for b, (gt_b, model_b) in enumerate(zip(groundtruth, model)):
                weights = self.resampled_msm_weights(model_b)
                if weights is not None:  # the model's multiplicities are in its weights
                    histograms = self.model_histograms(weights)
                    out[:, b] = self.statistic(weights, histograms)([gt_b[None, :], model_ones])[:, 0]
            return out

        return compute

    def reweighted_split(self, rest: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Every statistic of the ground truth's ``rest`` units ((n_units,) multiplicities, its own weights) against
        its frames under ``weights`` (per frame; 0 outside the pseudo-model)."""
        gt_tics = np.asarray(self.groundtruth["tics"], dtype=np.float64)[:, :2]
        one = np.zeros(len(weights), dtype=np.int64)
        q = self.binned.histograms(self.reference, gt_tics, weights, one, 1)
        p = {key: rest[None, :] @ value for key, value in self.binned.reference_histograms.items()}
        values = self.binned.divergences(p, q)[:, 0]
        return values if self.knn is None else self.knn.reweighted_split(values, rest, weights)

    def largest_reachable(self) -> np.ndarray:
        """Per statistic, the largest value any model could score against this ground truth (inf for W1): the KL
        of a model with all its mass off the ground truth's cells. A floor at or above it cannot be cleared."""
        out = np.full(len(self.binned.keys), np.inf)
        for i, (metric, name) in enumerate(self.binned.keys):
            if metric == "kl" and self.knn is not None:  # every ground-truth point's model density at the floor
                out[i] = self.knn.largest(name)
            elif metric == "kl":
                p = self.binned.reference_histograms[(metric, name)].sum(axis=0)
                p = p[p > 0] / p.sum()
                out[i] = float(np.sum(p * np.log(p / np.minimum(self.binned.floor, p))))
        return out

    def intervals(
        self, weights: np.ndarray, estimates: np.ndarray, histograms: dict | None = None, reestimated: bool = False
    ):
        """BCa intervals of every statistic (:class:`westbench.metrics.intervals.BootstrapResult`, shifted onto the
        exact estimates); raises :class:`NotEstimable` when there are too few units or no replicates.

        ``reestimated``: the model's weights are the grid MSM's (the ``msm`` weighting), re-estimated in every
        replicate from the resampled units' transitions (:meth:`msm_statistic`), so the interval holds the MSM's
        estimation error as the msm noise floor does."""
        replicates = int(self.settings.bootstrap)
        if replicates < 2:
            raise NotEstimable(f"metrics.bootstrap is {replicates}: no intervals")
        if self.n_groundtruth_units < MIN_UNITS or self.n_model_units < MIN_UNITS:
            raise NotEstimable(
                f"an interval needs at least {MIN_UNITS} independent units on each side: the ground "
                f"truth has {self.groundtruth_unit_kind}, the model {self.model_unit_kind} (ground truth: "
                f"{self.more_runs}; model: independent WE replicas, we.replicas_by_engine, or more iterations)"
            )
        if reestimated:
            statistic = self.msm_statistic()
        else:
            statistic = self.statistic(weights, self.model_histograms(weights) if histograms is None else histograms)
        result = unit_bootstrap(
            statistic,
            [self.n_groundtruth_units, self.n_model_units],
            replicates,
            derive_seed(int(self.settings.seed), "bootstrap"),
            lowest=0.0,  # every statistic is a divergence
        )
        shift = np.where(np.isfinite(estimates) & np.isfinite(result.estimate), estimates - result.estimate, 0.0)
        # The shift may carry a bound that stopped at 0 below it (the binned W1 above the exact one): bounds stop at 0.
        result.low, result.high, result.estimate = np.maximum(result.low + shift, 0.0), result.high + shift, estimates
        return result

    def score(self, weighting: str = "we") -> tuple[dict, pd.DataFrame]:
        """All metrics under one weighting.

        Returns
        -------
        values : dict
            ``w1`` and ``kl`` per distribution (None where not estimable), ``intervals``
            {metric: {distribution: {low, high, bias, extended, collapsed, widened}}}, ``verdicts`` {metric:
            {distribution: verdict}}, ``verdict_notes`` {metric: {distribution: why undetermined}},
            ``noise_floor`` {metric: {distribution: {value, low, high}}, splits, units, of_units}
            (matched on ``effective_frames``), ``effective_frames`` (Kish's effective sample size of
            the weights), ``msm`` (the msm weighting: ``outside_connected_share``, ``states``,
            ``connected_states``), ``kl_floor``, ``contact_map_w1_A`` (mean over residue pairs of the
            W1 of their distance distributions), ``contact_map_diff_A`` (matrix of mean distance
            differences), ``bonds_outside_share``, ``coverage``, ``discarded_iterations``. What could
            not be estimated is in :attr:`caveats`.
        table : DataFrame
            Tidy rows: weighting, distribution, metric, value, ci_low, ci_high, bias, floor,
            floor_low, floor_high, verdict, note.
        """
        s = self.settings
        values: dict = {
            "weighting": weighting,
            "kl_floor": s.kl_floor,
            "discarded_iterations": self.discarded_iterations,
        }
        try:
            weights = self.weights(weighting)
        except NotEstimable as exc:
            self.caveats.add(weighting, str(exc))
            return self._not_estimable(values, str(exc))
        effective = self.effective_frames(weighting)
        values["effective_frames"] = round(effective, 3)
        if weighting == "msm" and self.msm is not None:
            values["msm"] = {
                "outside_connected_share": self.msm.outside_share,
                "states": self.msm.states,
                "connected_states": self.msm.connected_states,
            }
        histograms = self.model_histograms(weights)  # once per weighting: the estimates and every replicate use them
        estimates = self.estimates(weights, histograms)
        interval, floor = None, None
        with self.caveats.guard(f"{weighting}/intervals"):
            interval = self.intervals(weights, estimates, histograms, reestimated=weighting == "msm")
        with self.caveats.guard(f"{weighting}/noise_floor"):
            floor = self.noise_floor(effective, weighting)
        values["noise_floor"] = floor_record(floor, self.binned.keys)
        few = self.too_few_effective_frames(effective)
        reachable = self.largest_reachable()
        values.update(
            w1={},
            kl={},
            intervals={"w1": {}, "kl": {}},
            verdicts={"w1": {}, "kl": {}},
            verdict_notes={"w1": {}, "kl": {}},
            kl_marks={},
            kl_estimator={"method": "histogram", "bins": s.bins} if self.knn is None else self.knn.describe(),
        )
        rows = []
        for i, (metric, name) in enumerate(self.binned.keys):
            estimate = _finite(estimates[i])
            note = ""
            if estimate is None:
                note = "no model or ground-truth mass on this distribution's grid"
                self.caveats.add(f"{weighting}/{metric}/{name}", note)
            low = high = bias = None
            if interval is not None and estimate is not None:
                low, high, bias = (_finite(interval.low[i]), _finite(interval.high[i]), _finite(interval.bias[i]))
                values["intervals"][metric][name] = {
                    "low": low,
                    "high": high,
                    "bias": bias,
                    "extended": bool(interval.extended[i]),
                    "collapsed": bool(interval.collapsed[i]) if interval.collapsed is not None else False,
                    "widened": round(float(interval.widening[i]), 4),
                }
                if interval.failed[i]:
                    note = f"{int(interval.failed[i])} of {interval.replicates} bootstrap replicates failed"
            floor_value = floor_low = floor_high = None
            if floor is not None:
                floor_value, floor_low, floor_high = (
                    _finite(floor.value[i]),
                    _finite(floor.low[i]),
                    _finite(floor.high[i]),
                )
            mark, marked = "", ""
            if metric == "kl":  # a KL that is mostly bias, or pinned by the bin floor, is no score (kl_marks)
                if self.knn is None:
                    p, q = self.binned.reference_histograms[(metric, name)], histograms[(metric, name)]
                    share = floored_share(p.sum(axis=0), q.sum(axis=0), self.binned.floor)
                else:
                    share = self.knn.floored_share(name, weights)
                mark, marked = kl_mark(floor_value, floor_high, share, reachable[i])
                values["kl_marks"][name] = mark
            decided = verdict(low, floor_high)
            why = ""
            if interval is None:
                why = self.caveats.reasons.get(f"{weighting}/intervals", "no interval")
            elif floor is None:
                why = self.caveats.reasons.get(f"{weighting}/noise_floor", "no noise floor")
            elif few:
                why = few
            elif metric == "kl" and self.knn is not None and (thin := self.knn_too_few(name, floor, effective)):
                why = thin
            elif self.ill_posed(name):
                why = f"the TICA is not well posed for this TIC (no positive finite timescale): {self.tica_caveat}"
            elif floor_high is not None and floor_high >= reachable[i]:
                why = (
                    f"cannot be separated: no model could score above {reachable[i]:.3g} against this ground truth "
                    f"(all its mass off the ground truth's cells), and the noise floor reaches {floor_high:.3g}; "
                    "more ground-truth runs lower the floor"
                )
            elif mark:
                why = marked
            if why:
                decided = UNDETERMINED
                note = f"{why}; {note}" if note and note != why else why
            values[metric][name] = estimate
            values["verdicts"][metric][name] = decided
            values["verdict_notes"][metric][name] = why
            rows.append(
                {
                    "weighting": weighting,
                    "distribution": name,
                    "metric": metric,
                    "value": estimate,
                    "ci_low": low,
                    "ci_high": high,
                    "bias": bias,
                    "floor": floor_value,
                    "floor_low": floor_low,
                    "floor_high": floor_high,
                    "verdict": decided,
                    "note": note,
                }
            )
        model_tics = np.asarray(self.model["tics"])[:, :2]
        difference = mean_distance_map(self.model["ca"], weights) - self.reference_distances
        values["contact_map_diff_A"] = difference.round(6).tolist()
        pair_w1 = self.contact_w1(self.groundtruth_weights, weights)
        values["contact_map_w1_A"] = float(pair_w1.mean()) if len(pair_w1) else None
        values["bonds_outside_share"] = share_of_bonds_outside(
            self.model["ca"], weights, bonds=self.sample["bonds"] / 10.0
        )
        values["coverage"] = self.grid.fraction(model_tics[weights > 0])
        rows += [
            {"weighting": weighting, "distribution": m.distribution, "metric": m.metric, "value": values[m.name]}
            for m in SCALAR_METRICS
        ]
        rows.append(
            {
                "weighting": weighting,
                "distribution": "weights",
                "metric": "effective_frames",
                "value": values["effective_frames"],
            }
        )
        if "msm" in values:
            rows.append(
                {
                    "weighting": weighting,
                    "distribution": "weights",
                    "metric": "outside_connected_share",
                    "value": values["msm"]["outside_connected_share"],
                }
            )
        return make_weighting(**values), pd.DataFrame(rows, columns=TABLE_COLUMNS)

    @cached_property
    def groundtruth_unit_frames(self) -> np.ndarray:
        """Frames in each ground-truth unit (the floor's splits and the verdicts' size checks read it)."""
        return np.bincount(self.groundtruth_units, minlength=self.n_groundtruth_units)

    def knn_too_few(self, name: str, floor: NoiseFloor, effective: float) -> str:
        """:meth:`SuiteKL.too_few_points` for a distribution: the floor's pseudo-model is ``floor.units`` of the
        ground truth's runs, counted at the smallest run's frames."""
        unit_frames = self.groundtruth_unit_frames
        floor_frames = floor.units * float(np.min(unit_frames)) if len(unit_frames) else 0.0
        return self.knn.too_few_points(name, floor_frames, float(effective))

    def ill_posed(self, name: str) -> bool:
        """Whether a distribution rests on a TIC that the TICA fit left without a timescale."""
        if name == "tic01":
            return bool({0, 1} & self.ill_posed_tics)
        return name.startswith("tic") and name[3:].isdigit() and int(name[3:]) in self.ill_posed_tics

    def too_few_effective_frames(self, effective: float) -> str:
        """Why a verdict cannot rest on weights that few frames carry, or "" when enough do.

        The floor is the ground truth against itself at the model's effective sample size; its smallest
        pseudo-model is one ground-truth unit. A model whose weight rests on fewer than half of that unit's
        frames, or on fewer than ``min_effective_frames``, would be held to a floor measured at a sample
        larger than its own, which is lower than its real noise.
        """
        unit_frames = self.groundtruth_unit_frames
        smallest = 0.5 * float(np.median(unit_frames)) if len(unit_frames) else 0.0
        needed = max(float(self.settings.min_effective_frames), smallest)
        if effective >= needed:
            return ""
        return (
            f"few frames carry the weight: {effective:.1f} effective frames (Kish), fewer than {needed:.0f} "
            f"(metrics.min_effective_frames, or half of one ground-truth unit of {np.median(unit_frames):.0f} "
            "frames, the smallest sample the noise floor can be measured at); sample longer or more evenly"
        )

    def _not_estimable(self, values: dict, reason: str) -> tuple[dict, pd.DataFrame]:
        """The score of a weighting that could not be had: every value None, every row's note the reason
        (:func:`westbench.metrics.record.empty_weighting`)."""
        keys = self.binned.keys
        scores = empty_weighting(values.pop("weighting"), keys, reason, **values)
        return scores, pd.DataFrame(not_estimable_rows(scores["weighting"], keys, reason), columns=TABLE_COLUMNS)

    def macrostates(self) -> dict:
        """Ground-truth macrostates and every frame's assignment: the protein's shared model when given, else
        fitted here (KMeans, MSM, PCCA+; seeded).

        Model frames are assigned to the nearest ground-truth cluster, so populations compare
        state by state.
        """
        s = self.settings
        model = self.macrostate_model
        if model is None:
            model = MacrostateEstimator(s.macrostate_clusters, s.macrostates, s.msm_lag, s.macrostate_dim, s.seed).fit(
                self.groundtruth["tics"], self.groundtruth["traj"], self.groundtruth.get("time_ps")
            )
        if model.n_macrostates == 0:
            self.caveats.add("macrostates", model.why or "no MSM could be fitted over the ground truth's clusters")
        return {
            "groundtruth": model.assign(self.groundtruth["tics"]),
            "model": model.assign(self.model["tics"]),
            "n_macrostates": model.n_macrostates,
        }

    def macrostate_populations(self, labels: Mapping, weighting: str = "we") -> dict:
        """Weighted population of each macrostate (ground truth and model) and their total variation distance (None
        when there are no macrostates or the weighting is not estimable).

        The distance runs over the macrostates and two more categories: ``unassigned`` (clusters outside the
        cluster MSM's connected set) and ``outside`` (frames beyond the ground truth's range,
        :data:`westbench.metrics.msm.OUTSIDE`), so no model mass is dropped before comparing, and mass far
        away, where the ground truth has none, can only add to it.
        """
        n = labels["n_macrostates"]
        try:
            weights = self.weights(weighting)
        except NotEstimable:
            weights = None
        if n == 0 or weights is None:
            return {"groundtruth": [], "model": [], "total_variation": None}

        def shares(assigned, frame_weights):
            category = np.where(assigned == UNASSIGNED, n, np.where(assigned == OUTSIDE, n + 1, assigned))
            mass = np.bincount(category, frame_weights, minlength=n + 2)
            return mass / mass.sum() if mass.sum() > 0 else mass

        reference, model = shares(labels["groundtruth"], self.groundtruth_weights), shares(labels["model"], weights)
        if reference.sum() <= 0 or model.sum() <= 0:
            self.caveats.add(f"{weighting}/macrostates", "no weight in any macrostate")
            return {"groundtruth": [], "model": [], "total_variation": None}
        return {
            "groundtruth": reference[:n].round(6).tolist(),
            "model": model[:n].round(6).tolist(),
            "groundtruth_unassigned": round(float(reference[n]), 6),
            "model_unassigned": round(float(model[n]), 6),
            "model_outside": round(float(model[n + 1]), 6),
            "total_variation": float(0.5 * np.abs(reference - model).sum()),
        }


TABLE_COLUMNS = [
    "weighting",
    "distribution",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "bias",
    "floor",
    "floor_low",
    "floor_high",
    "verdict",
    "note",
]


def tica_quality(attrs: Mapping) -> tuple[str, set[int]]:
    """The TICA's caveat and the TICs without a timescale, from a projected ground truth's frames attributes
    (:meth:`westbench.tica.model.TicaModel.frames_attrs`; none in files written before them)."""
    import json

    from westbench.tica.model import TICA_CAVEAT_ATTR, TICS_WITHOUT_TIMESCALE_ATTR

    tics = attrs.get(TICS_WITHOUT_TIMESCALE_ATTR, [])
    if isinstance(tics, str):
        tics = json.loads(tics)
    return str(attrs.get(TICA_CAVEAT_ATTR, "") or ""), {int(k) for k in np.ravel(tics)}


def floor_record(floor: NoiseFloor | None, keys) -> dict:
    """{metric: {distribution: {value, low, high}}, splits, units, of_units} of a noise floor ({} when none)."""
    if floor is None:
        return {}
    out: dict = {"w1": {}, "kl": {}, "splits": floor.splits, "units": floor.units, "of_units": floor.of_units}
    for i, (metric, name) in enumerate(keys):
        out[metric][name] = {
            "value": _finite(floor.value[i]),
            "low": _finite(floor.low[i]),
            "high": _finite(floor.high[i]),
        }
    return out


def _finite(value) -> float | None:
    """A float, or None when not finite (JSON null)."""
    return float(value) if value is not None and np.isfinite(value) else None


def compute_metrics(
    groundtruth: Mapping, model: Mapping, weighting: str = "we", settings: Mapping | None = None
) -> tuple[dict, pd.DataFrame]:
    """All metrics of ``model`` against ``groundtruth`` under one weighting (see :meth:`MetricSuite.score`)."""
    return MetricSuite(groundtruth, model, settings).score(weighting)


def simulated_time_ps(frames: Mapping) -> tuple[float, float]:
    """Longest continuous simulated time and aggregate simulated time of a frame set (ps).

    A WE run (frames with ``seg_id``) simulates lineages of one segment per iteration:
    longest = iterations x segment length. Otherwise every run (``traj``) is one
    trajectory: longest = the longest run. Aggregate = every piece's length summed.

    Examples
    --------
    >>> frames = {"time_ps": np.tile([1.0, 2.0], 3), "traj": np.repeat([0, 1, 2], 2),
    ...           "iteration": np.repeat([1, 1, 2], 2), "seg_id": np.array([0, 0, 1, 1, 0, 0])}
    >>> simulated_time_ps(frames)
    (4.0, 6.0)
    """
    time, traj = np.asarray(frames["time_ps"], dtype=np.float64), np.asarray(frames["traj"])
    if len(time) == 0:
        return 0.0, 0.0
    pieces, index = np.unique(traj, return_inverse=True)
    start = np.full(len(pieces), np.inf)
    end = np.full(len(pieces), -np.inf)
    np.minimum.at(start, index, time)
    np.maximum.at(end, index, time)
    interval = float(np.median(np.diff(np.sort(np.unique(time))))) if len(np.unique(time)) > 1 else 0.0
    durations = end - start + interval  # a piece of n frames saved every dt covers n * dt
    if "seg_id" in frames and "iteration" in frames:
        return float(len(np.unique(frames["iteration"])) * durations.max()), float(durations.sum())
    return float(durations.max()), float(durations.sum())
