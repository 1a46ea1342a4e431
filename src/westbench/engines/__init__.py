"""Propagators of walkers: one interface, one class per engine.

To add an engine, subclass :class:`~westbench.engines.base.Engine` and name it in ``we.engines``
as ``{name: mine, class: "package.module:Class", python_path: folder, options: {...}}``
(:mod:`westbench.engines.user`; docs/bring-your-own.md).

Every engine module's INFO records (``westbench.engines.*``) go to the job's log file only during a WE run.
"""

from westbench.engines.base import Engine, SegmentResult, WalkerState, load_engine
from westbench.runtime.console import declare_chatty

declare_chatty(__name__)  # the engines' set-up lines go to the job's log file only (westbench.runtime.console)

__all__ = ["Engine", "SegmentResult", "WalkerState", "load_engine"]
