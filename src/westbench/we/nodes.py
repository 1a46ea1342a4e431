"""Start the ZeroMQ nodes of a WE run from its master: ``srun`` across a SLURM allocation, else one here.

Each node is a process of :mod:`westbench.we.node` running ``n_workers`` WESTPA workers; the master
(:func:`westbench.we.run.run_we` with ``work_manager="zmq"``) starts them once it has written its
endpoints and stops them after each round of ``w_run``.

Examples
--------
>>> node_command(Path("/runs/we"), 4)[-4:]
['westbench.we.node', '/runs/we', '--workers', '4']
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)


def node_command(run_dir: Path, n_workers: int) -> list[str]:
    """The command that starts the ZeroMQ nodes: one per allocated node under SLURM, else one here.

    Inside a SLURM allocation (``SLURM_JOB_ID``) it is ``srun`` with one task per node of the
    allocation (``SLURM_JOB_NUM_NODES``, from the rule's ``nodes`` resource), each running
    :mod:`westbench.we.node` with ``n_workers`` workers.
    """
    node = [sys.executable, "-m", "westbench.we.node", str(run_dir), "--workers", str(n_workers)]
    if os.environ.get("SLURM_JOB_ID") and shutil.which("srun"):
        nodes = os.environ.get("SLURM_JOB_NUM_NODES", "1")
        return ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", "--overlap", *node]
    return node


@contextlib.contextmanager
def zmq_nodes(run_dir: Path, n_workers: int, startup_timeout_s: float = 120.0):
    """Start the node processes once the master has written its endpoints; stop them after the round."""
    host_info = run_dir / "zmq_host_info.json"
    host_info.unlink(missing_ok=True)
    processes: list[subprocess.Popen] = []
    stop = threading.Event()
    source = str(Path(__file__).resolve().parents[2])  # the nodes import westbench (and the engine) from here
    env = {k: v for k, v in os.environ.items() if not k.startswith("WM_")}  # the master's settings are not the nodes'
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))

    def launch():
        deadline = time.monotonic() + startup_timeout_s
        while not host_info.exists():
            if stop.is_set() or time.monotonic() > deadline:
                return
            time.sleep(0.05)
        command = node_command(run_dir, n_workers)
        log.info("starting WESTPA nodes: %s", " ".join(command))
        processes.append(subprocess.Popen(command, env=env, cwd=run_dir))

    launcher = threading.Thread(target=launch, daemon=True)
    launcher.start()
    grace = 60.0  # after a finished round the master has told the nodes to stop
    try:
        yield
    except BaseException:
        grace = 3.0  # interrupted or failed: the nodes' workers ignore signals and would wait for the master
        for process in processes:
            process.terminate()
        raise
    finally:
        stop.set()
        launcher.join()
        for process in processes:
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
