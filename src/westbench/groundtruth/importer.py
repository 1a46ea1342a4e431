"""Imported ground truth: trajectories simulated elsewhere become ground-truth runs.

Each trajectory file (any format mdtraj reads: xtc, dcd, h5, nc, pdb, ...) becomes
one run with the outputs of a generated run (:mod:`westbench.groundtruth.production`):
the protein's solute trajectory, a topology PDB, the frames file and a summary.
The protein residues are kept (all, or those ``groundtruth.import.residues`` selects: a
residue-number range or an mdtraj selection, :func:`westbench.io.trajectories.select_residues`),
their C-alpha atoms are taken through the topology and their sequence is checked
against the protein's prepared structure; mdtraj converts lengths to nm. Forces
(optional, kJ/mol/nm) come from one ``.npz`` (array ``forces``) or ``.h5``
(dataset ``forces``) file per trajectory, shaped (frames, C-alpha atoms kept, 3),
(frames, protein atoms, 3) or (frames, topology atoms, 3) (the C-alpha rows are then
taken); without them the frames serve everything except CG training.

Bad samples are refused at the door: a frame with a non-finite C-alpha coordinate (or one beyond
1e4 nm) is an error naming the file, the frame and the atom, unless the config's
``on_nonfinite`` is ``drop`` (the frame is left out, the run split at the gap, the count recorded
in the frames file's attribute ``nonfinite_frames_dropped``); non-finite forces are an error.

Examples
--------
>>> forces_path("/f/{protein}/{name}.npz", "chignolin", "run_a")
'/f/chignolin/run_a.npz'
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import h5py
import mdtraj
import numpy as np

from westbench.config import default
from westbench.geometry.features import ca_atom_indices
from westbench.io.atomic import atomic_path
from westbench.io.frames import DROPPED_ATTR, BadFramesError, keep_valid_frames, split_at_gaps, write_frames
from westbench.io.streaming import copy_atoms
from westbench.io.trajectories import TrajectoryError, ca_sequence, range_hint, select_residues

log = logging.getLogger(__name__)

# Formats without frame times (mdtraj gives frame numbers instead): groundtruth.import.interval_ps is needed.
TIMELESS_FORMATS = (".dcd", ".pdb", ".pdb.gz", ".xyz", ".arc", ".lammpstrj")


class GroundTruthImportError(TrajectoryError):
    """An imported trajectory, topology or force file cannot be used."""


def forces_path(template: str | None, protein: str, name: str) -> str | None:
    """The force file of one run from ``groundtruth.import.forces`` (``{protein}``, ``{name}`` replaced)."""
    return template.format(protein=protein, name=name) if template else None


def read_forces(
    path: str | Path, n_frames_full: int, ca: Sequence[int], layouts: Mapping[int, Sequence[int]], stride: int
) -> np.ndarray:
    """C-alpha forces (frames, residues, 3) float32 from an npz/h5 file, strided like the trajectory.

    A file holds either the ``len(ca)`` C-alpha rows or all rows of one of ``layouts`` (atom count -> the rows
    of the C-alphas among them).
    """
    path = Path(path)
    try:
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as arrays:
                forces = arrays["forces"] if "forces" in arrays else arrays[arrays.files[0]]
        else:
            with h5py.File(path, "r") as handle:
                forces = handle["forces"][()]
    except FileNotFoundError:
        raise GroundTruthImportError(
            f"force file {path} does not exist: groundtruth.import.forces names one file per "
            "trajectory ({name} = trajectory file stem); add it or set forces to null"
        ) from None
    except (OSError, KeyError, ValueError, IndexError) as exc:
        raise GroundTruthImportError(
            f"force file {path} cannot be read ({exc}): write an .npz with array 'forces' or an "
            ".h5 with dataset 'forces' (frames x atoms x 3, kJ/mol/nm)"
        ) from None
    forces = np.asarray(forces)
    counts = " or ".join(map(str, [len(ca), *sorted(set(layouts) - {len(ca)})]))
    if forces.ndim != 3 or forces.shape[2] != 3 or forces.shape[0] != n_frames_full:
        raise GroundTruthImportError(
            f"force file {path} holds shape {forces.shape}; expected ({n_frames_full}, "
            f"{counts}, 3): one row per trajectory frame before the stride"
        )
    if forces.shape[1] != len(ca) and forces.shape[1] in layouts:
        forces = forces[:, list(layouts[forces.shape[1]])]
    elif forces.shape[1] != len(ca):
        raise GroundTruthImportError(
            f"force file {path} has {forces.shape[1]} atoms per frame; expected {counts} "
            f"(the C-alphas kept, the protein's atoms or the topology's atoms)"
        )
    return forces[::stride].astype(np.float32)


def import_run(
    trajectory: str | Path,
    topology: str | Path | None,
    prepared_pdb: str | Path,
    outputs: Mapping[str, str | Path],
    *,
    protein: str,
    start: str,
    stride: int = default("groundtruth.import.stride"),
    forces: str | Path | None = None,
    interval_ps: float | None = None,
    residues: str | None = None,
    on_nonfinite: str = default("on_nonfinite"),
) -> dict:
    """Turn one trajectory into a ground-truth run (frames file, solute trajectory, topology, summary).

    Parameters
    ----------
    trajectory : path
        Any format mdtraj reads.
    topology : path or None
        A structure file with the trajectory's atoms (PDB, GRO, prmtop, ...); None for
        formats that carry their own (pdb, h5).
    prepared_pdb : path
        The protein's prepared structure, whose C-alpha sequence the trajectory must have.
    outputs : mapping
        Paths ``trajectory`` (.xtc or .dcd), ``topology`` (.pdb), ``frames`` (.h5).
    protein, start : str
    stride : int
        Keep every ``stride``-th frame.
    forces : path, optional
        C-alpha (or all-atom) forces in kJ/mol/nm, one row per frame before the stride.
    interval_ps : float, optional
        Time between stored frames before the stride, for files without usable times.
    residues : str, optional
        The residues kept (``groundtruth.import.residues``): a residue-number range (``"10-120"``) or an
        mdtraj selection; None keeps every protein residue.
    on_nonfinite : {"error", "drop"}
        Frames with non-finite C-alpha coordinates: refused (default) or left out and counted.

    Returns
    -------
    dict
        The run summary (the caller writes it).
    """
    trajectory = Path(trajectory)
    top, protein_atoms, solute, kwargs = _read_topology(trajectory, topology, residues)
    kept_topology = top.subset(solute)
    ca = ca_atom_indices(kept_topology)
    _check_sequence(kept_topology, ca, prepared_pdb, trajectory, topology, protein, residues)
    suffix = "".join(Path(outputs["trajectory"]).suffixes[-1:])
    # The solute trajectory is written chunk by chunk (memory by bytes, whatever the file's length: io.streaming);
    # only the C-alphas are kept whole. Everything is written to temporaries: a refused file leaves no output.
    with atomic_path(outputs["trajectory"], suffix=suffix) as written:
        read = _copy_solute(trajectory, topology, kwargs, solute, ca, stride, written)
        n_full, ca_xyz = read.frames_before_stride, read.ca
        times = _frame_times(read.times, trajectory, interval_ps, stride)
        force_array = None
        if forces is not None:
            force_array = read_forces(forces, n_full, ca, _force_layouts(top, protein_atoms, solute, ca), stride)
            _check_finite_forces(force_array, forces, stride, kept_topology, ca)
        keep = _valid_frames(ca_xyz, trajectory, on_nonfinite, stride, kept_topology, ca)
        dropped = int((~keep).sum())
        pieces = None
        if dropped:
            log.warning(
                "%s/%s: %d frames of %s with non-finite coordinates left out (on_nonfinite: drop)",
                protein,
                start,
                dropped,
                trajectory,
            )
            read = _copy_solute(trajectory, topology, kwargs, solute, ca, stride, written, keep)  # without them
            times, ca_xyz = times[keep], ca_xyz[keep]
            force_array = force_array[keep] if force_array is not None else None
            pieces = split_at_gaps(np.zeros(len(keep), np.int64), keep)
        with atomic_path(outputs["topology"], suffix=".pdb") as first:
            read.first.save_pdb(str(first))
    attrs = _frames_attrs(protein, start, trajectory, kept_topology, residues, stride, force_array, dropped)
    write_frames(outputs["frames"], ca=ca_xyz, time_ps=times, traj=pieces, forces=force_array, attrs=attrs)
    files = (trajectory, topology, forces)
    summary = _summary(protein, start, files, stride, residues, ca, solute, len(ca_xyz), times, dropped)
    log.info(
        "%s/%s: imported %d frames (stride %d) from %s%s",
        protein,
        start,
        len(ca_xyz),
        stride,
        trajectory,
        "" if force_array is not None else "; no forces (CG training cannot use this run)",
    )
    return summary


def _frames_attrs(protein, start, trajectory, kept_topology, residues, stride, force_array, dropped) -> dict:
    """The imported run's frames-file attributes."""
    return {
        "protein": protein,
        "source": "import",
        "start": start,
        "imported_from": str(trajectory),
        "residue_names": [r.name for r in kept_topology.residues],
        "residues_selected": str(residues) if residues else "all",
        "stride": stride,
        "force_units": "kJ/mol/nm" if force_array is not None else "none",
        DROPPED_ATTR: dropped,
    }


def _summary(protein, start, files, stride, residues, ca, solute, n_frames, times, dropped) -> dict:
    """The imported run's summary; ``files`` are its trajectory, topology and force file."""
    trajectory, topology, forces = files
    return {
        "protein": protein,
        "start": start,
        "source": "import",
        "trajectory": str(trajectory),
        "topology": str(topology) if topology else None,
        "forces": str(forces) if forces else None,
        "stride": stride,
        "residues_selected": str(residues) if residues else "all",
        "platform": "imported",
        "residues": len(ca),
        "solute_atoms": len(solute),
        "frames": n_frames,
        "production_ns": _span_ns(times),
        "ns_per_day": None,
        "seed": None,
        "atoms": len(solute),
        DROPPED_ATTR: dropped,
    }


def _read_topology(trajectory: Path, topology, residues: str | None):
    """The run's topology, its protein atoms, the kept residues' atoms and the load arguments, each checked."""
    if not trajectory.is_file():
        raise GroundTruthImportError(
            f"imported trajectory {trajectory} does not exist: check groundtruth.import.trajectories"
        )
    try:
        if topology is not None:
            top = mdtraj.load_topology(str(topology))
        else:
            top = mdtraj.load_frame(str(trajectory), 0).topology
    except Exception as exc:  # mdtraj raises many types for unreadable files
        where = topology if topology is not None else trajectory
        raise GroundTruthImportError(
            f"topology {where} cannot be read ({type(exc).__name__}: {exc}): set "
            "groundtruth.import.topology to a PDB/GRO/prmtop of the trajectory's atoms"
        ) from None
    protein_atoms = top.select("protein")
    if len(protein_atoms) == 0:
        raise GroundTruthImportError(f"topology {topology or trajectory} holds no protein atoms")
    try:
        solute = select_residues(top, residues, "groundtruth.import.residues", f"topology {topology or trajectory}")
    except TrajectoryError as exc:
        raise GroundTruthImportError(str(exc)) from None
    kwargs = {"top": top} if topology is not None else {}
    try:
        mdtraj.load_frame(str(trajectory), 0, **kwargs)  # checks the atom count against the topology
    except Exception as exc:
        raise _unreadable(trajectory, topology, exc) from None
    return top, protein_atoms, solute, kwargs


def _check_sequence(kept_topology, ca, prepared_pdb, trajectory: Path, topology, protein: str, residues) -> None:
    """Refuse a run whose kept C-alpha sequence is not the prepared structure's, with a residue range to keep."""
    prepared = mdtraj.load_topology(str(prepared_pdb))
    expected = ca_sequence(prepared, ca_atom_indices(prepared))
    found = ca_sequence(kept_topology, ca)
    if found != expected:
        hint = range_hint(kept_topology, ca, expected)
        selected = f" (groundtruth.import.residues {residues!r})" if residues else ""
        raise GroundTruthImportError(
            f"trajectory {trajectory} (topology {topology or trajectory}) has C-alpha sequence{selected} "
            f"{found} ({len(found)} residues); protein '{protein}' was prepared as {expected} "
            f"({len(expected)}): import trajectories of the configured sequence"
            + (f", or keep its residues with groundtruth.import.residues: {hint}" if hint else "")
        )


def _frame_times(times: np.ndarray, trajectory: Path, interval_ps: float | None, stride: int) -> np.ndarray:
    """The kept frames' times (ps): from ``interval_ps`` when given, else the file's, refused when unusable."""
    timeless = trajectory.name.lower().endswith(TIMELESS_FORMATS)  # mdtraj numbers their frames 0, 1, 2, ...
    if interval_ps is not None:
        return np.arange(1, len(times) + 1, dtype=np.float64) * interval_ps * stride
    if timeless or (len(times) > 1 and not (np.diff(times) > 0).all()):
        raise GroundTruthImportError(
            f"trajectory {trajectory} stores no usable frame times: set "
            "groundtruth.import.interval_ps (ps between stored frames)"
        )
    return times


def _force_layouts(top, protein_atoms, solute, ca) -> dict:
    """A force file's possible atom counts (topology, protein, kept residues) -> the C-alphas' rows among them."""
    ca_in_topology = solute[ca]  # the C-alphas' rows in the whole topology
    return {
        top.n_atoms: ca_in_topology,
        len(protein_atoms): np.searchsorted(protein_atoms, ca_in_topology),
        len(solute): ca,
    }


def _check_finite_forces(force_array: np.ndarray, forces, stride: int, kept_topology, ca) -> None:
    """Refuse forces with a non-finite value, naming the first such frame and C-alpha."""
    finite = np.isfinite(force_array).reshape(len(force_array), -1).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        atom = int(np.argwhere(~np.isfinite(force_array[row]))[0][0])
        raise GroundTruthImportError(
            f"force file {forces}: frame {row * stride} has a non-finite force on C-alpha {atom} "
            f"({kept_topology.atom(int(ca[atom])).residue}; {int((~finite).sum())} frames affected): write "
            f"the forces again from the run, or set groundtruth.import.forces to null (no CG training)"
        )


def _valid_frames(ca_xyz: np.ndarray, trajectory: Path, on_nonfinite: str, stride: int, kept_topology, ca):
    """The mask of frames with finite C-alphas (:func:`keep_valid_frames`), refused when none is left."""
    try:
        keep = keep_valid_frames(
            ca_xyz,
            source=f"imported trajectory {trajectory}",
            on_nonfinite=on_nonfinite,
            frame_of=lambda row: f"frame {row * stride}",
            atom_of=lambda j: f"C-alpha {j} ({kept_topology.atom(int(ca[j])).residue})",
        )
    except BadFramesError as exc:
        raise GroundTruthImportError(str(exc)) from None
    if int((~keep).sum()) == len(keep):
        raise GroundTruthImportError(
            f"imported trajectory {trajectory}: every frame has non-finite coordinates; "
            f"import a trajectory with finite positions"
        )
    return keep


def _span_ns(times: np.ndarray) -> float:
    """The run's length in ns: first to last frame plus one frame interval."""
    return float(times[-1] - times[0] + (times[1] - times[0] if len(times) > 1 else 0)) * 1e-3


def _unreadable(trajectory, topology, exc: Exception) -> GroundTruthImportError:
    return GroundTruthImportError(
        f"trajectory {trajectory} cannot be read with topology {topology or trajectory} "
        f"({type(exc).__name__}: {exc}): check that the file is intact and that the topology "
        f"has the trajectory's atoms in the same order"
    )


def _copy_solute(trajectory: Path, topology, kwargs: dict, solute, ca, stride: int, path: Path, keep=None):
    """:func:`westbench.io.streaming.copy_atoms` of the run, an unreadable file named as the import's error."""
    try:
        return copy_atoms(trajectory, solute, ca, stride, path, keep, **kwargs)
    except Exception as exc:  # mdtraj raises many types for unreadable files
        raise _unreadable(trajectory, topology, exc) from None
