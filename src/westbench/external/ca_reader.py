"""C-alpha positions of external engine samples, read with one topology and checked at the door.

:class:`CAReader` checks the C-alpha sequence against the prepared protein's and refuses (or, with
``on_nonfinite: drop``, marks) frames with non-finite coordinates; :func:`keep_frames` then leaves them
out, splitting their pieces.
"""

from __future__ import annotations

from pathlib import Path

import mdtraj
import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry.features import ca_atom_indices
from westbench.io.frames import DROPPED_ATTR, BadFramesError, keep_valid_frames, split_at_gaps
from westbench.io.trajectories import TrajectoryError, ca_sequence, range_hint, select_residues


class ExternalSamplesError(WestbenchError):
    """External engine samples cannot be read or do not fit the protein."""


class CAReader:
    """Reads C-alpha positions (nm) of trajectory files with one topology, checking the sequence once; only the
    C-alpha atoms of a file are read (its memory is frames x residues, never frames x atoms).

    ``residues`` (``external.<engine>.residues``) keeps the protein residues it selects (a residue-number
    range or an mdtraj selection, :func:`westbench.io.trajectories.select_residues`) before the C-alphas are taken.
    """

    def __init__(self, topology: str | Path | None, expected_sequence: str, engine: str, residues: str | None = None):
        self.topology, self.expected, self.engine, self.residues = topology, expected_sequence, engine, residues
        self.top = None
        if topology is not None:
            try:
                self.top = mdtraj.load_topology(str(topology))
            except Exception as exc:
                raise ExternalSamplesError(
                    f"external engine '{engine}': topology {topology} cannot be read ({type(exc).__name__}: {exc})"
                ) from None
            self._check(self.top, topology)

    def _check(self, top, where) -> None:
        key = f"external.{self.engine}.residues"
        ca = ca_atom_indices(top)
        if self.residues:
            try:
                kept = set(select_residues(top, self.residues, key, str(where)).tolist())
            except TrajectoryError as exc:
                raise ExternalSamplesError(f"external engine '{self.engine}': {exc}") from None
            ca = [i for i in ca if i in kept]
        found = ca_sequence(top, ca)
        if found != self.expected:
            hint = range_hint(top, ca, self.expected)
            raise ExternalSamplesError(
                f"external engine '{self.engine}': {where} has C-alpha sequence {found} ({len(found)} C-alpha "
                f"atoms); the protein was prepared as {self.expected} ({len(self.expected)}): give samples of the "
                f"configured protein, with a topology (external.{self.engine}.topology) of their atoms"
                + (f", or keep its residues with {key}: {hint}" if hint else "")
            )
        self.ca = ca

    def atom_of(self, index: int) -> str:
        """The C-alpha atom ``index`` (0-based) named with its residue, for messages."""
        residue = self.expected[index] if index < len(self.expected) else "?"
        return f"C-alpha {index} (residue {residue}{index + 1})"

    def read(self, path: str | Path) -> np.ndarray:
        path = Path(path)
        if not path.is_file():
            raise ExternalSamplesError(f"external engine '{self.engine}': {path} does not exist")
        try:
            if self.top is None:  # a file with its own topology: its first frame gives it, then only C-alphas are read
                self._check(mdtraj.load_frame(str(path), 0).topology, path)
                return mdtraj.load(str(path), atom_indices=self.ca).xyz
            return mdtraj.load(str(path), top=self.top, atom_indices=self.ca).xyz
        except ExternalSamplesError:
            raise
        except Exception as exc:
            raise ExternalSamplesError(
                f"external engine '{self.engine}': {path} cannot be read with topology "
                f"{self.topology} ({type(exc).__name__}: {exc}): check that the file is "
                f"intact and that the topology has its atoms (same count and order; "
                f"external.{self.engine}.topology)"
            ) from None

    def valid(self, ca: np.ndarray, path, on_nonfinite: str, frame_of=None) -> np.ndarray:
        """The frames of ``ca`` to keep, or an error naming ``path``, the frame and the atom."""
        try:
            return keep_valid_frames(
                ca,
                source=f"external engine '{self.engine}': {path}",
                on_nonfinite=on_nonfinite,
                frame_of=frame_of,
                atom_of=self.atom_of,
            )
        except BadFramesError as exc:
            raise ExternalSamplesError(str(exc)) from None


def keep_frames(data: dict) -> dict:
    """Leave out the frames not kept (``keep``), splitting their pieces; the count under DROPPED_ATTR."""
    keep = data.pop("keep").astype(bool)
    dropped = int((~keep).sum())
    if dropped:
        traj = split_at_gaps(data["traj"], keep)
        data = {k: v[keep] for k, v in data.items()}
        data["traj"] = traj
    data[DROPPED_ATTR] = dropped
    return data
