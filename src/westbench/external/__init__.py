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

Samples are checked at the door: a C-alpha sequence (or count) other than the prepared protein's,
a frame with a non-finite coordinate (or beyond 1e4 nm), a weight that is negative, NaN or all
zero is an error naming the file, the frame and the atom and the fix; with the config's
``on_nonfinite: drop`` bad frames are left out instead and counted in the frames file's attribute
``nonfinite_frames_dropped`` (a piece is split at the gap).

Both write the frames contract (:mod:`westbench.frames`, TICs filled) and a
``cost.csv`` with the columns of a WE export, so tables, figures and the report
treat the engine like any other.

Examples
--------
>>> segment_path("run/traj_segs/{iteration:06d}/{segment:06d}/seg.dcd", 3, 7)
'run/traj_segs/000003/000007/seg.dcd'
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping

import mdtraj
import numpy as np

from westbench.config import default
from westbench.costs import cost_table, coverage_by_iteration
from westbench.errors import WestbenchError
from westbench.features import ca_atom_indices, pairwise_distances
from westbench.frames import DROPPED_ATTR, BadFramesError, check_weights, keep_valid_frames, split_at_gaps, write_frames
from westbench.trajectories import ca_sequence, import_names, trajectory_files
from westbench.westh5 import WestH5Error, iterations

log = logging.getLogger(__name__)


class ExternalSamplesError(WestbenchError):
    """External engine samples cannot be read or do not fit the protein."""


def segment_path(template: str, iteration: int, segment: int, protein: str = "") -> str:
    """The trajectory file of one segment from the ``segments`` template."""
    return template.format(iteration=iteration, segment=segment, protein=protein)


class CAReader:
    """Reads C-alpha positions (nm) of trajectory files with one topology, checking the sequence once."""

    def __init__(self, topology: str | Path | None, expected_sequence: str, engine: str):
        self.topology, self.expected, self.engine = topology, expected_sequence, engine
        self.top = None
        if topology is not None:
            try:
                self.top = mdtraj.load_topology(str(topology))
            except Exception as exc:
                raise ExternalSamplesError(f"external engine '{engine}': topology {topology} cannot be read "
                                           f"({type(exc).__name__}: {exc})") from None
            self._check(self.top, topology)

    def _check(self, top, where) -> None:
        ca = ca_atom_indices(top)
        found = ca_sequence(top, ca)
        if found != self.expected:
            raise ExternalSamplesError(
                f"external engine '{self.engine}': {where} has C-alpha sequence {found} ({len(found)} C-alpha "
                f"atoms); the protein was prepared as {self.expected} ({len(self.expected)}): give samples of the "
                f"configured protein, with a topology (external.{self.engine}.topology) of their atoms")
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
            if self.top is None:
                traj = mdtraj.load(str(path))
                self._check(traj.topology, path)
                return traj.xyz[:, self.ca]
            return mdtraj.load(str(path), top=self.top, atom_indices=self.ca).xyz
        except ExternalSamplesError:
            raise
        except Exception as exc:
            raise ExternalSamplesError(f"external engine '{self.engine}': {path} cannot be read with topology "
                                       f"{self.topology} ({type(exc).__name__}: {exc}): check that the file is "
                                       f"intact and that the topology has its atoms (same count and order; "
                                       f"external.{self.engine}.topology)") from None

    def valid(self, ca: np.ndarray, path, on_nonfinite: str, frame_of=None) -> np.ndarray:
        """The frames of ``ca`` to keep, or an error naming ``path``, the frame and the atom."""
        try:
            return keep_valid_frames(ca, source=f"external engine '{self.engine}': {path}", on_nonfinite=on_nonfinite,
                                     frame_of=frame_of, atom_of=self.atom_of)
        except BadFramesError as exc:
            raise ExternalSamplesError(str(exc)) from None


def read_westpa(spec: Mapping, reader: CAReader, protein: str, on_nonfinite: str = default("on_nonfinite")) -> tuple[dict, list[dict]]:
    """Frames and per-iteration cost of a finished WESTPA run (bad frames refused or left out, ``keep``)."""
    west_h5 = Path(spec["west_h5"].format(protein=protein))
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "seg_id", "keep")}
    costs, traj = [], 0
    try:
        for iteration in iterations(west_h5, last=spec.get("max_iterations") or None):
            n_iter, index = iteration.number, iteration.seg_index
            for seg_id in range(len(index)):  # seg_index row = segment id
                path = segment_path(spec["segments"], n_iter, seg_id, protein)
                ca = reader.read(path)
                first = 1 if spec.get("drop_first_frame") else 0
                ca = ca[first:]
                n = len(ca)
                columns["keep"].append(reader.valid(ca, path, on_nonfinite, lambda row: f"frame {row + first}"))
                columns["ca"].append(ca)
                columns["weight"].append(np.full(n, index["weight"][seg_id]))
                columns["traj"].append(np.full(n, traj))
                columns["time_ps"].append(np.arange(1, n + 1) * spec["save_interval_ps"])
                columns["iteration"].append(np.full(n, n_iter))
                columns["seg_id"].append(np.full(n, seg_id))
                traj += 1
            costs.append({"iteration": n_iter, "segments": len(index), "ended_segments": 0,
                          "segment_wall_seconds": float(index["walltime"].sum()),
                          "segment_cpu_seconds": float(index["cputime"].sum())})
    except WestH5Error as exc:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {exc}") from None
    if not costs:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {west_h5} has no finished iteration")
    return _kept({k: np.concatenate(v) for k, v in columns.items()}), costs


def _kept(data: dict) -> dict:
    """Leave out the frames not kept (``keep``), splitting their pieces; the count under DROPPED_ATTR."""
    keep = data.pop("keep").astype(bool)
    dropped = int((~keep).sum())
    if dropped:
        traj = split_at_gaps(data["traj"], keep)
        data = {k: v[keep] for k, v in data.items()}
        data["traj"] = traj
    data[DROPPED_ATTR] = dropped
    return data


def _weights_file(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        return np.load(path)
    if path.suffix == ".npz":
        with np.load(path) as arrays:
            return arrays["weight"] if "weight" in arrays else arrays[arrays.files[0]]
    return np.loadtxt(path)


def read_trajectories(spec: Mapping, reader: CAReader, protein: str, on_nonfinite: str = default("on_nonfinite")) -> tuple[dict, list[dict]]:
    """Frames (optional per-frame weights) and one cost row per file of plain trajectories."""
    files = trajectory_files(spec["trajectories"] or [], protein)
    if not files:
        raise ExternalSamplesError(f"external engine '{reader.engine}': trajectories {spec['trajectories']!r} match no "
                                   f"file: set external.{reader.engine}.trajectories to a glob or list of existing "
                                   f"files ({{protein}} is replaced by the protein id)")
    names = [import_names([f])[0] for f in files]
    stride = spec["stride"]
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "keep")}
    costs = []
    for number, (path, name) in enumerate(zip(files, names)):
        ca = reader.read(path)
        n_full = len(ca)
        if spec.get("weights"):
            weights_path = Path(spec["weights"].format(protein=protein, name=name))
            try:
                weights = np.asarray(_weights_file(weights_path), dtype=np.float64).ravel()
            except Exception as exc:
                raise ExternalSamplesError(f"external engine '{reader.engine}': weights {weights_path} cannot be "
                                           f"read ({type(exc).__name__}: {exc}): write one weight per frame of "
                                           f"{path} as .npy, .npz or text, or set external.{reader.engine}.weights "
                                           f"to null (equal weights)") from None
            try:
                weights = check_weights(weights, source=str(weights_path), n_frames=n_full, trajectory=str(path))
            except BadFramesError as exc:
                raise ExternalSamplesError(f"external engine '{reader.engine}': {exc}") from None
        else:
            weights = np.ones(n_full)
        ca, weights = ca[::stride], weights[::stride]
        n = len(ca)
        columns["keep"].append(reader.valid(ca, path, on_nonfinite, lambda row: f"frame {row * stride}"))
        columns["ca"].append(ca)
        columns["weight"].append(weights)
        columns["traj"].append(np.full(n, number))
        columns["time_ps"].append(np.arange(1, n + 1) * spec["save_interval_ps"] * stride)
        columns["iteration"].append(np.full(n, number + 1))
        costs.append({"iteration": number + 1, "segments": 1, "ended_segments": 0,
                      "segment_wall_seconds": np.nan, "segment_cpu_seconds": np.nan})
    data = _kept({k: np.concatenate(v) for k, v in columns.items()})
    total = data["weight"].sum()
    if not total > 0:
        raise ExternalSamplesError(f"external engine '{reader.engine}': the frames kept of {spec['trajectories']!r} "
                                   f"have total weight {total:g}: give weights above zero to some frames")
    data["weight"] = data["weight"] / total
    return data, costs


def import_samples(spec: Mapping, prepared_pdb: str | Path, frames_path: str | Path, cost_path: str | Path, *,
                   engine: str, protein: str, tica=None, coverage_grid=None, on_nonfinite: str = default("on_nonfinite")) -> dict:
    """Write an external engine's ``frames.h5`` and ``cost.csv`` (see the module docstring).

    Parameters
    ----------
    spec : mapping
        The engine's ``external.<engine>`` config entry.
    prepared_pdb : path
        The protein's prepared structure (its C-alpha sequence is checked).
    tica : TicaModel, optional
        Projects every frame onto its TICs.
    coverage_grid : CoverageGrid, optional
        With ``tica``: adds the cumulative coverage after each iteration (file) to ``cost.csv``
        (:mod:`westbench.costs`: frames of weight above zero, as the metric suite's coverage counts).
    on_nonfinite : {"error", "drop"}
        Frames with non-finite coordinates: refused (default) or left out and counted.
    """
    prepared = mdtraj.load_topology(str(prepared_pdb))
    expected = ca_sequence(prepared, ca_atom_indices(prepared))
    topology = spec.get("topology")
    reader = CAReader(topology.format(protein=protein) if topology else None, expected, engine)
    if spec["kind"] == "westpa":
        data, costs = read_westpa(spec, reader, protein, on_nonfinite)
    else:
        data, costs = read_trajectories(spec, reader, protein, on_nonfinite)
    dropped = data.pop(DROPPED_ATTR)
    if not len(data["ca"]):
        raise ExternalSamplesError(f"external engine '{engine}': no frame is left ({dropped} had non-finite "
                                   f"coordinates): give samples with finite C-alpha positions")
    if dropped:
        log.warning("external engine %s: %d frames with non-finite coordinates left out (on_nonfinite: drop)",
                    engine, dropped)
    extra = {}
    if tica is not None:
        extra["tics"] = tica.transform(pairwise_distances(data["ca"])).astype(np.float32)
    write_frames(frames_path, ca=data["ca"], weight=data["weight"], traj=data["traj"], time_ps=data["time_ps"],
                 iteration=data["iteration"], attrs={"protein": protein, "source": engine, "kind": f"external/{spec['kind']}",
                        DROPPED_ATTR: dropped},
                 **{k: v for k, v in data.items() if k == "seg_id"}, **extra)
    coverage = None
    if coverage_grid is not None and "tics" in extra:
        coverage = coverage_by_iteration(coverage_grid, {**data, **extra}, [row["iteration"] for row in costs])
    cost = cost_table(costs, coverage)
    cost.to_csv(cost_path, index=False)
    log.info("external engine %s (%s): %d frames over %d iterations", engine, spec["kind"], len(data["ca"]), len(cost))
    return {"frames": int(len(data["ca"])), "iterations": len(cost), DROPPED_ATTR: dropped}
