"""Propagators of walkers: one interface, one class per engine.

To add an engine, subclass :class:`~westbench.engines.base.Engine` and name it
in the config as ``module:Class`` with its keyword arguments.
"""

from westbench.engines.base import Engine, SegmentResult, WalkerState, load_engine

__all__ = ["Engine", "SegmentResult", "WalkerState", "load_engine"]
