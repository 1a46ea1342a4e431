"""Derive independent, reproducible seeds from the config's base seed.

One policy, one owner: every seed drawn from the config's ``seed`` is
:func:`stage_seed` of (protein, stage, more keys...), so two proteins, two stages or two
runs of a stage never share a random stream, and the same inputs always give the same seed.
Inside a stage, code splits its stage seed into sub-streams with :func:`derive_seed`
(e.g. ``derive_seed(run_seed, "chunk", 3)``).

The hash is stable across processes, machines and Python versions: CRC-32 of each text key
(integers as they are) fed with the base seed to :class:`numpy.random.SeedSequence`.

Examples
--------
>>> a = stage_seed(2024, "chignolin", "groundtruth_run", "s0001")
>>> a == stage_seed(2024, "chignolin", "groundtruth_run", "s0001")
True
>>> stage_seed(2024, "chignolin", "groundtruth_starts") != stage_seed(2024, "trpcage", "groundtruth_starts")
True
>>> derive_seed(2024, "chignolin", "s0001") != derive_seed(2024, "chignolin", "s0002")
True
"""

from __future__ import annotations

import zlib

import numpy as np

#: The stages that draw a seed from the config's base seed, with the keys after the stage:
#: ``fix_structure``; ``build_system`` (solvent); ``groundtruth_starts`` (its hot runs and the
#: start selection); ``groundtruth_run`` (start id); ``tica`` (its random feature pairs); ``cg_train``
#: (preset; protein ``all`` for a model of every protein); ``we`` (engine); ``metrics`` (engine); ``controls``
#: (a protein's controls, westbench.metrics.controls); ``agents_leaderboard`` and ``agents_failures`` (the
#: failure analysis's bootstrap; protein ``all``); the calibration study's
#: ``calibration_groundtruth``, ``calibration_cg_train`` (preset), ``calibration_basis_states``,
#: ``calibration_engine_starts`` (engine), ``calibration_we`` (engine), ``calibration_macrostates`` and
#: ``calibration_metrics`` (engine), protein = the study's.
STAGES = (
    "fix_structure",
    "build_system",
    "groundtruth_starts",
    "groundtruth_run",
    "tica",
    "cg_train",
    "we",
    "macrostates",
    "metrics",
    "controls",
    "agents_leaderboard",
    "agents_failures",
    "calibration_groundtruth",
    "calibration_equilibrium_sample",
    "calibration_cg_train",
    "calibration_basis_states",
    "calibration_engine_starts",
    "calibration_we",
    "calibration_macrostates",
    "calibration_metrics",
)


def derive_seed(base: int, *keys: str | int) -> int:
    """A seed in [1, 2**31 - 1] determined by ``base`` and ``keys`` (OpenMM reads 0 as 'random')."""
    entropy = [int(base)] + [k if isinstance(k, int) else zlib.crc32(str(k).encode()) for k in keys]
    value = int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0]) % (2**31 - 1)
    return value + 1


def stage_seed(base_seed: int, protein: str, stage: str, *more: str | int) -> int:
    """The seed of one stage of one protein (``protein="all"`` for a stage across proteins).

    Parameters
    ----------
    base_seed : int
        The config's ``seed``.
    protein : str
        The protein id, or ``"all"``.
    stage : str
        One of :data:`STAGES`.
    *more : str or int
        What tells the stage's jobs apart (start id, engine, solvent, preset).

    Raises
    ------
    ValueError
        For a stage not in :data:`STAGES` (a typo would silently give another stream).
    """
    if stage not in STAGES:
        raise ValueError(f"unknown seed stage {stage!r}; one of {', '.join(STAGES)} (westbench.seeds.STAGES)")
    return derive_seed(base_seed, str(protein), stage, *more)


def replica_keys(replica=None) -> tuple[int, ...]:
    """What tells a WE replica's seed apart: nothing for a single run and replica 0 (they keep the engine's seed),
    the replica's number for replica k >= 1 (its own stream).

    >>> replica_keys(None), replica_keys("0"), replica_keys(2)
    ((), (), (2,))
    """
    replica = int(replica or 0)
    return () if replica == 0 else (replica,)
