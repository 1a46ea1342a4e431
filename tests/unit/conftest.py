"""Machines described by fake environments for the device tests (westbench.devices and the engines on it)."""

import os
import stat

import pytest


def fake_nvidia_smi(folder, n_gpus):
    """A directory holding an ``nvidia-smi`` that lists ``n_gpus`` H200s as the real ``-L`` does."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(
        f"echo 'GPU {i}: NVIDIA H200 (UUID: GPU-{i:08d}-0000-0000-0000-000000000000)'\n" for i in range(n_gpus)
    )
    tool = folder / "nvidia-smi"
    tool.write_text(f'#!/bin/sh\n[ "$1" = "-L" ] || exit 9\n{lines}')
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """machine(n): this process now sees n GPUs through nvidia-smi (no CUDA_VISIBLE_DEVICES)."""

    def describe(n_gpus):
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
        monkeypatch.setenv("PATH", f"{fake_nvidia_smi(tmp_path / f'gpus{n_gpus}', n_gpus)}{os.pathsep}/usr/bin:/bin")

    return describe
