"""The master's launch command for its ZeroMQ nodes (westbench.we.nodes): srun across a SLURM allocation."""

import os
import stat
import sys
from pathlib import Path

from westbench.we.nodes import node_command


def test_one_node_here_outside_slurm(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    assert node_command(Path("/run"), 3) == [sys.executable, "-m", "westbench.we.node", "/run", "--workers", "3"]


def test_one_task_per_allocated_node_under_slurm(monkeypatch, tmp_path):
    srun = tmp_path / "srun"
    srun.write_text("#!/bin/sh\n")
    srun.chmod(srun.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "4")
    command = node_command(Path("/run"), 2)
    assert command[:5] == ["srun", "--nodes=4", "--ntasks=4", "--ntasks-per-node=1", "--overlap"]
    assert command[-4:] == ["westbench.we.node", "/run", "--workers", "2"]
