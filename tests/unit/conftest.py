"""Unit-tier fixtures: machines described by fake environments for the device tests (westbench.runtime.devices and the
engines on it), and the parsed workflow of the embedded default config."""

import os
import stat
from pathlib import Path

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


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workflow(tmp_path_factory):
    """The parsed workflow of the embedded default config (rules, config, input functions)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import OutputSettings, ResourceSettings

    cwd = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings()) as api:
            yield api.workflow(
                resource_settings=ResourceSettings(),
                snakefile=REPO / "Snakefile",
                workdir=tmp_path_factory.mktemp("parsed"),
            )._workflow
    finally:
        os.chdir(cwd)
