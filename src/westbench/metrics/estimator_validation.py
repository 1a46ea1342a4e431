"""Every divergence estimator the suite reports, against known answers over sample sizes.

Known answers (:data:`CASES`): pairs of distributions whose KL(P || Q) and W1 are known in closed form or by
quadrature to 1e-6: Gaussians shifted and scaled, a bimodal mixture with its weights moved, a von Mises pair on
the circle (dihedrals), correlated 2-D Gaussians shifted (TIC 0/1), and a null pair of each kind (P = Q). Each
estimator (:data:`ESTIMATORS`) is the suite's own code with the suite's defaults: W1 1-D exact
(:class:`~westbench.metrics.divergences.Wasserstein1D`), circular
(:class:`~westbench.metrics.divergences.CircularWasserstein1D`), 2-D on the ``w1_2d_bins`` grid
(:func:`~westbench.metrics.divergences.wasserstein_2d`); KL by histograms on ``bins`` cells with ``kl_floor``
(:func:`~westbench.metrics.divergences.kl_1d`, :func:`~westbench.metrics.divergences.kl_2d`) and by k nearest
neighbours (:func:`westbench.metrics.kl.kl_knn`, k = 1 and the suite's k, the suite's query points).

:func:`validate` draws ``seeds`` pairs of samples of each size (the same size on each side), and reports per
case, estimator and size the mean estimate, its bias (absolute and relative to the known value) and its
standard deviation. ``benchmarks/kl_validation.py`` writes the table in docs/scoring.md; the tests check its
properties on fewer seeds (tests/unit/metrics/test_estimator_validation.py).

:func:`correlated` does the same for samples made of independent runs of correlated frames (the ground
truth's shape: a few trajectories, each near its start), where the units matter.

Examples
--------
>>> rows = validate(cases=["shift"], estimators=["kl_knn"], sizes=[1000], seeds=4)
>>> row = rows[0]
>>> row["case"], row["estimator"], row["n"], abs(row["bias"]) < 0.05
('shift', 'kl_knn', 1000, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from scipy import integrate, special, stats

from westbench.config import default
from westbench.metrics.binning import ReferenceBins
from westbench.metrics.divergences import (
    CircularWasserstein1D,
    Wasserstein1D,
    kl_1d,
    kl_2d,
    kl_from_histograms,
    wasserstein_2d,
)
from westbench.metrics.kl import NEIGHBOURS, QUERY_POINTS, kl_knn

#: Sample sizes per side of the table.
SIZES = (30, 60, 200, 1000, 5000, 20000)

Sampler = Callable[[np.random.Generator, int], np.ndarray]


@dataclass(frozen=True)
class Case:
    """A pair of distributions with known divergences: samplers of P (ground truth) and Q (model), KL(P || Q)
    and W1, and the kind of variable (``line``, ``circle`` in radians, ``plane``)."""

    name: str
    description: str
    p: Sampler
    q: Sampler
    kl: float
    w1: float
    kind: str


def _mixture(weights, means, sd):
    def sample(rng, n):
        component = rng.choice(len(weights), size=n, p=weights)
        return rng.normal(np.asarray(means)[component], sd)

    return sample


def _mixture_pdf(x, weights, means, sd):
    return sum(w * stats.norm.pdf(x, m, sd) for w, m in zip(weights, means))


def _mixture_cdf(x, weights, means, sd):
    return sum(w * stats.norm.cdf(x, m, sd) for w, m in zip(weights, means))


def _bimodal() -> tuple[float, float]:
    """KL and W1 of the bimodal pair by quadrature."""
    p, q = ((0.5, 0.5), (-2.0, 2.0), 0.5), ((0.7, 0.3), (-2.0, 2.0), 0.5)
    kl = integrate.quad(
        lambda x: _mixture_pdf(x, *p) * np.log(_mixture_pdf(x, *p) / _mixture_pdf(x, *q)), -8, 8, points=[-2, 2]
    )[0]
    w1 = integrate.quad(lambda x: abs(_mixture_cdf(x, *p) - _mixture_cdf(x, *q)), -8, 8, points=[-2, 2])[0]
    return kl, w1


def _von_mises(kappa: float, shift: float) -> tuple[float, float]:
    """KL of two von Mises of one concentration ``kappa``, ``shift`` apart (closed form), and their circular W1:
    the integral of |F - G - c| around the circle at the median c (quadrature on a fine grid)."""
    kl = special.i1(kappa) / special.i0(kappa) * kappa * (1 - np.cos(shift))
    grid = np.linspace(-np.pi, np.pi, 400_001)
    difference = stats.vonmises.cdf(grid, kappa) - stats.vonmises.cdf(grid, kappa, loc=shift)
    difference -= np.median(difference)  # equal spacing: the length-weighted median
    return float(kl), float(np.trapezoid(np.abs(difference), grid))


COVARIANCE = np.array([[1.0, 0.6], [0.6, 0.5]])
DELTA = np.array([0.3, -0.2])
KAPPA, VM_SHIFT = 2.0, 0.6


def _cases() -> dict[str, Case]:
    bimodal_kl, bimodal_w1 = _bimodal()
    vm_kl, vm_w1 = _von_mises(KAPPA, VM_SHIFT)
    plane_kl = 0.5 * DELTA @ np.linalg.solve(COVARIANCE, DELTA)
    normal = lambda mean, sd: lambda rng, n: rng.normal(mean, sd, n)  # noqa: E731
    gauss2 = lambda shift: lambda rng, n: rng.multivariate_normal(shift, COVARIANCE, n)  # noqa: E731
    vm = lambda loc: lambda rng, n: rng.vonmises(loc, KAPPA, n)  # noqa: E731
    cases = [
        Case("shift", "N(0, 1) vs N(0.5, 1)", normal(0.0, 1.0), normal(0.5, 1.0), 0.125, 0.5, "line"),
        Case(
            "scale",
            "N(0, 1) vs N(0, 1.5^2)",
            normal(0.0, 1.0),
            normal(0.0, 1.5),
            float(np.log(1.5) + 1 / (2 * 2.25) - 0.5),
            0.5 * float(np.sqrt(2 / np.pi)),
            "line",
        ),
        Case(
            "bimodal",
            "0.5/0.5 vs 0.7/0.3 of N(-2, 0.5^2) and N(2, 0.5^2)",
            _mixture((0.5, 0.5), (-2.0, 2.0), 0.5),
            _mixture((0.7, 0.3), (-2.0, 2.0), 0.5),
            bimodal_kl,
            bimodal_w1,
            "line",
        ),
        Case("null", "N(0, 1) vs N(0, 1)", normal(0.0, 1.0), normal(0.0, 1.0), 0.0, 0.0, "line"),
        Case(
            "von_mises",
            f"von Mises kappa {KAPPA:g}, 0 vs {VM_SHIFT:g} rad",
            vm(0.0),
            vm(VM_SHIFT),
            vm_kl,
            vm_w1,
            "circle",
        ),
        Case("von_mises_null", f"von Mises kappa {KAPPA:g}, both at 0", vm(0.0), vm(0.0), 0.0, 0.0, "circle"),
        Case(
            "plane",
            "2-D Gaussian (var 1, 0.5; cov 0.6) vs shifted by (0.3, -0.2)",
            gauss2(np.zeros(2)),
            gauss2(DELTA),
            float(plane_kl),
            float(np.linalg.norm(DELTA)),
            "plane",
        ),
        Case("plane_null", "2-D Gaussian vs itself", gauss2(np.zeros(2)), gauss2(np.zeros(2)), 0.0, 0.0, "plane"),
    ]
    return {case.name: case for case in cases}


CASES = _cases()

BINS, KL_FLOOR, W1_2D_BINS = default("metrics.bins"), default("metrics.kl_floor"), default("metrics.w1_2d_bins")


def _hist_kl(p, q, kind):
    if kind == "plane":
        return kl_2d(p, q, bins=BINS, floor=KL_FLOOR)
    if kind == "circle":
        grid = ReferenceBins.from_reference(p, BINS, period=(-np.pi, np.pi))
        return kl_from_histograms(grid.histogram(p), grid.histogram(q), KL_FLOOR)
    return kl_1d(p, q, bins=BINS, floor=KL_FLOOR)


def _knn_kl(k):
    def estimate(p, q, kind):
        return kl_knn(p, q, k=k, period=2 * np.pi if kind == "circle" else None, query_points=QUERY_POINTS)

    return estimate


def _w1(p, q, kind):
    if kind == "plane":
        return wasserstein_2d(p, q, bins=W1_2D_BINS)
    if kind == "circle":
        return CircularWasserstein1D(p, q, 2 * np.pi, -np.pi)()
    return Wasserstein1D(p, q)()


#: name: (metric, estimate(p, q, kind), what it is).
ESTIMATORS = {
    "w1": ("w1", _w1, f"W1: exact on the line and the circle; 2-D on {W1_2D_BINS} x {W1_2D_BINS} cells (POT)"),
    "kl_histogram": ("kl", _hist_kl, f"KL of {BINS}-bin histograms (per axis in 2-D), floor {KL_FLOOR:g}"),
    "kl_knn1": ("kl", _knn_kl(1), "KL by nearest neighbours, k = 1"),
    "kl_knn4": ("kl", _knn_kl(4), "KL by nearest neighbours, k = 4"),
    "kl_knn8": ("kl", _knn_kl(8), "KL by nearest neighbours, k = 8"),
    "kl_knn": ("kl", _knn_kl(NEIGHBOURS), f"KL by nearest neighbours, k = {NEIGHBOURS} (the suite's)"),
}


def _summary(values: np.ndarray, exact: float) -> dict:
    values = np.asarray(values, dtype=np.float64)
    mean = float(np.mean(values))
    return {
        "exact": exact,
        "mean": mean,
        "bias": mean - exact,
        "relative_bias": (mean - exact) / exact if exact else None,
        "sd": float(np.std(values, ddof=1)) if len(values) > 1 else 0.0,
        "seeds": len(values),
    }


def validate(
    cases: Iterable[str] | None = None,
    estimators: Iterable[str] | None = None,
    sizes: Sequence[int] = SIZES,
    seeds: int = 20,
    seed: int = 0,
) -> list[dict]:
    """Bias and spread of each estimator on each case at each size (the same on both sides), over ``seeds`` pairs
    of samples: rows {case, estimator, metric, n, exact, mean, bias, relative_bias, sd, seeds}."""
    rows = []
    for case_name in CASES if cases is None else cases:
        case = CASES[case_name]
        for name in ESTIMATORS if estimators is None else estimators:
            metric, estimate, _ = ESTIMATORS[name]
            exact = case.kl if metric == "kl" else case.w1
            for n in sizes:
                values = []
                for s in range(seeds):
                    rng = np.random.default_rng([seed, int(n), s])
                    values.append(estimate(case.p(rng, n), case.q(rng, n), case.kind))
                rows.append(
                    {"case": case_name, "estimator": name, "metric": metric, "n": int(n), **_summary(values, exact)}
                )
    return rows


def runs(rng: np.random.Generator, n_runs: int, length: int, memory: float, mean: float) -> np.ndarray:
    """``n_runs`` independent AR(1) runs of ``length`` frames with N(mean, 1) marginals and lag-1 correlation
    ``memory``, each from its own equilibrium start: (n_runs * length,) frames, run by run."""
    x = np.empty((n_runs, length))
    x[:, 0] = rng.normal(size=n_runs)
    noise = np.sqrt(1 - memory**2)
    for t in range(1, length):
        x[:, t] = memory * x[:, t - 1] + noise * rng.normal(size=n_runs)
    return (x + mean).ravel()


#: Shapes of the correlated table: (runs, frames per run).
RUN_SHAPES = ((3, 20), (10, 100), (30, 200), (100, 200))


def correlated(
    memories: Sequence[float] = (0.0, 0.9, 0.98), shapes=RUN_SHAPES, seeds: int = 20, seed: int = 0
) -> list[dict]:
    """The shifted pair (KL 0.125) as runs of correlated frames on both sides (:func:`runs`): the histogram KL,
    the nearest-neighbour KL with each point's density from every other frame (``kl_knn_frames``: its own run's
    neighbours in time included) and from the other runs only (``kl_knn``, as the suite does)."""
    estimators = {
        "kl_histogram": lambda p, q, units: kl_1d(p, q, bins=BINS, floor=KL_FLOOR),
        "kl_knn_frames": lambda p, q, units: kl_knn(p, q, query_points=QUERY_POINTS),
        "kl_knn": lambda p, q, units: kl_knn(p, q, reference_units=units, query_points=QUERY_POINTS),
    }
    rows = []
    for memory in memories:
        for n_runs, length in shapes:
            values = {name: [] for name in estimators}
            units = np.repeat(np.arange(n_runs), length)
            for s in range(seeds):
                rng = np.random.default_rng([seed, n_runs, length, int(1000 * memory), s])
                p, q = runs(rng, n_runs, length, memory, 0.0), runs(rng, n_runs, length, memory, 0.5)
                for name, estimate in estimators.items():
                    values[name].append(estimate(p, q, units))
            for name, vals in values.items():
                rows.append(
                    {"memory": memory, "runs": n_runs, "length": length, "estimator": name, **_summary(vals, 0.125)}
                )
    return rows


def bootstrap_spread(
    cases: Sequence[str] = ("shift", "bimodal", "von_mises", "plane"),
    sizes: Sequence[int] = (256, 1024),
    frames_per_unit: int = 16,
    seeds: int = 10,
    replicates: int = 100,
    seed: int = 0,
) -> list[dict]:
    """How wide the unit bootstrap of the suite's nearest-neighbour KL is: per case and size, the spread of the
    estimate over ``seeds`` independent pairs of samples (each of ``size`` points in units of ``frames_per_unit``)
    against the mean spread of ``replicates`` bootstrap replicates (unit multiplicities on both sides, as
    :func:`westbench.metrics.intervals.unit_bootstrap` draws them). A ratio above 1: intervals wider than needed."""
    from westbench.metrics.intervals import multiplicities
    from westbench.metrics.kl_rows import SuiteKL

    rows = []
    for case_name in cases:
        case = CASES[case_name]
        for n in sizes:
            units = np.arange(n) // frames_per_unit
            n_units = int(units.max()) + 1
            estimates, spreads = [], []
            for s in range(seeds):
                rng = np.random.default_rng([seed, int(n), s, 7])
                p, q = case.p(rng, n), case.q(rng, n)
                if case.kind == "plane":
                    keys, ref, mod, tics = [("kl", "tic01")], {}, {}, (p, q)
                else:
                    scale = np.degrees(1.0) if case.kind == "circle" else 1.0  # the suite's dihedrals are degrees
                    keys, ref, mod, tics = (
                        [("kl", "x")],
                        {"x": scale * p[:, None]},
                        {"x": scale * q[:, None]},
                        (None, None),
                    )
                periods = {"x": (-180.0, 180.0)} if case.kind == "circle" else {}
                estimator = SuiteKL(keys, ref, mod, *tics, units, units, np.ones(n), periods)
                statistic = estimator.statistic(lambda m: np.zeros((1, len(m[0]))), np.ones(n))
                estimates.append(statistic([np.ones((1, n_units)), np.ones((1, n_units))])[0, 0])
                boot = statistic([multiplicities(rng, n_units, replicates), multiplicities(rng, n_units, replicates)])
                spreads.append(float(np.nanstd(boot[0])))
            true_sd = float(np.std(estimates, ddof=1))
            rows.append(
                {
                    "case": case_name,
                    "n": int(n),
                    "units": n_units,
                    "estimate_sd": true_sd,
                    "bootstrap_sd": float(np.mean(spreads)),
                    "ratio": float(np.mean(spreads)) / true_sd if true_sd > 0 else None,
                    "seeds": seeds,
                    "replicates": replicates,
                }
            )
    return rows
