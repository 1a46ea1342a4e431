"""A WESTPA ZeroMQ node: the workers of one compute node, serving the master of a multi-node WE run.

The master (:func:`westbench.we.run.run_we` with ``work_manager="zmq"``) writes its endpoints to
``<run_dir>/zmq_host_info.json``; each node reads them and runs ``--workers`` workers, every one
building the run's engine and propagating the segments the master sends. On SLURM one node process
runs per allocated node (``srun --ntasks-per-node=1``, see :func:`westbench.we.nodes.node_command`).

    python -m westbench.we.node RUN_DIR --workers N

A node holds no state (the master owns ``west.h5``), so it ends at once, with its workers:

- on SIGTERM, SIGINT or SIGHUP (WESTPA's node ignores them, so a node used to outlive ``kill``);
- when its master goes: the node watches its parent process (:func:`watch_parent`) and exits when it
  is re-parented. (Not ``PR_SET_PDEATHSIG``: the kernel sends that signal when the parent *thread*
  that started the node ends, and the master starts nodes from a short-lived launcher thread.)
- its workers and their executors, forked by WESTPA, get the parent-death signal (SIGKILL) through
  :func:`westbench.runtime.interrupt.children_exit_with_parent`, so they die with the node.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

from westbench.runtime.interrupt import STOP_SIGNALS, children_exit_with_parent

log = logging.getLogger(__name__)


#: Seconds between the master's announcements. WESTPA's default (20 s) is also how often it repeats "tasks
#: available": workers that connect after the master queued a round's tasks (every round: the nodes start
#: after the master) sat idle for up to 20 s, and any announcement they miss costs another 20 s.
MASTER_HEARTBEAT_S = 1.0
#: Seconds between a worker's heartbeats: WESTPA's default, set here since the master's wait below follows from it.
WORKER_HEARTBEAT_S = 20.0
#: Heartbeats a peer may miss before it counts as gone. Times the master heartbeat, it is how long a worker
#: waits on a silent master and on each reply (100 s, WESTPA's default); times the worker heartbeat
#: it is how long the master waits on a worker: a worker identifies itself once and is then silent
#: while it propagates, so this bounds one segment's wall time (2000 s instead of WESTPA's 100 s).
TIMEOUT_FACTOR = 100.0


def zmq_environment(run_dir: Path, mode: str, n_workers: int) -> dict[str, str]:
    """WESTPA work-manager settings (its WM_* variables) of a master or a node of one run.

    Master and nodes get the same heartbeat and timeouts (:data:`MASTER_HEARTBEAT_S`, :data:`TIMEOUT_FACTOR`).

    Examples
    --------
    >>> env = zmq_environment(Path("/runs/we"), "node", 4)
    >>> env["WM_ZMQ_MODE"], env["WM_N_WORKERS"], env["WM_ZMQ_READ_HOST_INFO"]
    ('node', '4', '/runs/we/zmq_host_info.json')
    >>> env["WM_ZMQ_MASTER_HEARTBEAT"], env["WM_ZMQ_TIMEOUT_FACTOR"]
    ('1.0', '100.0')
    """
    host_info = str(Path(run_dir) / "zmq_host_info.json")
    env = {
        "WM_WORK_MANAGER": "zmq",
        "WM_ZMQ_MODE": mode,
        "WM_N_WORKERS": str(n_workers),
        "WM_ZMQ_COMM_MODE": "tcp",  # nodes do not share the master's /tmp for ipc sockets
        "WM_ZMQ_MASTER_HEARTBEAT": str(MASTER_HEARTBEAT_S),
        "WM_ZMQ_WORKER_HEARTBEAT": str(WORKER_HEARTBEAT_S),
        "WM_ZMQ_TIMEOUT_FACTOR": str(TIMEOUT_FACTOR),
    }
    env["WM_ZMQ_WRITE_HOST_INFO" if mode == "master" else "WM_ZMQ_READ_HOST_INFO"] = host_info
    return env


def end_node(reason: str, code: int) -> None:
    """Kill this node's worker processes and exit with ``code`` (callable from any thread)."""
    try:
        os.write(2, f"westbench node {os.getpid()}: {reason}; stopping its workers\n".encode())
        for child in multiprocessing.active_children():
            if child.pid:
                os.kill(child.pid, signal.SIGKILL)
    finally:
        os._exit(code)


def watch_parent(parent: int | None = None, interval_s: float = 0.5) -> threading.Thread:
    """Start a daemon thread that ends this process (:func:`end_node`) once ``parent`` is no longer its parent.

    Examples
    --------
    A process told its parent is another one ends at once, with status 128 + SIGTERM:

    >>> import subprocess, sys, westbench
    >>> env = {**os.environ, "PYTHONPATH": str(Path(westbench.__file__).parents[1])}
    >>> code = ("import os, time; from westbench.we.node import watch_parent; "
    ...         "watch_parent(os.getppid() + 1); time.sleep(30)")
    >>> subprocess.run([sys.executable, "-c", code], env=env, stderr=subprocess.DEVNULL).returncode
    143
    """
    parent = os.getppid() if parent is None else int(parent)

    def watch():
        while True:
            if os.getppid() != parent:
                end_node(f"its master (pid {parent}) is gone", 128 + signal.SIGTERM)
            time.sleep(interval_s)

    thread = threading.Thread(target=watch, name="westbench-node-parent-watch", daemon=True)
    thread.start()
    return thread


def _stop_on_signal(signum, frame) -> None:
    end_node(f"received {signal.Signals(signum).name}", 128 + signum)


def serve(run_dir: str | Path, n_workers: int) -> None:
    """Run this node's workers until the master shuts them down, dies, or a stop signal arrives."""
    import westpa
    from westpa.cli.core import w_run
    from westpa.core import _rc

    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop_on_signal)
    watch_parent()
    run_dir = Path(run_dir).resolve()
    os.environ.update({"WEST_SIM_ROOT": str(run_dir), **zmq_environment(run_dir, "node", n_workers)})
    os.chdir(run_dir)
    westpa.rc = _rc.WESTRC()
    westpa.rc.read_config(str(run_dir / "west.cfg"))
    westpa.rc.process_config()
    with children_exit_with_parent():  # WESTPA's workers (and their executors) die with this node
        w_run.run_simulation()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--workers", type=int, default=1, help="workers on this node (one per core or GPU)")
    args = parser.parse_args(argv)
    serve(args.run_dir, args.workers)


if __name__ == "__main__":
    main()
