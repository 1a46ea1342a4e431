"""Files every stage shares: writing them safely, and the formats that pass between stages.

:mod:`~westbench.io.atomic` (a file is written whole or not at all), :mod:`~westbench.io.records` (the JSON
summaries), :mod:`~westbench.io.frames` (the frames contract: one HDF5 file per run, ground truth and WE alike)
and :mod:`~westbench.io.canonical` (the one order a frame set is scored in), :mod:`~westbench.io.costs` (an
export's compute-per-iteration table), :mod:`~westbench.io.westh5` (the finished iterations of a WESTPA
``west.h5``) and :mod:`~westbench.io.trajectories` (trajectories made elsewhere: finding, naming, reading).
The io layer imports the base (config, errors) and the geometry layer (the coverage grid of ``cost.csv``).
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "atomic_path": "westbench.io.atomic",
    "write_bytes": "westbench.io.atomic",
    "write_text": "westbench.io.atomic",
    "savez": "westbench.io.atomic",
    "write_json": "westbench.io.records",
    "Frames": "westbench.io.frames",
    "read_frames": "westbench.io.frames",
    "write_frames": "westbench.io.frames",
    "ok_frames": "westbench.io.frames",
    "BadFramesError": "westbench.io.frames",
    "canonical_frames": "westbench.io.canonical",
    "cost_table": "westbench.io.costs",
    "finished_iterations": "westbench.io.westh5",
    "WestH5Error": "westbench.io.westh5",
    "trajectory_files": "westbench.io.trajectories",
    "import_names": "westbench.io.trajectories",
    "TrajectoryError": "westbench.io.trajectories",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
