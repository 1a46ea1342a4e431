"""The device policy (westbench.runtime.devices) with machines described by fake environments: 0, 1, 2 and 4 GPUs seen
through a fake ``nvidia-smi -L`` on PATH (the ``machine`` fixture, tests/unit/conftest.py) or through
CUDA_VISIBLE_DEVICES; torch's CUDA state monkeypatched."""

import os
import re

import pytest
import torch

from westbench.cg.torch_device import torch_device
from westbench.config import load_schema
from westbench.runtime.devices import (
    GPU_PLATFORMS,
    DeviceError,
    is_gpu_platform,
    refuse_fork_after_cuda,
    resolve_batch_walkers,
    visible_gpus,
    worker_device,
)
from westbench.runtime.resources import we_job_workers
from westbench.simulation.platforms import platform_properties

from ...conftest import REPO


@pytest.mark.parametrize("n_gpus", [1, 2, 4])
def test_workers_map_onto_the_gpus_nvidia_smi_lists(machine, n_gpus):
    machine(n_gpus)
    assert visible_gpus() == [str(i) for i in range(n_gpus)]
    for worker in range(8):
        device = worker_device({"WM_PROCESS_INDEX": str(worker)})
        assert device == worker % n_gpus and device < n_gpus  # never an ordinal that does not exist


@pytest.mark.parametrize(
    "visible, expected", [("0", [0, 0, 0, 0]), ("2,3", [0, 1, 0, 1]), ("0,1,2,3", [0, 1, 2, 3]), ("", [None] * 4)]
)
def test_cuda_visible_devices_wins_over_nvidia_smi(machine, monkeypatch, visible, expected):
    """SLURM's --gpus sets CUDA_VISIBLE_DEVICES to the job's GPUs; CUDA numbers them from 0."""
    machine(4)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert [worker_device({**os.environ, "WM_PROCESS_INDEX": str(w)}) for w in range(4)] == expected


def test_a_machine_without_gpus_gives_no_device(tmp_path, monkeypatch):
    """No nvidia-smi and no CUDA_VISIBLE_DEVICES: no device, whatever WM_N_WORKERS says (it used to be the divisor)."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert visible_gpus() == []
    assert worker_device({"WM_PROCESS_INDEX": "1", "WM_N_WORKERS": "2"}) is None


@pytest.mark.parametrize("n_gpus", [1, 2, 4])
def test_gpu_engines_run_one_worker_per_gpu(machine, n_gpus):
    machine(n_gpus)
    cuda, cpu = {"name": "CUDA"}, {"name": "CPU"}
    assert we_job_workers("openmm", 16, "processes", cuda) == n_gpus
    assert we_job_workers("torch", 16, "processes", cpu, device="cuda") == n_gpus
    assert we_job_workers("torch", 16, "zmq", cpu, device="auto") == n_gpus  # auto takes the GPUs present
    assert we_job_workers("openmm", 16, "processes", cpu) == 16  # CPU engines: one worker per thread
    assert we_job_workers("torch", 16, "processes", cpu, device="cpu") == 16
    assert we_job_workers("openmm", 16, "serial", cuda) == 1


def test_processes_work_manager_is_refused_once_cuda_is_initialised(monkeypatch):
    refuse_fork_after_cuda("processes")
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    with pytest.raises(DeviceError, match="we.work_manager 'processes'"):
        refuse_fork_after_cuda("processes")
    refuse_fork_after_cuda("zmq")  # nodes are started as new interpreters, not forked from here
    refuse_fork_after_cuda("serial")


def test_cuda_without_a_gpu_is_an_error_never_a_cpu_run(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="cg.device"):
        torch_device("cuda")
    assert torch_device("auto").type == "cpu" and torch_device("cpu").type == "cpu"


def test_every_gpu_platform_is_treated_as_one():
    for name in GPU_PLATFORMS:
        assert is_gpu_platform(name)
        assert platform_properties(name, {"precision": "single"})["Precision"] == "single"
        assert resolve_batch_walkers("auto", name, 64) == 64
    for name in ("CPU", "Reference"):
        assert not is_gpu_platform(name)
        assert resolve_batch_walkers("auto", name, 64) == 1


def test_schema_accepts_every_gpu_platform():
    platform = load_schema()["properties"]["platform"]["properties"]
    assert set(GPU_PLATFORMS) <= set(platform["name"]["enum"])
    assert set(GPU_PLATFORMS) <= set(platform["fallback"]["items"]["enum"])


def test_no_other_copy_of_the_platform_list():
    """No module or rule spells the GPU platforms out itself (the list drifted about HIP before)."""
    pattern = re.compile(r"""["']CUDA["']\s*,\s*["']OpenCL["']""")
    files = [*(REPO / "src").rglob("*.py"), *(REPO / "rules").glob("*.smk"), *(REPO / "scripts").glob("*.py")]
    copies = [str(f.relative_to(REPO)) for f in files if pattern.search(f.read_text())]
    assert copies == ["src/westbench/runtime/devices.py"]
