"""What reaches the console during a run: warnings, errors and westbench's own progress lines.

A module whose INFO records belong in the job's log file only (set-up lines, per-segment chatter)
says so itself, once, where it makes its logger::

    log = logging.getLogger(__name__)
    declare_chatty(__name__)

and the owner of a third-party library's use declares that library's loggers (the WESTPA session
declares WESTPA's: :mod:`westbench.we.session`). Inside :func:`quiet_console` the console handlers
drop the INFO records of every declared logger and of its children; file handlers keep them all.

Examples
--------
>>> declare_chatty("example.library")
>>> is_chatty("example.library.module"), is_chatty("example.libraryish"), is_chatty("example")
(True, False, False)
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys

#: Loggers (with their children) whose INFO records go to the job's log file only; see :func:`declare_chatty`.
_CHATTY: set[str] = set()


def declare_chatty(*names: str) -> None:
    """Send the INFO records of the loggers ``names`` (and their children) to the log file only, under
    :func:`quiet_console`; their warnings and errors still reach the console."""
    _CHATTY.update(names)


def is_chatty(name: str) -> bool:
    """Whether logger ``name`` is a declared chatty logger or one of its children."""
    return any(name == p or name.startswith(p + ".") for p in _CHATTY)


class ConsoleFilter(logging.Filter):
    """Passes warnings and errors, and INFO records of loggers nobody declared chatty."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not is_chatty(record.name)


class LogStream(io.TextIOBase):
    """A text stream whose lines become INFO records (WESTPA prints its status to stdout)."""

    def __init__(self, logger: logging.Logger):
        self.logger, self.pending = logger, ""

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            if line.strip():
                self.logger.info("%s", line.rstrip())
        return len(text)

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def quiet_console(stdout_logger: str):
    """Chatter (declared loggers' INFO records, stdout prints) to the log file only.

    Console handlers (root handlers writing to stderr or stdout) get a :class:`ConsoleFilter`;
    what is printed to stdout becomes INFO records of the logger ``stdout_logger``, which file
    handlers keep (and the console drops where that logger is declared chatty).
    """
    terminals = (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)
    console = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) in terminals
    ]
    chatter = ConsoleFilter()
    for handler in console:
        handler.addFilter(chatter)
    try:
        with contextlib.redirect_stdout(LogStream(logging.getLogger(stdout_logger))):
            yield
    finally:
        for handler in console:
            handler.removeFilter(chatter)
