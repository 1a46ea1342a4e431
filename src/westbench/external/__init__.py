"""Engine samples produced elsewhere (engine kind ``external``): scored like a built-in engine.

Two layouts (config ``external.<engine>``, ``{protein}`` replaced in every path):

``kind: westpa``
    A finished WESTPA run: ``west_h5`` (weights from each iteration's ``seg_index``,
    matched by segment id, walltime/cputime for the compute table) and one trajectory
    file per segment through ``segments``, a template with ``{iteration}`` and
    ``{segment}`` (e.g. ``traj_segs/{iteration:06d}/{segment:06d}/seg.dcd``, WESTPA's
    usual layout) read with ``topology``. ``drop_first_frame`` removes a stored parent
    frame so that each frame is counted once.
``kind: trajectories``
    Plain trajectories (a glob or list) with optional per-frame weights per file
    (``weights``: a template with ``{name}`` = file stem; ``.npy``, ``.npz`` (first
    array) or text, one value per frame before the stride). Without weights every frame
    counts equally; with them, each file's weights are used as given and the whole set
    is normalized. Each file is one "iteration" of the cost table.

Every layout takes ``residues`` (a residue-number range or an mdtraj selection) to keep the prepared protein's
residues of files that hold more (:func:`westbench.io.trajectories.select_residues`).

Samples are checked at the door: a C-alpha sequence (or count) other than the prepared protein's,
a frame with a non-finite coordinate (or beyond 1e4 nm), a weight that is negative, NaN or all
zero is an error naming the file, the frame and the atom and the fix; with the config's
``on_nonfinite: drop`` bad frames are left out instead and counted in the frames file's attribute
``nonfinite_frames_dropped`` (a piece is split at the gap).

Both write the frames contract (:mod:`westbench.io.frames`, TICs filled) and a
``cost.csv`` with the columns of a WE export, so tables, figures and the report
treat the engine like any other.

Modules: :mod:`~westbench.external.ca_reader` (C-alpha positions of a trajectory file, checked),
:mod:`~westbench.external.westpa_run` (a finished WESTPA run), :mod:`~westbench.external.plain_trajectories`
(plain trajectories with optional weights), :mod:`~westbench.external.samples` (the import step writing
``frames.h5`` and ``cost.csv``).
"""

from westbench.external.ca_reader import CAReader, ExternalSamplesError
from westbench.external.plain_trajectories import read_trajectories
from westbench.external.samples import import_samples
from westbench.external.westpa_run import read_westpa, segment_path

__all__ = ["import_samples", "ExternalSamplesError", "read_westpa", "read_trajectories", "segment_path", "CAReader"]
