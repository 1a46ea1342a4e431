"""Every WE test leaves no process behind: no child of the test process, and no process whose command
line names the test's folder (a ZeroMQ node, its workers, a master started with ``python -c``), outlives it."""

import os
import signal
import time
from pathlib import Path

import pytest

#: Seconds a test's processes get to end after it returns (a node waits for its master's shutdown message).
GRACE_S = 15.0


def processes():
    """{pid: (ppid, state, command line)} of every live (non-zombie) process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if state not in ("Z", "X"):
            out[int(entry.name)] = (int(ppid), state, command)
    return out


def strays(before, folder):
    me = os.getpid()
    return {
        pid: info[2]
        for pid, info in processes().items()
        if pid != me and pid not in before and (info[0] == me or (folder and folder in info[2]))
    }


@pytest.fixture(autouse=True)
def no_process_survives(request):
    if not Path("/proc/self/stat").exists():
        yield
        return
    before = set(processes())
    folder = str(request.getfixturevalue("tmp_path")) if "tmp_path" in request.fixturenames else None
    yield
    deadline = time.monotonic() + GRACE_S
    left = strays(before, folder)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = strays(before, folder)
    for pid in left:  # fail, but leave nothing running for the next test
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not left, f"processes outlived the test: {left}"
