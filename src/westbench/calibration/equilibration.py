"""Whether the calibration study's own ground truth is equilibrated: its two families of runs must agree.

Half the study's runs start from the native structure, half from a short hot run (unfolded,
:mod:`westbench.calibration.groundtruth`). If every run has forgotten its start, the two halves sample one
equilibrium, and the metric suite, scoring one half against the other with its intervals and noise floor,
must call them *within noise* on every distribution it can decide. A *separated* cell means the runs are too
short for their starts: every known answer of the study (reweighting this ground truth) would inherit the bias.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> n, runs = 40, 16
>>> frames = {"ca": np.cumsum(rng.normal(0, 0.2, (n * runs, 5, 3)), axis=1), "tics": rng.normal(size=(n * runs, 4)),
...           "weight": np.full(n * runs, 1 / (n * runs)), "traj": np.repeat(np.arange(runs), n),
...           "time_ps": np.tile(np.arange(n, dtype=float), runs), "iteration": np.zeros(n * runs, int)}
>>> check = equilibration_check(frames, ["native", "hot"] * 8, {"bootstrap": 50, "seed": 1})
>>> check["equilibrated"], check["separated"]
(True, [])
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from westbench.metrics.noise_floor import SEPARATED, WITHIN_NOISE


def _subset(frames: Mapping, keep: np.ndarray) -> dict:
    n = len(frames["ca"])
    return {k: (np.asarray(v)[keep] if np.ndim(v) and len(v) == n else v) for k, v in frames.items()}


def equilibration_check(groundtruth: Mapping, starts: Sequence[str], settings: Mapping) -> dict:
    """The hot-started runs scored against the native-started ones (run ``i`` of ``groundtruth["traj"]`` started
    as ``starts[i]``) under the metric suite's ``settings``.

    Returns ``equilibrated`` (no decided cell separated; None when none could be decided), ``cells``,
    ``determined``, ``separated`` (the separated "metric distribution" cells) and ``runs`` per family.
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
    return {
        "equilibrated": (not separated) if determined else None,
        "reference": first,
        "compared": second,
        "runs": {first: len(first_runs), second: len(second_runs)},
        "cells": len(verdicts),
        "determined": len(determined),
        "separated": separated,
    }
