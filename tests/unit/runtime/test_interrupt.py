"""westbench.runtime.interrupt in real processes: a swallowed interrupt is delivered again, a process that
will not stop is ended at the deadline, forked workers die with their parent."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from westbench.runtime.interrupt import Interrupted, stop_on_signals

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux")


def run(code, timeout=30):
    """Run ``code`` in a fresh interpreter; it signals itself. Returns (exit code, stdout, seconds).

    SIGINT starts at its default, as from a terminal: a suite started as a background job of a non-interactive
    shell hands its children SIGINT ignored, which ``stop_on_signals`` rightly leaves ignored.
    """
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n" + textwrap.dedent(code),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    return result.returncode, result.stdout + result.stderr, time.monotonic() - started


def test_an_interrupt_swallowed_by_a_library_is_delivered_again():
    code, output, _ = run("""
        import os, signal, threading
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        with stop_on_signals():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                threading.Event().wait(2)
            except Interrupted:
                print("swallowed")  # as a weakref callback would; then block for good
            try:
                threading.Event().wait()
            except Interrupted as exc:
                print("delivered again", exc.exit_code)
        """)
    assert code == 0 and "swallowed" in output and "delivered again 143" in output, output


def test_the_redelivered_signal_does_not_cut_a_clean_up_short():
    code, output, _ = run("""
        import os, signal, threading, time
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        try:
            with stop_on_signals():
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                    threading.Event().wait(5)
                finally:
                    time.sleep(1.6)  # a slow clean-up: the signal comes again at 0.5, 1.0 and 1.5 s
                    print("cleaned up")
        except Interrupted:
            print("stopped")
        """)
    assert code == 0 and "cleaned up" in output and "stopped" in output, output


def test_a_process_that_will_not_stop_exits_at_the_deadline():
    code, output, seconds = run("""
        import os, signal, threading
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        with stop_on_signals(deadline_s=1.5):
            try:
                os.kill(os.getpid(), signal.SIGINT)
            except Interrupted:
                pass
            while True:
                try:
                    threading.Event().wait()
                except Interrupted:
                    pass
        """)
    assert code == 130 and "exiting now" in output, output
    assert seconds < 10


def test_a_process_none_of_whose_threads_can_run_is_ended_by_the_kernel_just_after_the_deadline():
    code, output, seconds = run("""
        import ctypes, os, signal
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        with stop_on_signals(deadline_s=1.0):
            try:
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(10**8):  # the handler runs at the next bytecode
                    pass
            except Interrupted:
                ctypes.PyDLL(None).sleep(60)  # a C call that keeps the GIL: the watchdog thread never runs
        """)
    assert code == -signal.SIGALRM and "exiting now" not in output, output
    assert seconds < 30


def test_a_signal_the_kernel_hands_to_another_thread_still_stops_a_main_thread_blocked_in_a_c_call():
    """The hang of a WE job's master under Ctrl-C: the kernel delivered SIGINT to one of its other threads while the
    main thread waited on a lock (a result from workers the same signal stopped), so no handler ran and no deadline
    started. The watching thread forwards it to the main thread, whose wait is then interrupted."""
    code, output, seconds = run("""
        import signal, sys, threading, time
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        held = threading.Lock()
        held.acquire()
        def other_thread():
            time.sleep(0.5)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # delivered to this thread, not the main one
            time.sleep(60)
        with stop_on_signals(deadline_s=3.0):
            threading.Thread(target=other_thread, daemon=True).start()
            started = time.monotonic()
            try:
                held.acquire()  # never released: only the signal ends this wait
            except Interrupted as exc:
                print(f"interrupted after {time.monotonic() - started:.2f} s", flush=True)
                sys.exit(exc.exit_code)
        """)
    assert code == 130 and "interrupted after" in output, output
    assert float(output.split("after ")[1].split(" s")[0]) < 2.0 and seconds < 10  # not the 3-s deadline


def test_a_forked_childs_own_signal_does_not_reach_the_parent():
    """A child forked inside the block inherits the wakeup fd's pipe; its own signals must not be read as the
    parent's (they would be forwarded to the parent's main thread and stop it)."""
    code, output, _ = run("""
        import os, signal, time
        from westbench.runtime.interrupt import Interrupted, stop_on_signals
        with stop_on_signals(deadline_s=3.0):
            child = os.fork()
            if child == 0:
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(5)
                except Interrupted as exc:
                    os._exit(exc.exit_code)
                os._exit(0)
            _, status = os.waitpid(child, 0)
            time.sleep(0.5)  # time for a wrongly forwarded signal to arrive
            print("child", os.waitstatus_to_exitcode(status), "parent went on", flush=True)
        """)
    assert code == 0 and "child 143 parent went on" in output, output


def test_worker_processes_forked_under_it_die_with_their_parent(tmp_path):
    pid_file = tmp_path / "worker.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import multiprocessing, os, time
        from westbench.runtime.interrupt import children_exit_with_parent
        def work():
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(600)
        with children_exit_with_parent():
            multiprocessing.get_context("fork").Process(target=work).start()
        time.sleep(600)
        """),
        ],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline and parent.poll() is None
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        parent.kill()  # SIGKILL: no clean-up runs in the parent
        parent.wait()
        deadline = time.monotonic() + 5
        while os.path.exists(f"/proc/{worker}") and "Z" not in open(f"/proc/{worker}/stat").read().split(")")[1][:3]:
            assert time.monotonic() < deadline, "the worker outlived its parent"
            time.sleep(0.05)
    finally:
        parent.kill()


def test_handlers_are_restored_and_ignored_signals_stay_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    before = signal.getsignal(signal.SIGTERM)  # SIG_DFL, or what the process running the tests installed
    try:
        with stop_on_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN, before)
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert not issubclass(Interrupted, (Exception, KeyboardInterrupt))  # what libraries catch
    assert Interrupted(signal.SIGTERM).code == 143 and str(Interrupted(signal.SIGINT)) == "interrupted by SIGINT"
