"""One protein's WE run with one engine, from workflow inputs to a finished run directory: the engine entry
(:mod:`westbench.we.engine_entry`), then WESTPA (:func:`westbench.we.run.run_we`) with the coverage stop."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Mapping

from westbench.geometry.coverage_grid import CoverageGrid
from westbench.io.frames import read_frames
from westbench.we.engine_entry import engine_spec, job_workers
from westbench.we.live_coverage import run_coverage
from westbench.we.run import run_we
from westbench.we.settings import WESettings
from westbench.we.store import SegmentStore

log = logging.getLogger(__name__)


def run_protein_we(
    run_dir,
    *,
    protein: str,
    engine: dict,
    tica_model,
    groundtruth_frames,
    settings: Mapping | WESettings,
    seed: int,
    n_workers: int = 1,
) -> dict:
    """Run (or resume) WE for one protein and engine with the job's ``we`` settings (:class:`WESettings`, or a
    mapping of its keys); the summary's ``settings`` records the mapping given (a :class:`WESettings`: all of it).

    ``coverage_bins``, the one coverage grid (``metrics.coverage_bins``), is given with a ``coverage_target``
    (the stop reads it); without one, the per-iteration log line's coverage uses the schema's grid, so that
    changing the analysis grid reruns no WE run.

    The summary's ``engines_used`` lists what each worker's engine of this job actually ran on
    (OpenMM platform and its properties, torch device, CUDA-graph buckets; see
    :func:`westbench.engines.runtime.record_runtime`).
    """
    from westbench.engines.runtime import RUNTIME_DIR, collect_runtime
    from westbench.runtime.devices import refuse_fork_after_cuda

    we = WESettings.of(settings)
    refuse_fork_after_cuda(we.work_manager)
    shutil.rmtree(Path(run_dir) / RUNTIME_DIR, ignore_errors=True)  # this job's workers write theirs
    bins = we.coverage_bins
    grid = CoverageGrid(read_frames(groundtruth_frames)["tics"][:, :2], bins)
    engine = dict(engine)
    block_size = int(engine.pop("block_size", 1))
    cfg = {
        "engine": engine,
        "block_size": block_size,
        "pcoord": {"type": "tica", "model": os.path.abspath(tica_model), "protein": protein, "ndim": 2},
        "seed": seed,
        "bins_per_dim": we.bins_per_tic,
        "walkers_per_bin": we.walkers_per_bin,
        "steps_per_segment": we.steps_per_segment,
        "save_every": we.save_every,
        "keep_restarts": we.keep_restarts,
        "coverage": {"reference": os.path.abspath(groundtruth_frames), "bins": bins},
    }
    summary = run_we(
        run_dir,
        cfg=cfg,
        segs_per_state=we.initial_walkers,
        work_manager=we.work_manager,
        n_workers=n_workers,
        max_iterations=we.max_iterations,
        check_every=we.coverage_check_every,
        coverage_target=we.coverage_target,
        coverage_fn=lambda h5: run_coverage(h5, grid),
        max_wallclock_s=we.max_wallclock_s,
    )
    summary.update(
        protein=protein,
        seed=seed,
        coverage=run_coverage(Path(run_dir) / "west.h5", grid),
        coverage_bins=bins,
        engine=engine["class"],
        settings=we.as_dict() if isinstance(settings, WESettings) else dict(settings),
        ended_segments=SegmentStore(Path(run_dir) / "segments").ended_segments(),
        engines_used=collect_runtime(run_dir),
    )
    for record in summary["engines_used"]:
        log.info("engine ran on: %s", record)
    return summary


def run_we_job(
    run_dir,
    *,
    kind: str,
    inputs: Mapping,
    protein: str,
    engine_name: str,
    settings: Mapping | WESettings,
    job_threads: int,
    seed: int,
    preparation: Mapping | None = None,
    platform: Mapping | None = None,
    cg: Mapping | None = None,
) -> dict:
    """One WE job of the workflow (rules we_run and we_run_replica): its engine entry and workers
    (:func:`engine_spec`, :func:`job_workers`), then :func:`run_protein_we`; returns the run's summary, which
    names the engine.

    ``inputs`` are the rule's inputs (``tica``: the TICA model's JSON; ``groundtruth``: its frames; the engine's
    files as :func:`engine_spec` reads them); ``settings``: the job's :class:`WESettings` or a mapping of its keys
    (the rule's params), a user engine's entry its ``user_engine``.
    """
    we = WESettings.of(settings)
    user = we.user_engine
    engine = engine_spec(
        kind,
        inputs,
        protein=protein,
        settings=we,
        job_threads=job_threads,
        preparation=preparation,
        platform=platform,
        cg=cg,
        user=user,
    )
    summary = run_protein_we(
        run_dir,
        protein=protein,
        engine=engine,
        tica_model=str(Path(inputs["tica"]).with_suffix("")),
        groundtruth_frames=inputs["groundtruth"],
        settings=settings,  # as given: the summary records it
        seed=seed,
        n_workers=job_workers(kind, job_threads, we, platform=platform, cg=cg, user=user),
    )
    return {**summary, "engine_name": engine_name}
