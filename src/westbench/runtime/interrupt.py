"""How a job process stops when it is interrupted: within seconds, leaving state a rerun resumes from.

Snakemake's local jobs share its process group, so Ctrl-C (SIGINT) in the terminal or
``kill -TERM -- -<pgid>`` reaches every job process directly. :func:`stop_on_signals` (entered by
:func:`westbench.workflow.run_script` around every job) turns SIGINT, SIGTERM and SIGHUP into
:class:`Interrupted`, an exception no library catches: WESTPA's ``w_run`` swallows
``KeyboardInterrupt`` and returns as if the run had ended, and its serial work manager would hand a
plain exception back as a failed segment. On its way out the exception runs every ``finally``
block and context manager (WESTPA's work manager stops its workers, ``west.h5`` is closed), and the
job exits with status 128 + the signal number. Whatever happens, a job process is gone within
:data:`STOP_DEADLINE_S` seconds (a thread ends it there); should no thread of it run any more (a C call
holding the GIL, daemon threads frozen at interpreter exit), the kernel ends it
:data:`KERNEL_GRACE_S` later (SIGALRM at its default action). A second signal while it is stopping
ends it at once. A library that puts its own handler in front of these (WESTPA's work managers do,
and shut their workers down inside it) must hand the signal on at once: see
:func:`westbench.we.session.failures_raised`.

Processes forked under :func:`children_exit_with_parent` (the workers of WESTPA's ``processes`` work
manager) die on these signals themselves (they hold no state: the master owns ``west.h5``) and,
through Linux's parent-death signal, when the process that forked them dies.

Examples
--------
>>> import os, signal
>>> before = signal.getsignal(signal.SIGTERM)
>>> with stop_on_signals():
...     try:
...         os.kill(os.getpid(), signal.SIGTERM)
...         for _ in range(10**7):  # the handler runs at the next bytecode
...             pass
...     except Interrupted as exc:
...         print(exc.signal_name, exc.exit_code)
SIGTERM 143
>>> signal.getsignal(signal.SIGTERM) is before  # restored on exit
True
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

#: The signals that stop a job: Ctrl-C, ``kill``/SLURM's time limit, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Seconds after a stop signal by which the process has exited, cleanly or not.
STOP_DEADLINE_S = 5.0
#: Seconds after the deadline at which the kernel ends a process none of whose threads could.
KERNEL_GRACE_S = 0.5
_PR_SET_PDEATHSIG = 1


class Interrupted(SystemExit):
    """A stop signal arrived; the process exits with ``exit_code`` (128 + the signal number) once cleaned up.

    A ``SystemExit`` so that ``except Exception`` in libraries lets it pass, asyncio re-raises it
    out of its event loop, and, left uncaught, it ends the process with that exit status.
    """

    def __init__(self, signum: int):
        self.signum = signum
        self.signal_name = signal.Signals(signum).name
        self.exit_code = 128 + signum
        super().__init__(self.exit_code)

    def __str__(self) -> str:
        return f"interrupted by {self.signal_name}"


@contextlib.contextmanager
def stop_on_signals(signals=STOP_SIGNALS, deadline_s: float | None = None):
    """Raise :class:`Interrupted` in the main thread on the first of ``signals``; exit at once on a second.

    An exception raised by a signal handler lands wherever the main thread is, and some places
    swallow it (a weakref callback, ``__del__``: Python prints "Exception ignored" and goes on, then
    waits for a result that never comes from the workers the signal stopped). So until it has
    reached this block the signal is delivered again to the main thread every half second, raising
    again only where the first one was lost (not in the ``finally`` blocks it is running). With
    ``deadline_s`` (a process's outermost use, :func:`westbench.workflow.run_script`), a process
    still alive that many seconds after the signal, clean-up included, exits there and then (what
    a ``kill -9`` would leave, which resumes too). Signals the process ignores (``SIG_IGN``) stay
    ignored. Only the main thread can install handlers; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    main = threading.main_thread().ident
    state = {"signum": None, "redelivered": False, "unwound": False}

    def watchdog():
        signum, started = state["signum"], time.monotonic()
        while deadline_s is None or time.monotonic() - started < deadline_s:
            time.sleep(0.5)
            if state["unwound"]:
                if deadline_s is None:
                    return
            else:
                state["redelivered"] = True
                signal.pthread_kill(main, signum)
        os.write(
            2, f"westbench: still running {deadline_s:g} s after {signal.Signals(signum).name}: exiting now\n".encode()
        )
        os._exit(128 + signum)

    def handler(signum, frame):
        if state["signum"] is None:
            state["signum"] = signum
            if deadline_s is not None:
                _kernel_deadline(deadline_s + KERNEL_GRACE_S)
            threading.Thread(target=watchdog, name="westbench-stop-deadline", daemon=True).start()
        elif state["redelivered"]:
            state["redelivered"] = False
            if _unwinding():  # still on its way out (a finally block, an __exit__): let the clean-up finish
                return
        else:  # a second signal while stopping: the user insists
            os._exit(128 + signum)
        raise Interrupted(signum)

    # A signal the caller ignores stays ignored (``nohup``, background jobs of a non-interactive shell).
    previous = {sig: signal.signal(sig, handler) for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield
    finally:
        state["unwound"] = True
        for sig, action in previous.items():
            signal.signal(sig, action if action is not None else signal.SIG_DFL)


def _kernel_deadline(seconds: float) -> None:
    """Have the kernel end this process ``seconds`` from now: SIGALRM at its default action, terminate.

    The watchdog thread cannot act while another thread holds the GIL in a blocking C call, nor once
    the interpreter froze its daemon threads on the way out; a timer needs no thread of ours.
    """
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _unwinding() -> bool:
    """Whether the main thread is handling an :class:`Interrupted` (directly or as the context of another)."""
    exc, seen = sys.exc_info()[1], set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, Interrupted):
            return True
        seen.add(id(exc))
        exc = exc.__context__
    return False


_follow_parent = False


def _in_forked_child() -> None:
    if not _follow_parent:
        return
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    exit_with_parent()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)


def exit_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Have the kernel send ``sig`` to this process when its parent dies.

    Strictly: when the *thread* that forked it ends, so fork workers from the main thread (WESTPA's
    work managers do). Processes started by :mod:`subprocess` without ``preexec_fn`` do not run the
    fork hooks and are not affected.

    Linux only (``prctl(PR_SET_PDEATHSIG)``); returns whether it was set up. Exits at once when the
    parent is already gone (reparented before the call).
    """
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if parent == 1 or os.getppid() != parent:
        os._exit(128 + int(sig))
    return True


@contextlib.contextmanager
def children_exit_with_parent():
    """Processes forked inside this block die on a stop signal and when this process dies.

    For worker processes that hold no state of their own (WESTPA's ``processes`` work manager):
    without it a worker turns Ctrl-C into a failed task and keeps polling its queue, holding the
    ``west.h5`` file descriptor (and so its lock) it inherited, after its master has gone.
    """
    global _follow_parent
    previous, _follow_parent = _follow_parent, True
    try:
        yield
    finally:
        _follow_parent = previous
