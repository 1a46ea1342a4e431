"""A WESTPA ZeroMQ node: the workers of one compute node, serving the master of a multi-node WE run.

The master (:func:`westbench.we.run.run_we` with ``work_manager="zmq"``) writes its endpoints to
``<run_dir>/zmq_host_info.json``; each node reads them and runs ``--workers`` workers, every one
building the run's engine and propagating the segments the master sends. On SLURM one node process
runs per allocated node (``srun --ntasks-per-node=1``, see :func:`westbench.we.run.node_command`).

    python -m westbench.we.node RUN_DIR --workers N
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def zmq_environment(run_dir: Path, mode: str, n_workers: int) -> dict[str, str]:
    """WESTPA work-manager settings (its WM_* variables) of a master or a node of one run.

    Examples
    --------
    >>> env = zmq_environment(Path("/runs/we"), "node", 4)
    >>> env["WM_ZMQ_MODE"], env["WM_N_WORKERS"], env["WM_ZMQ_READ_HOST_INFO"]
    ('node', '4', '/runs/we/zmq_host_info.json')
    """
    host_info = str(Path(run_dir) / "zmq_host_info.json")
    env = {"WM_WORK_MANAGER": "zmq", "WM_ZMQ_MODE": mode, "WM_N_WORKERS": str(n_workers),
           "WM_ZMQ_COMM_MODE": "tcp"}  # tcp: nodes do not share the master's /tmp for ipc sockets
    env["WM_ZMQ_WRITE_HOST_INFO" if mode == "master" else "WM_ZMQ_READ_HOST_INFO"] = host_info
    return env


def serve(run_dir: str | Path, n_workers: int) -> None:
    """Run this node's workers until the master shuts them down."""
    import westpa
    from westpa.cli.core import w_run
    from westpa.core import _rc

    run_dir = Path(run_dir).resolve()
    os.environ.update({"WEST_SIM_ROOT": str(run_dir), **zmq_environment(run_dir, "node", n_workers)})
    os.chdir(run_dir)
    westpa.rc = _rc.WESTRC()
    westpa.rc.read_config(str(run_dir / "west.cfg"))
    westpa.rc.process_config()
    w_run.run_simulation()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--workers", type=int, default=1, help="workers on this node (one per core or GPU)")
    args = parser.parse_args(argv)
    serve(args.run_dir, args.workers)


if __name__ == "__main__":
    main()
