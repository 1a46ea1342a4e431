"""Whether a WE run folder resumes or starts over, and how far its run got.

A run folder keeps ``west.h5`` across Snakemake reruns on purpose, to resume after a kill; a run
whose settings or input files (e.g. a retrained CG model) changed since it began starts over
instead: :func:`reset_if_inputs_changed` clears :data:`RUN_STATE` (the rule every run folder
follows: :func:`westbench.runtime.resume.reset_if_settings_changed`).

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> is_initialized(folder / "west.h5"), completed_iterations(folder / "west.h5")
(False, 0)
>>> _ = (folder / "west.h5").write_text("not HDF5: a kill during w_init")
>>> is_initialized(folder / "west.h5")
False
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import h5py

from westbench.io.westh5 import finished_iterations
from westbench.runtime.resume import reset_if_settings_changed

#: What a WE run folder holds of the run itself (cleared when the run's identity changed); the rest are outputs.
RUN_STATE = ("west.h5", "west.cfg", "segments", "zmq_host_info.json", "inputs.sha256")


def completed_iterations(west_h5: str | Path) -> int:
    """Iterations WESTPA has finished (0 when the file is missing or w_init did not finish it)."""
    return finished_iterations(west_h5) if is_initialized(west_h5) else 0


def is_initialized(west_h5: str | Path) -> bool:
    """Whether ``w_init`` finished ``west_h5`` (it exists, is HDF5 and holds an iteration)."""
    path = Path(west_h5)
    if not path.exists():
        return False
    try:
        with h5py.File(path, "r") as handle:
            return "iterations" in handle and len(handle["iterations"]) > 0
    except OSError:
        return False


def reset_if_inputs_changed(run_dir: Path, cfg: Mapping) -> list[str]:
    """Start over when the run's settings or input files (e.g. a retrained CG model) changed since it began.

    The restart rule of every run folder (:func:`westbench.runtime.resume.reset_if_settings_changed`): the
    settings and the content of every file they name count, not where the files are, so a moved
    run folder resumes. A run whose inputs changed would otherwise silently continue an old run
    (west.h5 is kept across Snakemake reruns on purpose, to resume after a kill).
    """
    return reset_if_settings_changed(run_dir, cfg, what="WE run", clear=RUN_STATE)
