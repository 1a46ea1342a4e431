"""The metric suite of one model (engine) against the ground truth, all on C-alpha frames.

Distributions: TIC 0-3, radius of gyration, C-alpha bonds, angles, dihedrals
(1-D: Wasserstein-1 and KL(ground truth || model)), TIC 0/1 (2-D W1 by exact
optimal transport between histograms, POT, and 2-D KL). Also the contact-map
difference, the share of bonds outside 3.5-4.5 A, and coverage.
Model frame weights: ``we`` (the exported WE weights), ``msm`` (grid-MSM
stationary weights) or ``counts`` (uniform).

Weight pooling: each WE iteration's weights sum to one, and the frames of all
iterations are pooled with their weights as exported and normalized once over
all frames, so every iteration counts equally, the first ones next to the basis
state included. ``discard_iterations`` (a leading count, or a fraction of the
iterations when below 1) drops the first iterations before any weighting.

KL binning: ``bins`` shared bins over the union of both samples' ranges (per
axis in 2-D); model bins empty where the ground truth has mass get
``kl_floor`` before renormalizing.

Uncertainty (``bootstrap`` replicates, seeded): ground-truth runs and model WE
iterations (runs, for a model with one iteration) are resampled with
replacement, as multiplicities on their frames' weights; the 95 % percentile
interval of W1 and KL is reported.

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

from westbench.config import section_defaults
from westbench.features import pairwise_distances
from westbench.metrics.coverage import CoverageGrid
from westbench.errors import WestbenchError
from westbench.metrics.divergences import Wasserstein1D, common_edges, kl_from_histograms, wasserstein_2d
from westbench.metrics.msm import MacrostateEstimator, grid_msm_weights
from westbench.metrics.structure import (bond_angles, bond_lengths, dihedrals, distance_map, mean_distance_map,
                                         radius_of_gyration, share_of_bonds_outside)
from westbench.metrics.weighted import histogram, histogram2d, normalized, weighted_mean
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

WEIGHTINGS = ("we", "msm", "counts")
#: The ``metrics`` section's schema defaults, plus the job's ``seed``; a caller without a config (tests,
#: notebooks) skips the bootstrap, the workflow passes ``metrics.bootstrap``.
DEFAULTS = {**section_defaults("metrics"), "seed": 0, "bootstrap": 0}


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
        raise WestbenchError(f"metrics.discard_iterations {discard} leaves none of the {len(levels)} iterations: lower it")
    keep = iteration >= levels[n]
    kept = type(frames)({k: (v[keep] if np.ndim(v) and len(v) == len(keep) else v) for k, v in frames.items()})
    if hasattr(frames, "attrs"):
        kept.attrs = dict(frames.attrs)
    return kept, n


def resampling_groups(frames: Mapping) -> np.ndarray:
    """Bootstrap units of a frame set: WE iterations when there are several, else continuous runs (``traj``)."""
    if "iteration" in frames and len(np.unique(frames["iteration"])) > 1:
        return np.unique(np.asarray(frames["iteration"]), return_inverse=True)[1]
    return np.unique(np.asarray(frames["traj"]), return_inverse=True)[1]


def model_weights(frames: Mapping, weighting: str, settings: Mapping) -> np.ndarray:
    """Frame weights of the model under a weighting scheme."""
    n = len(frames["ca"])
    if weighting == "we":
        return np.asarray(frames["weight"], dtype=np.float64)
    if weighting == "counts":
        return np.full(n, 1.0 / n)
    if weighting == "msm":
        return grid_msm_weights(frames["tics"], frames["traj"], bins=settings["msm_bins"], lag=settings["msm_lag"])
    raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")


def distributions(frames: Mapping) -> dict[str, np.ndarray]:
    """Per distribution: values (n_frames, k), k values per frame."""
    ca = np.asarray(frames["ca"])
    out = {f"tic{i}": np.asarray(frames["tics"])[:, i : i + 1] for i in range(min(4, np.shape(frames["tics"])[1]))}
    out.update(rg=radius_of_gyration(ca)[:, None], bonds=bond_lengths(ca), angles=bond_angles(ca),
               dihedrals=dihedrals(ca))
    return out


class MetricSuite:
    """Every metric of one model against the ground truth; features computed once, scored per weighting.

    Parameters
    ----------
    groundtruth, model : mapping
        Frames (contract of :mod:`westbench.frames`) with ``tics``; ``model`` carries WE
        ``weight`` and ``traj`` (continuous pieces, for the MSM weighting).
    settings : mapping, optional
        The ``metrics`` config section (see :data:`DEFAULTS`).
    """

    def __init__(self, groundtruth: Mapping, model: Mapping, settings: Mapping | None = None):
        self.settings = {**DEFAULTS, **(settings or {})}
        model, self.discarded_iterations = discard_leading_iterations(model, self.settings["discard_iterations"])
        self.groundtruth, self.model = groundtruth, model
        self.groundtruth_weights = normalized(np.asarray(groundtruth["weight"], dtype=np.float64))
        self.reference, self.sample = distributions(groundtruth), distributions(model)
        self.names = [name for name in self.reference if name in self.sample]
        bins = self.settings["bins"]
        self.edges = {name: common_edges(self.reference[name], self.sample[name], bins) for name in self.names}
        self.w1 = {name: Wasserstein1D(self.reference[name], self.sample[name]) for name in self.names}
        gt_tics, model_tics = np.asarray(groundtruth["tics"])[:, :2], np.asarray(model["tics"])[:, :2]
        self.edges2d = tuple(common_edges(gt_tics[:, d], model_tics[:, d], bins) for d in range(2))
        self.reference_distances = mean_distance_map(groundtruth["ca"], self.groundtruth_weights)
        self.model_pair_distances = pairwise_distances(model["ca"])
        self.grid = CoverageGrid(gt_tics, self.settings["coverage_bins"])
        self._weights: dict[str, np.ndarray] = {}

    def weights(self, weighting: str) -> np.ndarray:
        """Model frame weights under ``weighting`` (we, msm, counts), normalized, cached."""
        if weighting not in self._weights:
            self._weights[weighting] = normalized(model_weights(self.model, weighting, self.settings))
        return self._weights[weighting]

    def score(self, weighting: str = "we") -> tuple[dict, pd.DataFrame]:
        """All metrics under one weighting.

        Returns
        -------
        values : dict
            ``w1`` and ``kl`` per distribution, ``kl_floor``, ``contact_map_mean_abs_diff_A``,
            ``contact_map_diff_A`` (matrix), ``bonds_outside_share``, ``coverage``,
            ``discarded_iterations``, and ``ci95`` {metric: {distribution: (low, high)}} with ``bootstrap``.
        table : DataFrame
            Tidy rows: weighting, distribution, metric, value, ci_low, ci_high (W1 and KL rows).
        """
        s, weights, gt_weights = self.settings, self.weights(weighting), self.groundtruth_weights
        values: dict = {"weighting": weighting, "kl_floor": s["kl_floor"], **self.divergences(weights, gt_weights)}
        model_tics = np.asarray(self.model["tics"])[:, :2]
        difference = distance_map(weighted_mean(self.model_pair_distances, weights) * 10.0) - self.reference_distances
        values["contact_map_diff_A"] = difference.round(6).tolist()
        values["contact_map_mean_abs_diff_A"] = float(np.abs(difference[np.triu_indices(len(difference), 1)]).mean())
        values["bonds_outside_share"] = share_of_bonds_outside(self.model["ca"], weights, bonds=self.sample["bonds"])
        values["coverage"] = self.grid.fraction(model_tics[weights > 0])
        values["discarded_iterations"] = self.discarded_iterations
        intervals = self.bootstrap(weighting) if s["bootstrap"] else {}
        if intervals:
            values["ci95"] = intervals
        rows = [{"weighting": weighting, "distribution": d, "metric": m, "value": v,
                 "ci_low": intervals.get(m, {}).get(d, (np.nan, np.nan))[0],
                 "ci_high": intervals.get(m, {}).get(d, (np.nan, np.nan))[1]}
                for m in ("w1", "kl") for d, v in values[m].items()]
        rows += [{"weighting": weighting, "distribution": "contact_map", "metric": "mean_abs_diff_A",
                  "value": values["contact_map_mean_abs_diff_A"]},
                 {"weighting": weighting, "distribution": "bonds", "metric": "share_outside_3.5-4.5A",
                  "value": values["bonds_outside_share"]},
                 {"weighting": weighting, "distribution": "tic01", "metric": "coverage", "value": values["coverage"]}]
        return values, pd.DataFrame(rows)

    def divergences(self, weights: np.ndarray, gt_weights: np.ndarray, w1_2d: bool = True) -> dict:
        """W1 and KL of every distribution under given model and ground-truth frame weights."""
        s = self.settings
        out: dict = {"w1": {}, "kl": {}}
        for name in self.names:
            ref_values, ref_w = _flatten(self.reference[name], gt_weights)
            mod_values, mod_w = _flatten(self.sample[name], weights)
            out["w1"][name] = self.w1[name](ref_w, mod_w)
            out["kl"][name] = kl_from_histograms(histogram(ref_values, self.edges[name], ref_w),
                                                 histogram(mod_values, self.edges[name], mod_w), s["kl_floor"])
        gt_tics, model_tics = np.asarray(self.groundtruth["tics"])[:, :2], np.asarray(self.model["tics"])[:, :2]
        out["kl"]["tic01"] = kl_from_histograms(histogram2d(gt_tics, self.edges2d, gt_weights),
                                                histogram2d(model_tics, self.edges2d, weights), s["kl_floor"])
        if w1_2d:
            out["w1"]["tic01"] = wasserstein_2d(gt_tics, model_tics, gt_weights, weights, s["w1_2d_bins"])
        return out

    def bootstrap(self, weighting: str, replicates: int | None = None, level: float = 0.95) -> dict:
        """Percentile intervals of every W1 and KL: {metric: {distribution: (low, high)}}.

        Each replicate draws ground-truth runs and model iterations (or runs) with replacement
        (multinomial multiplicities on their frames' weights), seeded by ``seed``.
        """
        replicates = int(self.settings["bootstrap"] if replicates is None else replicates)
        if replicates < 2:
            return {}
        rng = np.random.default_rng(derive_seed(int(self.settings["seed"]), "bootstrap"))
        weights, gt_weights = self.weights(weighting), self.groundtruth_weights
        gt_groups, model_groups = resampling_groups(self.groundtruth), resampling_groups(self.model)
        samples: dict = {"w1": {}, "kl": {}}
        for replicate in range(replicates):
            if replicate and replicate % max(1, replicates // 5) == 0:
                log.info("bootstrap %s: replicate %d of %d", weighting, replicate, replicates)
            gt_m = rng.multinomial(gt_groups.max() + 1, np.full(gt_groups.max() + 1, 1.0 / (gt_groups.max() + 1)))
            mod_m = rng.multinomial(model_groups.max() + 1,
                                    np.full(model_groups.max() + 1, 1.0 / (model_groups.max() + 1)))
            w, gw = weights * mod_m[model_groups], gt_weights * gt_m[gt_groups]
            if w.sum() <= 0 or gw.sum() <= 0:
                continue
            for metric, by_name in self.divergences(w / w.sum(), gw / gw.sum()).items():
                for name, value in by_name.items():
                    samples[metric].setdefault(name, []).append(value)
        tail = 100 * (1 - level) / 2
        return {metric: {name: tuple(float(v) for v in np.nanpercentile(values, [tail, 100 - tail]))
                         for name, values in by_name.items()} for metric, by_name in samples.items()}

    def macrostates(self) -> dict:
        """Ground-truth macrostates (KMeans, MSM, PCCA+; seeded) and every frame's assignment.

        The macrostates are fitted on the ground truth; model frames are assigned to the
        nearest ground-truth cluster, so populations compare state by state.
        """
        s = self.settings
        model = MacrostateEstimator(s["macrostate_clusters"], s["macrostates"], s["msm_lag"], s["macrostate_dim"],
                                    s["seed"]).fit(self.groundtruth["tics"], self.groundtruth["traj"])
        return {"groundtruth": model.assign(self.groundtruth["tics"]), "model": model.assign(self.model["tics"]),
                "n_macrostates": model.n_macrostates}

    def macrostate_populations(self, labels: Mapping, weighting: str = "we") -> dict:
        """Weighted population of each macrostate (ground truth and model) and their total variation distance."""
        n = labels["n_macrostates"]
        if n == 0:
            return {"groundtruth": [], "model": [], "total_variation": float("nan")}
        reference = np.bincount(labels["groundtruth"][labels["groundtruth"] >= 0],
                                self.groundtruth_weights[labels["groundtruth"] >= 0], minlength=n)
        inside = labels["model"] >= 0
        model = np.bincount(labels["model"][inside], self.weights(weighting)[inside], minlength=n)
        reference, model = reference / reference.sum(), model / max(model.sum(), 1e-300)
        return {"groundtruth": reference.round(6).tolist(), "model": model.round(6).tolist(),
                "total_variation": float(0.5 * np.abs(reference - model).sum())}


def _flatten(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every element of every frame, each carrying its frame's weight."""
    return values.ravel(), np.repeat(weights, values.shape[1])


def compute_metrics(groundtruth: Mapping, model: Mapping, weighting: str = "we",
                    settings: Mapping | None = None) -> tuple[dict, pd.DataFrame]:
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
