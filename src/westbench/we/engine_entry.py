"""The engine entry of a WE job's west.cfg and the job's workers, by engine kind
(:mod:`westbench.engines.kinds`): what the propagator builds each worker's engine from.

Examples
--------
>>> spec = openmm_engine_spec("s.xml", "st.xml", "s.pdb", {"timestep_fs": 4.0}, {"name": "CPU"}, threads=1)
>>> spec["class"], spec["options"]["threads"], spec["block_size"]
('westbench.engines.openmm_engine:OpenMMEngine', 1, 1)
"""

from __future__ import annotations

import os
from typing import Mapping

from westbench.config import default, section_defaults
from westbench.runtime.devices import resolve_batch_walkers
from westbench.simulation import INTEGRATOR_KEYS
from westbench.we.settings import WESettings

#: Segments per propagator call of a batched engine: every segment of an iteration at once.
BATCHED = 1_000_000


def max_walkers_per_worker(settings: Mapping | WESettings, n_workers: int = 1) -> int:
    """The most walkers one worker gets per iteration: bins x walkers per bin, shared by the workers (``settings``:
    the job's :class:`WESettings` or a mapping of its keys).

    Examples
    --------
    >>> max_walkers_per_worker({"bins_per_tic": 7, "walkers_per_bin": 3}, 2)
    74
    """
    we = WESettings.of(settings)
    return -(-(int(we.bins_per_tic) ** 2) * int(we.walkers_per_bin) // max(1, int(n_workers)))


def openmm_engine_spec(
    system_xml,
    state_xml,
    topology_pdb,
    preparation: Mapping,
    platform: Mapping,
    threads: int | None = None,
    batch_walkers=default("we.batch_walkers"),
    max_walkers: int = 1,
) -> dict:
    """The engine entry of west.cfg for an OpenMM system (absolute paths: WESTPA runs in its own folder).

    ``block_size`` (segments per propagator call): a worker's share of an iteration (``max_walkers``)
    rounded up to whole batches of the configured platform's batch size, so WESTPA's blocks hold whole
    batches (a block is recorded in west.h5 at once: a resumed iteration re-forms the same batches)
    and WESTPA records results once per block, not once per segment.
    """
    batch = resolve_batch_walkers(batch_walkers, {**section_defaults("platform"), **platform}["name"], max_walkers)
    block = batch * -(-int(max_walkers) // batch)
    return {
        "class": "westbench.engines.openmm_engine:OpenMMEngine",
        "block_size": block,
        "options": {
            "system_xml": os.path.abspath(system_xml),
            "state_xml": os.path.abspath(state_xml),
            "topology_pdb": os.path.abspath(topology_pdb),
            "integrator": {k: preparation[k] for k in INTEGRATOR_KEYS if k in preparation},
            "platform": dict(platform),
            "threads": threads,
            "batch_walkers": batch_walkers,
            "max_walkers": int(max_walkers),
        },
    }


def cg_engine_spec(
    model,
    protein: str,
    basis_pdb,
    cg: Mapping,
    threads: int | None = None,
    block_size: int = BATCHED,
    basis_states=None,
) -> dict:
    """The engine entry of west.cfg for a CG model (:class:`westbench.cg.engine.CGEngine`).

    ``block_size``: the whole iteration in one call (one worker), or with several workers (one per
    GPU) their share of it (:func:`max_walkers_per_worker`). ``basis_states``: a file of starts that
    replace the basis structure as WESTPA's basis states (the structure still gives the beads).

    Examples
    --------
    >>> spec = cg_engine_spec("m.pt", "p", "b.pdb", {"langevin": {"timestep_fs": 4.0}, "explosion": {}})
    >>> spec["class"], spec["options"]["protein"], spec["block_size"]
    ('westbench.cg.engine:CGEngine', 'p', 1000000)
    """
    defaults = section_defaults("cg")
    return {
        "class": "westbench.cg.engine:CGEngine",
        "block_size": int(block_size),
        "options": {
            "model": os.path.abspath(model),
            "protein": protein,
            "basis_pdb": os.path.abspath(basis_pdb),
            "langevin": dict(cg["langevin"]),
            "explosion": dict(cg["explosion"]),
            "device": cg.get("device", defaults["device"]),
            "threads": threads,
            "cuda_graphs": cg.get("cuda_graphs", defaults["cuda_graphs"]),
            "deterministic": cg.get("deterministic", defaults["deterministic"]),
            **({"model_spec": user_model_options(cg["user_model"])} if cg.get("user_model") else {}),
            **({"basis_states": os.path.abspath(basis_states)} if basis_states else {}),
        },
    }


def user_model_options(entry: Mapping) -> dict:
    """The CG engine's ``model_spec`` of a user's model (``cg.models`` entry, :mod:`westbench.cg.user`):
    how to load it, its units, and the absolute paths WESTPA's run folder needs (python_path, fitted prior)."""
    spec = {
        key: entry[key]
        for key in ("format", "class", "kwargs", "returns", "length_unit", "energy_unit")
        if key in entry
    }
    if entry.get("python_path"):
        spec["python_path"] = os.path.abspath(entry["python_path"])
    if entry.get("prior_path"):
        spec["prior_path"] = os.path.abspath(entry["prior_path"])
    return spec


def job_workers(
    kind: str,
    job_threads: int,
    settings: Mapping | WESettings,
    *,
    platform: Mapping | None = None,
    cg: Mapping | None = None,
    user: Mapping | None = None,
) -> int:
    """The WE workers of one job: what the engine computes with (:func:`westbench.engines.kinds.engine_work`, the
    one kind -> work map) under the thread and device policy (:func:`westbench.runtime.resources.we_job_workers`);
    ``settings``: the job's :class:`WESettings` or a mapping of its keys (its ``work_manager`` is read).

    Raises
    ------
    ConfigError
        For a kind that runs no WE job.

    Examples
    --------
    >>> job_workers("openmm", 2, {"work_manager": "serial"}, platform={"name": "CPU"})
    1
    """
    from westbench.engines.kinds import engine_work
    from westbench.runtime.resources import we_job_workers

    return we_job_workers(
        engine_work(kind, user),
        job_threads,
        WESettings.of(settings).work_manager,
        platform or {},
        device=(cg or {}).get("device", section_defaults("cg")["device"]),
    )


def engine_spec(
    kind: str,
    inputs: Mapping,
    *,
    protein: str,
    settings: Mapping | WESettings,
    job_threads: int,
    preparation: Mapping | None = None,
    platform: Mapping | None = None,
    cg: Mapping | None = None,
    user: Mapping | None = None,
) -> dict:
    """The engine entry of a WE job's west.cfg, by engine kind (:mod:`westbench.engines.kinds`).

    The job's threads are shared as the thread policy says (:mod:`westbench.runtime.resources`): one
    single-threaded worker per thread under a parallel work manager, else one worker on all of them.

    Parameters
    ----------
    kind : {"openmm", "cg", "user"}
        The engine's kind.
    inputs : mapping
        OpenMM: ``system``, ``state``, ``topology``; CG: ``model``, ``basis`` and optionally ``basis_states``
        (the rule's inputs).
    protein : str
        The protein (a CG model over several proteins picks its embedding by it).
    settings : WESettings or mapping
        The WE job's settings (binning, ``work_manager``, ``batch_walkers`` for OpenMM), or a mapping of their keys.
    job_threads : int
        The threads Snakemake gave the job.
    preparation, platform : mapping
        OpenMM: the integrator keys and the ``platform`` section.
    cg : mapping
        CG: ``langevin``, ``explosion``, ``device`` (a user engine of work torch: ``device``).
    user : mapping
        A user engine: its ``we.engines`` entry (:func:`westbench.engines.user.user_engine_spec`); its
        ``work`` decides its workers like the built-in kinds.

    Examples
    --------
    >>> settings = {"bins_per_tic": 7, "walkers_per_bin": 3, "work_manager": "processes", "batch_walkers": 1}
    >>> spec = engine_spec("cg", {"model": "m.pt", "basis": "b.pdb"}, protein="p", settings=settings, job_threads=2,
    ...                    cg={"langevin": {}, "explosion": {}, "device": "cpu"})
    >>> spec["options"]["threads"], spec["block_size"]
    (1, 74)
    """
    from westbench.engines.kinds import CG, OPENMM
    from westbench.runtime.resources import engine_threads

    we = WESettings.of(settings)
    workers = job_workers(kind, job_threads, we, platform=platform, cg=cg, user=user)
    threads = engine_threads(job_threads, we.work_manager)
    share = max_walkers_per_worker(we, workers)
    if kind == CG:
        # Several workers (one per GPU) share each iteration: each takes its share of the walkers in one call.
        given = dict(inputs.items())  # a mapping, or Snakemake's named input list
        if cg.get("user_model") and "prior" in given:  # a user's model with westbench's fitted prior
            cg = {**cg, "user_model": {**cg["user_model"], "prior_path": given["prior"]}}
        return cg_engine_spec(
            inputs["model"],
            protein,
            inputs["basis"],
            cg,
            threads=threads,
            **({"block_size": share} if workers > 1 else {}),
            basis_states=given.get("basis_states"),
        )
    if kind == OPENMM:
        return openmm_engine_spec(
            inputs["system"],
            inputs["state"],
            inputs["topology"],
            preparation,
            platform,
            threads,
            batch_walkers=we.batch_walkers,
            max_walkers=share,
        )
    from westbench.engines.user import user_engine_spec  # kind user (engine_work refused any other)

    return user_engine_spec(user, protein, inputs, block_size=share)
