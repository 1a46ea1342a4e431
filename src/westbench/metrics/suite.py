"""The metric suite of one model (engine) against the ground truth, all on C-alpha frames.

Distributions: TIC 0-3, radius of gyration, C-alpha bonds, angles, dihedrals
(1-D: Wasserstein-1 and KL(ground truth || model)), TIC 0/1 (2-D KL). Also the
contact-map difference, the share of bonds outside 3.5-4.5 A, and coverage.
Model frame weights: ``we`` (the exported WE weights), ``msm`` (grid-MSM
stationary weights) or ``counts`` (uniform).

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

from typing import Mapping

import numpy as np
import pandas as pd

from westbench.metrics.coverage import CoverageGrid
from westbench.metrics.divergences import kl_1d, kl_2d, wasserstein_1d
from westbench.metrics.msm import grid_msm_weights
from westbench.metrics.structure import (bond_angles, bond_lengths, contact_map_difference, dihedrals,
                                         radius_of_gyration, share_of_bonds_outside)

WEIGHTINGS = ("we", "msm", "counts")
DEFAULTS = {"bins": 100, "kl_floor": 1e-8, "msm_bins": 80, "msm_lag": 1, "coverage_bins": 100}


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


def distributions(frames: Mapping) -> dict[str, tuple[np.ndarray, int]]:
    """Per distribution: values (n_frames, k) and k, the values per frame."""
    ca = np.asarray(frames["ca"])
    out = {f"tic{i}": np.asarray(frames["tics"])[:, i : i + 1] for i in range(min(4, np.shape(frames["tics"])[1]))}
    out.update(rg=radius_of_gyration(ca)[:, None], bonds=bond_lengths(ca), angles=bond_angles(ca),
               dihedrals=dihedrals(ca))
    return out


def _flatten(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every element of every frame, each carrying its frame's weight."""
    return values.ravel(), np.repeat(weights, values.shape[1])


def compute_metrics(groundtruth: Mapping, model: Mapping, weighting: str = "we",
                    settings: Mapping | None = None) -> tuple[dict, pd.DataFrame]:
    """All metrics of ``model`` against ``groundtruth`` (both in the frames contract, with ``tics``).

    Returns
    -------
    values : dict
        ``w1`` and ``kl`` per distribution, ``kl_floor``, ``contact_map_mean_abs_diff_A``,
        ``contact_map_diff_A`` (matrix), ``bonds_outside_share``, ``coverage``.
    table : DataFrame
        Tidy rows: weighting, distribution, metric, value.
    """
    s = {**DEFAULTS, **(settings or {})}
    gt_weights = np.asarray(groundtruth["weight"], dtype=np.float64)
    weights = model_weights(model, weighting, s)
    reference, sample = distributions(groundtruth), distributions(model)
    values: dict = {"weighting": weighting, "kl_floor": s["kl_floor"], "w1": {}, "kl": {}}
    for name in reference:
        if name not in sample:
            continue
        ref_values, ref_w = _flatten(reference[name], gt_weights)
        mod_values, mod_w = _flatten(sample[name], weights)
        values["w1"][name] = wasserstein_1d(ref_values, mod_values, ref_w, mod_w)
        values["kl"][name] = kl_1d(ref_values, mod_values, ref_w, mod_w, bins=s["bins"], floor=s["kl_floor"])
    values["kl"]["tic01"] = kl_2d(np.asarray(groundtruth["tics"])[:, :2], np.asarray(model["tics"])[:, :2],
                                  gt_weights, weights, bins=s["bins"], floor=s["kl_floor"])
    difference = contact_map_difference(groundtruth["ca"], model["ca"], gt_weights, weights)
    values["contact_map_diff_A"] = difference.round(6).tolist()
    values["contact_map_mean_abs_diff_A"] = float(np.abs(difference[np.triu_indices(len(difference), 1)]).mean())
    values["bonds_outside_share"] = share_of_bonds_outside(model["ca"], weights)
    grid = CoverageGrid(np.asarray(groundtruth["tics"])[:, :2], s["coverage_bins"])
    values["coverage"] = grid.fraction(np.asarray(model["tics"])[weights > 0, :2])
    rows = [{"weighting": weighting, "distribution": d, "metric": m, "value": v}
            for m in ("w1", "kl") for d, v in values[m].items()]
    rows += [{"weighting": weighting, "distribution": "contact_map", "metric": "mean_abs_diff_A",
              "value": values["contact_map_mean_abs_diff_A"]},
             {"weighting": weighting, "distribution": "bonds", "metric": "share_outside_3.5-4.5A",
              "value": values["bonds_outside_share"]},
             {"weighting": weighting, "distribution": "tic01", "metric": "coverage", "value": values["coverage"]}]
    return values, pd.DataFrame(rows)
