"""Per-iteration segment files, kept outside west.h5.

Workers write one ``.npz`` per block of segments (one propagator call) under
``segments/iter_NNNNNN/``, named after the block's first segment; after
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
>>> store.write_segments(1, [0, 1], [result, result])
>>> store.restart(1, 1).positions.shape
(5, 3)
>>> store.consolidate(1)
>>> store.frames(1)["seg_id"].tolist(), store.restart(1, 1).positions.shape
([0, 1], (5, 3))
>>> store.ended_segments()
{}
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from westbench.engines.base import SegmentResult, WalkerState
from westbench.io import atomic


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
        """One segment's file (see :meth:`write_segments`)."""
        self.write_segments(n_iter, [seg_id], [result])

    def write_segments(self, n_iter: int, seg_ids, results) -> None:
        """Written by a worker right after it propagated a block of segments: one file, atomically."""
        folder = self._segment_dir(n_iter)
        folder.mkdir(parents=True, exist_ok=True)
        finals = [r.final for r in results]
        arrays = {
            "seg_id": np.asarray(seg_ids, dtype=np.int64),
            "frames": np.stack([r.frames for r in results]).astype(np.float32),
            "positions": np.stack([f.positions for f in finals]),
            "status": np.array([r.status for r in results]),
            "message": np.array([r.message for r in results]),
        }
        for key in ("velocities", "box"):
            if all(getattr(f, key) is not None for f in finals):
                arrays[key] = np.stack([getattr(f, key) for f in finals])
        first = int(min(seg_ids))
        atomic.savez(
            folder / f"seg_{first:06d}.npz", f"the segment files written before it are intact in {folder}", **arrays
        )

    @staticmethod
    def _read(path: Path) -> dict:
        with np.load(path) as data:
            return {key: data[key] for key in data.files}

    def consolidate(self, n_iter: int) -> None:
        """Join an iteration's segment files into its frames and restart files (run by the master)."""
        folder = self._segment_dir(n_iter)
        parts = [self._read(path) for path in sorted(folder.glob("seg_*.npz"))]
        if not parts:
            return
        ids = np.concatenate([p["seg_id"] for p in parts])
        order = np.argsort(ids, kind="stable")

        def joined(key):
            return np.concatenate([p[key] for p in parts])[order]

        frames = {
            "seg_id": ids[order],
            "frames": joined("frames"),
            "status": joined("status").astype(str),
            "message": joined("message").astype(str),
        }
        restart = {"seg_id": ids[order], "positions": joined("positions")}
        for key in ("velocities", "box"):
            if all(key in p for p in parts):
                restart[key] = joined(key)
        for path, arrays in ((self.frames_path(n_iter), frames), (self.restart_path(n_iter), restart)):
            atomic.savez(path, f"the segment files of iteration {n_iter} are intact in {folder}", **arrays)
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
        """The final state of a segment (from the iteration file, or its block's file before consolidation)."""
        return self.restarts(n_iter, [seg_id])[0]

    def restarts(self, n_iter: int, seg_ids) -> list[WalkerState]:
        """The final states of segments of one iteration, in the order of ``seg_ids`` (see :meth:`restart`).

        An iteration file is read once and kept (until it changes on disk): a worker continues every
        walker of an iteration from the same file, and looks it up once per call, not once per walker.
        """
        path = self.restart_path(n_iter)
        if path.exists():
            stamp = path.stat()
            key = (str(path), stamp.st_mtime_ns, stamp.st_size)
            if getattr(self, "_cached", (None,))[0] != key:
                data = self._read(path)
                self._cached = (key, data, {int(s): i for i, s in enumerate(data["seg_id"])})
            _, data, rows = self._cached
            where = {seg_id: (data, row) for seg_id, row in rows.items()}
        else:
            where = {}
            for block in map(self._read, sorted(self._segment_dir(n_iter).glob("seg_*.npz"))):
                where.update({int(s): (block, i) for i, s in enumerate(block["seg_id"].tolist())})
        missing = sorted({int(seg_id) for seg_id in seg_ids} - set(where))
        if missing:
            raise KeyError(
                f"segments {missing} of iteration {n_iter} are in neither {path} nor {self._segment_dir(n_iter)}: "
                "the run's segment files are incomplete; rerun the job (it resumes from west.h5)"
            )
        found = [where[int(seg_id)] for seg_id in seg_ids]
        return [
            WalkerState(
                data["positions"][row],
                data["velocities"][row] if "velocities" in data else None,
                data["box"][row] if "box" in data else None,
            )
            for data, row in found
        ]

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
