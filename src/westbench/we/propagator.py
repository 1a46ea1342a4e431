"""WESTPA propagator that runs a westbench engine in-process (no shell script per segment).

WESTPA loads it from ``west.propagation.propagator``; its options come from the
``west.westbench`` section of west.cfg (written by :mod:`westbench.we.westcfg`).
The engine is built once per worker process, on its first segment.
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np
from westpa.core.propagators import WESTPropagator
from westpa.core.segment import Segment
from westpa.core.states import BasisState, InitialState

from westbench.engines.base import load_engine
from westbench.engines.runtime import record_runtime
from westbench.runtime.console import declare_chatty
from westbench.seeds import derive_seed
from westbench.we.pcoord import load_pcoord
from westbench.we.store import SegmentStore

log = logging.getLogger(__name__)
declare_chatty(__name__)  # engine set-up lines: the job's log file only


def batches(segments, seeds, size: int | None, seed: int):
    """Deterministic batches of a block of segments: ``[(members, batch)]``.

    Without a batch size (engines that seed each walker, e.g. the CG engine) the whole block is one
    call with ``batch`` None. With size ``B``, segment ``s`` of iteration ``n`` belongs to batch
    ``s // B`` in slot ``s % B``, seeded by ``derive_seed(seed, "batch", n, s // B)`` (by the segment's
    own seed when ``B`` is 1): the same whichever worker runs it, and after a resume.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> segs = [S(n_iter=2, seg_id=i) for i in (0, 1, 2, 5)]
    >>> [(m, list(b[1])) for m, b in batches(segs, [10, 11, 12, 15], 2, 7)]
    [([0, 1], [0, 1]), ([2], [0]), ([3], [1])]
    >>> batches(segs, [10, 11, 12, 15], 1, 7)[3][1][0]
    15
    """
    if not size:
        return [(list(range(len(segments))), None)]
    groups: dict[tuple[int, int], list[int]] = {}
    for i, segment in enumerate(segments):
        groups.setdefault((int(segment.n_iter), int(segment.seg_id) // size), []).append(i)
    out = []
    for (n_iter, index), members in sorted(groups.items()):
        members.sort(key=lambda i: segments[i].seg_id)
        batch_seed = seeds[members[0]] if size == 1 else derive_seed(seed, "batch", n_iter, index)
        out.append((members, (batch_seed, [int(segments[i].seg_id) % size for i in members])))
    return out


class WestbenchPropagator(WESTPropagator):
    """Propagates WESTPA segments with the engine named in ``west.westbench.engine``."""

    def __init__(self, rc=None):
        super().__init__(rc)
        self.options = self.rc.config.require(["west", "westbench"])
        self.store = SegmentStore(os.path.expandvars(self.options["segments"]))
        self.n_steps = int(self.options["steps_per_segment"])
        self.save_every = int(self.options["save_every"])
        self.seed = int(self.options["seed"])
        self._engine = None
        self._pcoord = None
        self._starts = None
        self._recorded = None

    @property
    def engine(self):
        if self._engine is None:
            start = time.perf_counter()
            self._engine = load_engine(self.options["engine"])
            log.info(
                "engine %s built in %.1f s (pid %d)",
                self.options["engine"]["class"],
                time.perf_counter() - start,
                os.getpid(),
            )
        return self._engine

    @property
    def pcoord(self):
        if self._pcoord is None:
            self._pcoord = load_pcoord(self.options["pcoord"])
        return self._pcoord

    def _record_runtime(self) -> None:
        """What the engine ran on, written for the run's summary whenever it changes (a new bucket, a fallback)."""
        runtime = getattr(self.engine, "runtime", None)
        record = runtime() if callable(runtime) else None
        if record and record != self._recorded:
            record_runtime(record)
            self._recorded = record

    def starts(self) -> list:
        """The engine's basis states (WESTPA's basis state ``auxref`` is the index into this list)."""
        if self._starts is None:
            own = getattr(self.engine, "basis_states", None)  # a user engine need not derive from Engine
            self._starts = list(own()) if callable(own) else [self.engine.basis_state()]
        return self._starts

    def start_weights(self) -> list[float] | None:
        """The basis states' probabilities the engine gives (:meth:`westbench.engines.base.Engine.basis_state_weights`),
        or None for equally likely."""
        own = getattr(self.engine, "basis_state_weights", None)  # a user engine need not derive from Engine
        weights = own() if callable(own) else None
        return None if weights is None else [float(w) for w in weights]

    def start_of(self, basis_state):
        """The engine state a WESTPA basis state stands for: ``auxref`` an index, or the one basis state."""
        auxref = str(basis_state.auxref or "")
        return self.starts()[int(auxref) if auxref.isdigit() else 0]

    def get_pcoord(self, state):
        """Progress coordinate of a basis or initial state: that of the engine state it stands for."""
        basis = state if isinstance(state, BasisState) else self.basis_states[state.basis_state_id]
        state.pcoord = self.pcoord(self.engine.beads(self.start_of(basis))[None])[0]

    def gen_istate(self, basis_state, initial_state):
        initial_state.pcoord = basis_state.pcoord
        initial_state.istate_status = InitialState.ISTATE_STATUS_PREPARED
        return initial_state

    def propagate(self, segments):
        if not segments:
            return segments
        parents = {}  # the walkers continued from each earlier iteration, read from its file at once
        for segment in segments:
            if segment.initpoint_type == Segment.SEG_INITPOINT_CONTINUES:
                parents.setdefault(segment.n_iter - 1, []).append(segment.parent_id)
        restarts = {
            (n_iter, parent): state
            for n_iter, ids in parents.items()
            for parent, state in zip(ids, self.store.restarts(n_iter, ids))
        }
        starts, seeds = [], []
        for segment in segments:
            if segment.initpoint_type == Segment.SEG_INITPOINT_CONTINUES:
                starts.append(restarts[segment.n_iter - 1, segment.parent_id])
            else:
                initial = self.initial_states[segment.initial_state_id]
                starts.append(self.start_of(self.basis_states[initial.basis_state_id]))
            seeds.append(derive_seed(self.seed, "segment", segment.n_iter, segment.seg_id))
        wall, cpu = time.perf_counter(), time.process_time()
        results = [None] * len(segments)
        for members, batch in batches(segments, seeds, getattr(self.engine, "batch_walkers", None), self.seed):
            out = self.engine.propagate(
                [starts[i] for i in members],
                self.n_steps,
                self.save_every,
                [seeds[i] for i in members],
                **({"batch": batch} if batch else {}),
            )
            for i, result in zip(members, out):
                results[i] = result
        self._record_runtime()
        wall = (time.perf_counter() - wall) / len(segments)
        cpu = (time.process_time() - cpu) / len(segments)
        # One progress-coordinate call for every segment (its start, then its frames, or only its start if it ended).
        paths = [
            np.concatenate(
                [self.engine.beads(start)[None].astype(np.float32)] + ([r.frames] if r.status == "ok" else [])
            )
            for start, r in zip(starts, results)
        ]
        pcoords = np.split(self.pcoord(np.concatenate(paths)), np.cumsum([len(path) for path in paths])[:-1])
        for segment, result, pcoord in zip(segments, results, pcoords):
            if result.status != "ok":
                # The walker ends where it started: its weight stays, its frames are marked in the store.
                log.warning(
                    "segment %d of iteration %d ended: %s (%s)",
                    segment.seg_id,
                    segment.n_iter,
                    result.status,
                    result.message,
                )
                pcoord = np.repeat(pcoord, len(result.frames) + 1, axis=0)
            segment.pcoord = pcoord.astype(np.float32)
            segment.walltime, segment.cputime = wall, cpu
            segment.status = Segment.SEG_STATUS_COMPLETE
        for n_iter in sorted({segment.n_iter for segment in segments}):  # one file per block
            block = [i for i, segment in enumerate(segments) if segment.n_iter == n_iter]
            self.store.write_segments(n_iter, [segments[i].seg_id for i in block], [results[i] for i in block])
        return segments
