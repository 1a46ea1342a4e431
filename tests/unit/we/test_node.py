"""ZeroMQ node processes end with their master: on SIGTERM, and when the master is killed outright
(SIGKILL, as a scheduler or the OOM killer does); their workers go with them."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import processes
from .test_we_toy import CFG

pytestmark = pytest.mark.slow

#: Holds a sitecustomize that logs WESTPA's work-manager records of every process of a run to files.
DEBUG_LOG = Path(__file__).parent / "zmq_debug_log"

SLOW = {**CFG, "engine": {"class": "tests.unit.we.toy:SlowDoubleWell", "options": CFG["engine"]["options"]}}


def start_master(run_dir):
    """A ZeroMQ master in its own interpreter with a local node of two workers, running long enough to be killed."""
    from ...conftest import REPO, source_env

    script = (
        "from westbench.we.run import run_we\n"
        f"run_we({str(run_dir)!r}, cfg={SLOW!r}, segs_per_state=3, max_iterations=500, work_manager='zmq', "
        "n_workers=2)\n"
    )
    logs = run_dir.parent / "wm-logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = {
        **source_env(),
        "PYTHONPATH": os.pathsep.join([str(DEBUG_LOG), str(REPO / "src"), str(REPO)]),
        "ZMQ_DEBUG_LOG_DIR": str(logs),
    }
    return subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def node_and_workers(run_dir):
    """pids of the node process (started by the master) and of every process of that node (workers, executors)."""
    mine = {
        pid: info for pid, info in processes().items() if "westbench.we.node" in info[2] and str(run_dir) in info[2]
    }
    nodes = [pid for pid, info in mine.items() if info[0] not in mine]
    return nodes, set(mine)


def wait_for_work(master, run_dir, timeout_s=120):
    """Wait until the node's workers have propagated a whole iteration (its frames file, which stays).

    Not the per-segment files of iteration 2, which the test waited for before: the master joins and
    removes them after the iteration's last segment, so they are there for about 0.1 s, and a poll every
    0.1 s on a busy machine missed them and waited in vain while the run went on (two CI failures).
    """
    from westbench.we.store import SegmentStore

    first_iteration = SegmentStore(run_dir / "segments").frames_path(1)
    deadline = time.monotonic() + timeout_s
    while not first_iteration.exists():
        assert master.poll() is None, master.stderr.read()[-3000:]
        if time.monotonic() >= deadline:
            # what the master, its node and the workers said (they share its stderr) and who was still running
            running, files = node_and_workers(run_dir), sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*"))
            master.kill()
            said = master.communicate()[1][-3000:]
            logs = {
                p.name: p.read_text().splitlines()[-25:] for p in sorted((run_dir.parent / "wm-logs").glob("*.log"))
            }
            raise AssertionError(
                f"the ZeroMQ run did not get going: nodes {running}, run folder {files[:40]}, said: {said}, "
                f"work-manager logs (last lines): {logs}"
            )
        time.sleep(0.1)
    nodes, everyone = node_and_workers(run_dir)
    assert len(nodes) == 1 and len(everyone) >= 3  # the node and its two workers (and their executors)
    return nodes[0], everyone


def wait_until_gone(pids, timeout_s=15):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        alive = pids & set(processes())
        if not alive:
            return set()
        time.sleep(0.1)
    return pids & set(processes())


def test_a_node_ends_with_its_workers_on_sigterm(tmp_path):
    run_dir = tmp_path / "zmq"
    master = start_master(run_dir)
    try:
        node, everyone = wait_for_work(master, run_dir)
        os.kill(node, signal.SIGTERM)
        assert wait_until_gone(everyone) == set()
    finally:
        master.kill()
        master.wait()


def test_a_node_ends_with_its_workers_when_its_master_is_killed(tmp_path):
    run_dir = tmp_path / "zmq"
    master = start_master(run_dir)
    try:
        _, everyone = wait_for_work(master, run_dir)
    finally:
        master.kill()  # SIGKILL: the master runs no clean-up at all
        master.wait()
    assert wait_until_gone(everyone) == set()
