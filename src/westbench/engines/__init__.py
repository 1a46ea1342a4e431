"""Propagators of walkers: one interface, one class per engine.

To add an engine, subclass :class:`~westbench.engines.base.Engine` and name it in ``we.engines``
as ``{name: mine, class: "package.module:Class", python_path: folder, options: {...}}``
(:mod:`westbench.engines.user`; docs/bring-your-own.md).
"""

from westbench.engines.base import Engine, SegmentResult, WalkerState, load_engine

__all__ = ["Engine", "SegmentResult", "WalkerState", "load_engine"]
