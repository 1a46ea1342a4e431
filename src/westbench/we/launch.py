"""One protein's WE run with one engine, from workflow inputs to a finished run directory: the engine entry
(:mod:`westbench.we.engine_entry`), then WESTPA (:func:`westbench.we.run.run_we`) with the coverage stop."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Mapping

from westbench.config import section_defaults
from westbench.geometry.coverage_grid import CoverageGrid
from westbench.io.frames import read_frames
from westbench.we.engine_entry import engine_spec, job_workers
from westbench.we.live_coverage import run_coverage
from westbench.we.run import run_we
from westbench.we.store import SegmentStore

log = logging.getLogger(__name__)


def run_protein_we(
    run_dir,
    *,
    protein: str,
    engine: dict,
    tica_model,
    groundtruth_frames,
    settings: Mapping,
    seed: int,
    n_workers: int = 1,
) -> dict:
    """Run (or resume) WE for one protein and engine with the ``we`` config section.

    ``settings["coverage_bins"]``, the one coverage grid (``metrics.coverage_bins``), is given with a
    ``coverage_target`` (the stop reads it); without one, the per-iteration log line's coverage uses the
    schema's grid, so that changing the analysis grid reruns no WE run.

    The summary's ``engines_used`` lists what each worker's engine of this job actually ran on
    (OpenMM platform and its properties, torch device, CUDA-graph buckets; see
    :func:`westbench.engines.runtime.record_runtime`).
    """
    from westbench.engines.runtime import RUNTIME_DIR, collect_runtime
    from westbench.runtime.devices import refuse_fork_after_cuda

    refuse_fork_after_cuda(settings["work_manager"])
    shutil.rmtree(Path(run_dir) / RUNTIME_DIR, ignore_errors=True)  # this job's workers write theirs
    bins = settings.get("coverage_bins", section_defaults("metrics")["coverage_bins"])
    grid = CoverageGrid(read_frames(groundtruth_frames)["tics"][:, :2], bins)
    engine = dict(engine)
    block_size = int(engine.pop("block_size", 1))
    cfg = {
        "engine": engine,
        "block_size": block_size,
        "pcoord": {"type": "tica", "model": os.path.abspath(tica_model), "protein": protein, "ndim": 2},
        "seed": seed,
        "bins_per_dim": settings["bins_per_tic"],
        "walkers_per_bin": settings["walkers_per_bin"],
        "steps_per_segment": settings["steps_per_segment"],
        "save_every": settings["save_every"],
        "keep_restarts": settings["keep_restarts"],
        "coverage": {"reference": os.path.abspath(groundtruth_frames), "bins": bins},
    }
    summary = run_we(
        run_dir,
        cfg=cfg,
        segs_per_state=settings["initial_walkers"],
        work_manager=settings["work_manager"],
        n_workers=n_workers,
        max_iterations=settings["max_iterations"],
        check_every=settings["coverage_check_every"],
        coverage_target=settings["coverage_target"],
        coverage_fn=lambda h5: run_coverage(h5, grid),
        max_wallclock_s=settings["max_wallclock_s"],
    )
    summary.update(
        protein=protein,
        seed=seed,
        coverage=run_coverage(Path(run_dir) / "west.h5", grid),
        coverage_bins=bins,
        engine=engine["class"],
        settings=dict(settings),
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
    settings: Mapping,
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
    files as :func:`engine_spec` reads them); a user engine's entry is ``settings["user_engine"]``.
    """
    user = settings.get("user_engine")
    engine = engine_spec(
        kind,
        inputs,
        protein=protein,
        settings=settings,
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
        settings=settings,
        seed=seed,
        n_workers=job_workers(kind, job_threads, settings, platform=platform, cg=cg, user=user),
    )
    return {**summary, "engine_name": engine_name}
