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

from westbench.costs import cost_table, coverage_by_iteration
from westbench.errors import WestbenchError
from westbench.features import ca_atom_indices, pairwise_distances
from westbench.frames import write_frames
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
            raise ExternalSamplesError(f"external engine '{self.engine}': {where} has C-alpha sequence {found}; the "
                                       f"protein was prepared as {self.expected}")
        self.ca = ca

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
                                       f"{self.topology} ({type(exc).__name__}: {exc})") from None


def read_westpa(spec: Mapping, reader: CAReader, protein: str) -> tuple[dict, list[dict]]:
    """Frames and per-iteration cost of a finished WESTPA run."""
    west_h5 = Path(spec["west_h5"].format(protein=protein))
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "seg_id")}
    costs, traj = [], 0
    try:
        for iteration in iterations(west_h5, last=spec.get("max_iterations") or None):
            n_iter, index = iteration.number, iteration.seg_index
            for seg_id in range(len(index)):  # seg_index row = segment id
                ca = reader.read(segment_path(spec["segments"], n_iter, seg_id, protein))
                if spec.get("drop_first_frame"):
                    ca = ca[1:]
                n = len(ca)
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
    return {k: np.concatenate(v) for k, v in columns.items()}, costs


def _weights_file(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        return np.load(path)
    if path.suffix == ".npz":
        with np.load(path) as arrays:
            return arrays["weight"] if "weight" in arrays else arrays[arrays.files[0]]
    return np.loadtxt(path)


def read_trajectories(spec: Mapping, reader: CAReader, protein: str) -> tuple[dict, list[dict]]:
    """Frames (optional per-frame weights) and one cost row per file of plain trajectories."""
    files = trajectory_files(spec["trajectories"] or [], protein)
    if not files:
        raise ExternalSamplesError(f"external engine '{reader.engine}': trajectories {spec['trajectories']!r} match no file")
    names = [import_names([f])[0] for f in files]
    stride = spec["stride"]
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration")}
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
                                           f"read ({type(exc).__name__}: {exc})") from None
            if len(weights) != n_full or (weights < 0).any():
                raise ExternalSamplesError(f"external engine '{reader.engine}': weights {weights_path} hold "
                                           f"{len(weights)} values; {path} has {n_full} frames (non-negative)")
        else:
            weights = np.ones(n_full)
        ca, weights = ca[::stride], weights[::stride]
        n = len(ca)
        columns["ca"].append(ca)
        columns["weight"].append(weights)
        columns["traj"].append(np.full(n, number))
        columns["time_ps"].append(np.arange(1, n + 1) * spec["save_interval_ps"] * stride)
        columns["iteration"].append(np.full(n, number + 1))
        costs.append({"iteration": number + 1, "segments": 1, "ended_segments": 0,
                      "segment_wall_seconds": np.nan, "segment_cpu_seconds": np.nan})
    data = {k: np.concatenate(v) for k, v in columns.items()}
    data["weight"] = data["weight"] / data["weight"].sum()
    return data, costs


def import_samples(spec: Mapping, prepared_pdb: str | Path, frames_path: str | Path, cost_path: str | Path, *,
                   engine: str, protein: str, tica=None, coverage_grid=None) -> dict:
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
    """
    prepared = mdtraj.load_topology(str(prepared_pdb))
    expected = ca_sequence(prepared, ca_atom_indices(prepared))
    topology = spec.get("topology")
    reader = CAReader(topology.format(protein=protein) if topology else None, expected, engine)
    if spec["kind"] == "westpa":
        data, costs = read_westpa(spec, reader, protein)
    else:
        data, costs = read_trajectories(spec, reader, protein)
    extra = {}
    if tica is not None:
        extra["tics"] = tica.transform(pairwise_distances(data["ca"])).astype(np.float32)
    write_frames(frames_path, ca=data["ca"], weight=data["weight"], traj=data["traj"], time_ps=data["time_ps"],
                 iteration=data["iteration"], attrs={"protein": protein, "source": engine, "kind": f"external/{spec['kind']}"},
                 **{k: v for k, v in data.items() if k == "seg_id"}, **extra)
    coverage = None
    if coverage_grid is not None and "tics" in extra:
        coverage = coverage_by_iteration(coverage_grid, {**data, **extra}, [row["iteration"] for row in costs])
    cost = cost_table(costs, coverage)
    cost.to_csv(cost_path, index=False)
    log.info("external engine %s (%s): %d frames over %d iterations", engine, spec["kind"], len(data["ca"]), len(cost))
    return {"frames": int(len(data["ca"])), "iterations": len(cost)}
