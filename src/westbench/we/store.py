"""Per-iteration segment files, kept outside west.h5.

Workers write one ``.npz`` per segment under ``segments/iter_NNNNNN/``; after
propagation the master joins them into ``segments/iter_NNNNNN.frames.npz`` (bead
frames, status) and ``segments/iter_NNNNNN.restart.npz`` (final positions,
velocities, box), indexed by segment id. Old restart files can be pruned: only
the last iteration's are needed to continue.

Examples
--------
>>> import numpy as np, tempfile
>>> from westbench.engines.base import SegmentResult, WalkerState
>>> store = SegmentStore(tempfile.mkdtemp())
>>> result = SegmentResult(np.ones((2, 3, 3)), WalkerState(np.zeros((5, 3)), np.zeros((5, 3))))
>>> store.write_segment(1, 0, result); store.write_segment(1, 1, result)
>>> store.consolidate(1)
>>> store.frames(1)["seg_id"].tolist(), store.restart(1, 1).positions.shape
([0, 1], (5, 3))
>>> store.ended_segments()
{}
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from westbench.engines.base import SegmentResult, WalkerState


class SegmentStore:
    """Segment frames and restart states of a WE run, one pair of files per iteration."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def _segment_dir(self, n_iter: int) -> Path:
        return self.root / f"iter_{n_iter:06d}"

    def frames_path(self, n_iter: int) -> Path:
        return self.root / f"iter_{n_iter:06d}.frames.npz"

    def restart_path(self, n_iter: int) -> Path:
        return self.root / f"iter_{n_iter:06d}.restart.npz"

    def write_segment(self, n_iter: int, seg_id: int, result: SegmentResult) -> None:
        """Written by a worker right after it propagated the segment (atomically)."""
        folder = self._segment_dir(n_iter)
        folder.mkdir(parents=True, exist_ok=True)
        final = result.final
        arrays = {"frames": result.frames.astype(np.float32), "positions": final.positions,
                  "status": np.array(result.status), "message": np.array(result.message)}
        if final.velocities is not None:
            arrays["velocities"] = final.velocities
        if final.box is not None:
            arrays["box"] = final.box
        temporary = folder / f".seg_{seg_id:06d}.part.npz"
        np.savez(temporary, **arrays)
        os.replace(temporary, folder / f"seg_{seg_id:06d}.npz")

    def consolidate(self, n_iter: int) -> None:
        """Join an iteration's segment files into its frames and restart files (run by the master)."""
        folder = self._segment_dir(n_iter)
        files = sorted(folder.glob("seg_*.npz"))
        if not files:
            return
        ids, parts = [], []
        for path in files:
            with np.load(path) as data:
                parts.append({key: data[key] for key in data.files})
            ids.append(int(path.stem.split("_")[1]))
        ids = np.array(ids)
        frames = {"seg_id": ids, "frames": np.stack([p["frames"] for p in parts]),
                  "status": np.array([str(p["status"]) for p in parts]),
                  "message": np.array([str(p["message"]) for p in parts])}
        restart = {"seg_id": ids, "positions": np.stack([p["positions"] for p in parts])}
        for key in ("velocities", "box"):
            if all(key in p for p in parts):
                restart[key] = np.stack([p[key] for p in parts])
        for path, arrays in ((self.frames_path(n_iter), frames), (self.restart_path(n_iter), restart)):
            temporary = path.with_name(f".{path.name}.part.npz")
            np.savez(temporary, **arrays)
            os.replace(temporary, path)
        shutil.rmtree(folder)

    def frames(self, n_iter: int) -> dict:
        """Bead frames (n_seg, n_frames, n_beads, 3), seg ids and statuses of an iteration."""
        with np.load(self.frames_path(n_iter)) as data:
            return {key: data[key] for key in data.files}

    def ended_segments(self) -> dict:
        """Segments that ended early, by status, over every consolidated iteration: ``{"exploded": 3}``."""
        counts: dict = {}
        for path in sorted(self.root.glob("iter_*.frames.npz")):
            with np.load(path) as data:
                for status in data["status"].tolist():
                    if status != "ok":
                        counts[status] = counts.get(status, 0) + 1
        return counts

    def restart(self, n_iter: int, seg_id: int) -> WalkerState:
        """The final state of a segment (from the iteration file, or its own file before consolidation)."""
        path = self.restart_path(n_iter)
        if path.exists():
            with np.load(path) as data:
                row = int(np.flatnonzero(data["seg_id"] == seg_id)[0])
                return WalkerState(data["positions"][row], data["velocities"][row] if "velocities" in data else None,
                                   data["box"][row] if "box" in data else None)
        with np.load(self._segment_dir(n_iter) / f"seg_{seg_id:06d}.npz") as data:
            return WalkerState(data["positions"], data["velocities"] if "velocities" in data else None,
                               data["box"] if "box" in data else None)

    def prune_restarts(self, keep_from: int) -> None:
        """Delete restart files of iterations before ``keep_from`` (frames are kept)."""
        for path in self.root.glob("iter_*.restart.npz"):
            if int(path.name[5:11]) < keep_from:
                path.unlink()

    def discard_after(self, n_iter: int) -> None:
        """Remove files of iterations after ``n_iter`` (left by an interrupted run that WESTPA redoes)."""
        for path in self.root.glob("iter_*"):
            if int(path.name[5:11]) > n_iter:
                shutil.rmtree(path) if path.is_dir() else path.unlink()
