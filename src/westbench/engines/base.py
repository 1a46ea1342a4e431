"""The engine interface of the weighted-ensemble stage.

An engine turns starting states into short trajectories. WESTPA's propagator
(:mod:`westbench.we.propagator`) calls it once per batch of segments; the
engine is built once per worker process and reused for every segment.

Contract
--------
- :meth:`Engine.basis_state` returns the state every new trajectory starts from; an engine given an
  ensemble of starts returns them all from :meth:`Engine.basis_states` (WESTPA's basis states, ``auxref`` =
  their index), equally likely unless :meth:`Engine.basis_state_weights` gives their probabilities.
- :meth:`Engine.beads` returns the C-alpha (bead) positions of a state, shape (n_beads, 3), nm.
- :meth:`Engine.propagate` advances each start by ``n_steps``, saving the beads
  every ``save_every`` steps, with the given per-segment seeds, and returns one
  :class:`SegmentResult` per start (status ``"ok"``, or another word with a message
  when the walker must end, e.g. ``"exploded"``).
- ``batch_walkers`` (attribute, default None): an engine that packs walkers into batches of a fixed
  size ``B`` sets it; WESTPA's propagator then calls :meth:`Engine.propagate` once per batch with
  ``batch=(batch_seed, slots)`` (:func:`westbench.we.propagator.batches`). None: the engine takes any
  group of walkers and seeds each one itself.
- :meth:`Engine.runtime` says what the engine actually ran on (platform, device, CUDA-graph buckets);
  the propagator records it per worker and the WE run's ``run.json`` lists it (``engines_used``).

Examples
--------
>>> import numpy as np
>>> class Still(Engine):
...     def basis_state(self):
...         return WalkerState(np.zeros((1, 3)))
...     def beads(self, state):
...         return state.positions
...     def propagate(self, starts, n_steps, save_every, seeds):
...         return [SegmentResult(np.repeat(s.positions[None], n_steps // save_every, 0), s) for s in starts]
>>> engine = load_engine({"class": "westbench.engines.base:Still"}, namespace={"Still": Still})
>>> engine.propagate([engine.basis_state()], 10, 5, [1])[0].frames.shape
(2, 1, 3)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np


@dataclass
class WalkerState:
    """A restartable state: positions (n_atoms, 3) nm, velocities (nm/ps) and box (3, 3) nm when known."""

    positions: np.ndarray
    velocities: np.ndarray | None = None
    box: np.ndarray | None = None


@dataclass
class SegmentResult:
    """What one segment produced: bead frames (n_frames, n_beads, 3) nm and the final state."""

    frames: np.ndarray
    final: WalkerState
    status: str = "ok"
    message: str = ""


class Engine(ABC):
    """Propagates walkers for weighted ensemble; see the module docstring for the contract."""

    batch_walkers: int | None = None

    @abstractmethod
    def basis_state(self) -> WalkerState:
        """The state new trajectories start from."""

    def basis_states(self) -> Sequence[WalkerState]:
        """The states new trajectories start from: :meth:`basis_state` alone by default."""
        return [self.basis_state()]

    def basis_state_weights(self) -> Sequence[float] | None:
        """The probabilities of :meth:`basis_states` (summing to 1), or None for equally likely (the default)."""
        return None

    @abstractmethod
    def beads(self, state: WalkerState) -> np.ndarray:
        """Bead (C-alpha) positions of a state, (n_beads, 3) nm."""

    @abstractmethod
    def propagate(
        self, starts: Sequence[WalkerState], n_steps: int, save_every: int, seeds: Sequence[int]
    ) -> list[SegmentResult]:
        """Advance every start by ``n_steps``; frames every ``save_every`` steps."""

    def runtime(self) -> dict:
        """What this engine ran on so far, JSON-ready (engines on accelerators add platform and device)."""
        return {"engine": f"{type(self).__module__}:{type(self).__name__}"}


def load_engine(spec: Mapping, namespace: Mapping | None = None) -> Engine:
    """Build an engine from ``{"class": "module:Class", "options": {...}, "python_path": folder}``.

    ``python_path`` (optional): a folder put first on ``sys.path`` to import a user's module from
    (``we.engines`` entries with a ``class``, :mod:`westbench.engines.user`). The class subclasses
    :class:`Engine` or provides its three methods.
    """
    from westbench.engines.user import contract_problems, import_class

    class_name = spec["class"].partition(":")[2]
    if namespace and class_name in namespace:
        cls = namespace[class_name]
    else:
        cls = import_class(spec["class"], spec.get("python_path"))
    problems = contract_problems(cls)
    if problems:
        raise TypeError(f"{spec['class']} is not a westbench Engine: {'; '.join(problems)}")
    return cls(**dict(spec.get("options", {})))
