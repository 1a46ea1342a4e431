"""Whether the calibration study's own ground truth is equilibrated: its two families of runs must agree.

Half the study's runs start from the native structure, half from a short hot run (unfolded,
:mod:`westbench.calibration.groundtruth`). If every run has forgotten its start, the two halves sample one
equilibrium, and the metric suite, scoring one half against the other with its intervals and noise floor,
must call them *within noise* on every distribution it can decide. A *separated* cell means the runs are too
short for their starts: every known answer of the study (reweighting this ground truth) would inherit the bias.

The suite's verdicts have little power here (its floor is the native family's own scatter), and reweighting to a
hotter engine multiplies each frame by ``exp(U / kT - U / kT')``, so a small excess of energy in one family becomes a
large error in every prediction. The check therefore also compares the families' per-run means (runs are
independent) of the reference energy and of TIC 0 and TIC 1 with Welch's t-test, Bonferroni-corrected at
:data:`ALPHA` (``drift``): 128 + 128 runs equilibrated 40 ps differed by 2.3 kJ/mol in mean energy (p = 0.002)
while every suite cell read *within noise*.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> n, runs = 40, 16
>>> frames = {"ca": np.cumsum(rng.normal(0, 0.2, (n * runs, 5, 3)), axis=1), "tics": rng.normal(size=(n * runs, 4)),
...           "weight": np.full(n * runs, 1 / (n * runs)), "traj": np.repeat(np.arange(runs), n),
...           "time_ps": np.tile(np.arange(n, dtype=float), runs), "iteration": np.zeros(n * runs, int)}
>>> check = equilibration_check(frames, ["native", "hot"] * 8, {"bootstrap": 50, "seed": 1})
>>> check["equilibrated"], check["separated"], [test["quantity"] for test in check["drift"]]
(True, [], ['tic0', 'tic1'])
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from westbench.metrics.noise_floor import SEPARATED, WITHIN_NOISE

#: Family-wise level of the per-run mean tests (Bonferroni over the quantities tested).
ALPHA = 0.05


def _subset(frames: Mapping, keep: np.ndarray) -> dict:
    n = len(frames["ca"])
    return {k: (np.asarray(v)[keep] if np.ndim(v) and len(v) == n else v) for k, v in frames.items()}


def run_mean_tests(groundtruth: Mapping, families: Mapping[str, Sequence[int]]) -> list[dict]:
    """Welch's t-test of two families' per-run means of the energy (when the frames have it) and of TIC 0 and TIC 1.

    ``families``: {name: the runs (values of ``traj``)}. One record per quantity: ``quantity``, ``means`` (each
    family's mean of its run means, by name), ``t``, ``p`` and ``drifted`` (``p``
    below :data:`ALPHA` over the number of quantities). A quantity without two runs of variance in each family
    is left out.
    """
    from scipy.stats import ttest_ind

    levels, rank = np.unique(np.asarray(groundtruth["traj"]), return_inverse=True)
    counts = np.bincount(rank).astype(np.float64)
    series = {} if groundtruth.get("energy") is None else {"energy": groundtruth["energy"]}
    tics = groundtruth.get("tics")
    for column in range(0 if tics is None else min(2, np.shape(tics)[1])):
        series[f"tic{column}"] = np.asarray(tics)[:, column]
    (first_name, first_runs), (second_name, second_runs) = families.items()
    first, second = np.isin(levels, first_runs), np.isin(levels, second_runs)
    tests = []
    for name, values in series.items():
        means = np.bincount(rank, np.asarray(values, dtype=np.float64), minlength=len(levels)) / counts
        a, b = means[first], means[second]
        if min(len(a), len(b)) < 2 or not (np.ptp(a) > 0 and np.ptp(b) > 0):
            continue
        result = ttest_ind(a, b, equal_var=False)
        tests.append(
            {
                "quantity": name,
                "means": {first_name: float(a.mean()), second_name: float(b.mean())},
                "t": float(result.statistic),
                "p": float(result.pvalue),
            }
        )
    for test in tests:
        test["drifted"] = bool(test["p"] < ALPHA / len(tests))
    return tests


def equilibration_check(groundtruth: Mapping, starts: Sequence[str], settings: Mapping) -> dict:
    """The hot-started runs scored against the native-started ones (run ``i`` of ``groundtruth["traj"]`` started
    as ``starts[i]``) under the metric suite's ``settings``.

    Returns ``equilibrated`` (no decided cell separated and no per-run mean drifted; None when nothing could be
    decided), ``cells``, ``determined``, ``separated`` (the separated "metric distribution" cells), ``drift``
    (:func:`run_mean_tests`) and ``runs`` per family.
    """
    from westbench.metrics.suite import MetricSuite

    traj = np.asarray(groundtruth["traj"])
    families = {name: [i for i, start in enumerate(starts) if start == name] for name in sorted(set(starts))}
    if len(families) != 2:
        return {"equilibrated": None, "why": f"the runs have {len(families)} kinds of start, the check needs 2"}
    (first, first_runs), (second, second_runs) = families.items()
    reference, other = (_subset(groundtruth, np.isin(traj, runs)) for runs in (first_runs, second_runs))
    reference["weight"] = np.full(len(reference["ca"]), 1.0 / len(reference["ca"]))
    other["weight"] = np.full(len(other["ca"]), 1.0 / len(other["ca"]))
    suite = MetricSuite(reference, other, {**dict(settings), "discard_iterations": 0})
    values, _ = suite.score("counts")
    verdicts = [(f"{metric} {name}", v) for metric in ("w1", "kl") for name, v in values["verdicts"][metric].items()]
    determined = [(cell, v) for cell, v in verdicts if v in (SEPARATED, WITHIN_NOISE)]
    separated = [cell for cell, v in determined if v == SEPARATED]
    drift = run_mean_tests(groundtruth, families)
    drifted = [test["quantity"] for test in drift if test["drifted"]]
    return {
        "equilibrated": (not separated and not drifted) if determined or drift else None,
        "reference": first,
        "compared": second,
        "runs": {first: len(first_runs), second: len(second_runs)},
        "cells": len(verdicts),
        "determined": len(determined),
        "separated": separated,
        "drift": drift,
        "drifted": drifted,
    }
