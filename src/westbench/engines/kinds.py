"""Which kind of engine a name is: the one place that decides it.

Engine names in ``we.engines`` are ``implicit`` and ``explicit`` (OpenMM with the solvent model of
that name), ``cg_<name>`` (a coarse-grained model: trained with ``cg.presets.<name>``, or a user's
model ``cg.models.<name>``) or the ``name`` of an entry naming a user's class (kind ``user``,
:mod:`westbench.engines.user`); names under ``external`` are samples made elsewhere; ``groundtruth`` is
the ground truth scored against itself. Rules, scripts and the report ask :func:`engine_kind` instead of
testing names, and :func:`engine_work` what a WE engine of a kind computes with.

Examples
--------
>>> engine_kind("explicit"), engine_kind("cg_fulltrained"), engine_kind("md_run", external=["md_run"])
('openmm', 'cg', 'external')
>>> cg_preset_of("cg_fulltrained"), engine_kind(GROUNDTRUTH), engine_kind("mine", user=["mine"])
('fulltrained', 'groundtruth', 'user')
>>> engine_work(CG), engine_work(OPENMM), engine_work(USER, {"name": "mine", "work": "torch"})
('torch', 'openmm', 'torch')
"""

from __future__ import annotations

from typing import Collection, Mapping

from westbench.errors import ConfigError
from westbench.simulation import SOLVENTS  # an OpenMM engine is named after the solvent model it runs

OPENMM, CG, EXTERNAL, GROUNDTRUTH, USER = "openmm", "cg", "external", "groundtruth", "user"
#: Prefix of CG engines: ``cg_<preset>``.
CG_PREFIX = "cg_"


def engine_kind(engine: str, external: Collection[str] = (), user: Collection[str] = ()) -> str:
    """``"openmm"``, ``"cg"``, ``"user"``, ``"external"`` or ``"groundtruth"`` for an engine name.

    Parameters
    ----------
    engine : str
        A name from ``we.engines``, ``external`` or ``"groundtruth"``.
    external : collection of str
        The names configured under ``external``.
    user : collection of str
        The names of the ``we.engines`` entries that name a class.

    Raises
    ------
    ConfigError
        For a name that is none of these, with the names that are allowed.
    """
    if engine == GROUNDTRUTH:
        return GROUNDTRUTH
    if engine in external:
        return EXTERNAL
    if engine in user:
        return USER
    if engine in SOLVENTS:
        return OPENMM
    if engine.startswith(CG_PREFIX) and len(engine) > len(CG_PREFIX):
        return CG
    raise ConfigError(
        f"unknown engine {engine!r}: we.engines takes {' or '.join(SOLVENTS)} (OpenMM) or "
        f'{CG_PREFIX}<name> (a CG model), or an entry {{name: ..., class: "package.module:Engine"}} (your engine '
        f"class); samples made elsewhere go under `external`."
    )


def cg_preset_of(engine: str) -> str:
    """The ``cg.presets`` entry a CG engine runs (``cg_<preset>`` -> ``<preset>``)."""
    if engine_kind(engine) != CG:
        raise ConfigError(f"engine {engine!r} is not a CG engine ({CG_PREFIX}<preset>)")
    return engine[len(CG_PREFIX) :]


def engine_work(kind: str, user: Mapping | None = None) -> str:
    """What a WE engine of ``kind`` computes with: ``"torch"`` for CG models, ``"openmm"`` for the OpenMM engines,
    a user engine's own ``work`` (its ``we.engines`` entry, ``user``).

    The work decides a WE job's threads, GPU request and workers (:mod:`westbench.runtime.resources`): the plan, the WE
    launcher and the job's script ask here. External engines and the ground truth run no WE job.

    Raises
    ------
    ConfigError
        For kind user without its entry, or a kind that runs no WE job.
    """
    if kind == USER:
        if user is None:
            raise ConfigError("a user engine's work is its we.engines entry's `work`: give the entry")
        return user["work"]
    if kind == CG:
        return "torch"
    if kind == OPENMM:
        return "openmm"
    raise ConfigError(f"engine kind {kind!r} runs no WE job (openmm, cg or user engines do)")
