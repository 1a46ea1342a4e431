"""Data for the calibration study's tests: frames of independent runs and rows of the study's table."""

import numpy as np

from westbench.calibration.table_rows import COLUMNS
from westbench.calibration.verdicts import agrees


def run_frames(n_runs: int, per_run: int, seed: int, shift: float = 0.0, run_noise: float = 0.0, beads: int = 5):
    """Frames of ``n_runs`` independent runs: TICs N(0, 1) plus a per-run level N(0, ``run_noise``), TIC 0 moved by
    ``shift``; random-walk C-alpha chains."""
    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    tics = rng.normal(size=(n, 4)) + np.repeat(rng.normal(0, run_noise, n_runs), per_run)[:, None]
    tics[:, 0] += shift
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, beads, 3)), axis=1),
        "tics": tics,
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(n_runs), per_run),
        "time_ps": np.tile(np.arange(per_run, dtype=float), n_runs),
        "iteration": np.zeros(n, int),
    }


def table_row(
    engine,
    kind,
    temperature=1.0,
    contacts=1.0,
    distribution="tic0",
    value=0.1,
    verdict="within noise",
    expected="within noise",
):
    """One row of the study's table (its other columns empty): a W1 cell of ``engine``."""
    return {
        **dict.fromkeys(COLUMNS),
        "study": "s",
        "engine": engine,
        "kind": kind,
        "temperature_scale": temperature,
        "contact_scale": contacts,
        "distribution": distribution,
        "metric": "w1",
        "value": value,
        "verdict": verdict,
        "expected": expected,
        "agrees": agrees(verdict, expected) if expected else None,
    }
