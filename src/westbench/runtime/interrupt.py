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
:data:`KERNEL_GRACE_S` later (SIGALRM at its default action). The kernel may hand the signal to any
thread of the process; one that is not the main thread cannot interrupt the main thread's blocking C
call, so a thread watching the signal wakeup fd forwards it there (:func:`_watch_delivery`). A second
signal while it is stopping ends it at once. A library that puts its own handler in front of these
(WESTPA's work managers do, and shut their workers down inside it) must hand the signal on at once: see
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
    state = {"signum": None, "redelivered": False, "unwound": False, "deadline_armed": False}

    def arm_kernel_deadline():
        if deadline_s is not None and not state["deadline_armed"]:
            state["deadline_armed"] = True
            signal.setitimer(signal.ITIMER_REAL, deadline_s + KERNEL_GRACE_S)

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
        forwarded = _delivery["forwarded"]
        _delivery["forwarded"] = False
        _delivery["handled"] += 1
        if state["signum"] is None:
            state["signum"] = signum
            arm_kernel_deadline()
            threading.Thread(target=watchdog, name="westbench-stop-deadline", daemon=True).start()
        elif state["redelivered"] or forwarded:
            state["redelivered"] = False
            if _unwinding():  # still on its way out (a finally block, an __exit__): let the clean-up finish
                return
        else:  # a second signal while stopping: the user insists
            os._exit(128 + signum)
        raise Interrupted(signum)

    # A signal the caller ignores stays ignored (``nohup``, background jobs of a non-interactive shell).
    previous = {sig: signal.signal(sig, handler) for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN}
    previous_alarm = signal.signal(signal.SIGALRM, signal.SIG_DFL) if deadline_s is not None else None
    wakeup = _watch_delivery(main, set(previous), arm_kernel_deadline)
    try:
        yield
    finally:
        state["unwound"] = True
        if wakeup is not None:
            wakeup()
        for sig, action in previous.items():
            signal.signal(sig, action if action is not None else signal.SIG_DFL)
        if deadline_s is not None and not state["deadline_armed"]:
            signal.signal(signal.SIGALRM, previous_alarm if previous_alarm is not None else signal.SIG_DFL)


#: Shared by the handlers of :func:`stop_on_signals` and the thread that watches delivery: how many times one ran,
#: and whether the next run is a signal that thread forwarded to the main thread.
_delivery = {"handled": 0, "forwarded": False}
#: (read end, write end) of the pipe this process's wakeup fd writes to while :func:`stop_on_signals` watches it.
_wakeup_pipe: tuple[int, int] | None = None
#: Seconds the watching thread gives the main thread to run the handler itself before forwarding the signal to it.
FORWARD_AFTER_S = 0.05


def _watch_delivery(main: int, signals: set, arm_kernel_deadline):
    """Make sure a stop signal reaches the main thread whichever thread the kernel delivered it to.

    The kernel hands a process-directed signal to any thread that does not block it. Python's C-level handler
    then only marks it pending; the Python handler runs when the *main* thread next executes bytecode. A main thread
    blocked in a C call (a lock or semaphore wait on a result from workers the same signal just stopped: WESTPA's
    ``processes`` work manager) is not interrupted by a signal another thread took, and waits for good: no handler,
    no deadline. Python writes every caught signal's number to the wakeup fd (:func:`signal.set_wakeup_fd`) from
    the C handler, whichever thread runs it; a thread reading that pipe arms the kernel deadline and, where the
    handler has not run within :data:`FORWARD_AFTER_S`, sends the signal to the main thread itself
    (:func:`signal.pthread_kill`), which interrupts its wait. Returns the function that stops watching, or None where
    something else owns the wakeup fd (an asyncio loop running in the main thread already wakes it).
    """
    global _wakeup_pipe
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        return None
    _wakeup_pipe = (read_end, write_end)
    handled_before = _delivery["handled"]

    def watch():
        forwarded = False
        while data := os.read(read_end, 512):  # b"": the write end closed, the block is over
            signum = next((n for n in data if n in signals), None)
            if forwarded or signum is None:
                continue  # drain what the watchdog's redeliveries write
            forwarded = True
            arm_kernel_deadline()
            waited = time.monotonic()
            while _delivery["handled"] == handled_before and time.monotonic() - waited < FORWARD_AFTER_S:
                time.sleep(0.005)
            if _delivery["handled"] == handled_before:
                _delivery["forwarded"] = True
                signal.pthread_kill(main, signum)
        os.close(read_end)

    threading.Thread(target=watch, name="westbench-signal-delivery", daemon=True).start()

    def stop():
        global _wakeup_pipe
        signal.set_wakeup_fd(-1)
        _wakeup_pipe = None
        os.close(write_end)

    return stop


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
    if _wakeup_pipe is not None:  # the parent's pipe and watcher: a child's signals are its own
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(-1)
            for end in _wakeup_pipe:
                os.close(end)
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
