"""Device selection with machines described by fake environments: 0, 1, 2 and 4 GPUs seen through a fake
``nvidia-smi -L`` on PATH or through CUDA_VISIBLE_DEVICES; torch's CUDA counts monkeypatched for the CG engine.
The MD engines themselves are real (OpenMM's Reference platform, a CPU build of torch)."""

import os
import stat

import numpy as np
import pytest
import torch

from westbench.engines import devices
from westbench.engines.devices import DeviceError, refuse_fork_after_cuda, visible_gpus, worker_device
from westbench.resources import we_job_workers


def fake_nvidia_smi(folder, n_gpus):
    """A directory holding an ``nvidia-smi`` that lists ``n_gpus`` H200s as the real ``-L`` does."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(f"echo 'GPU {i}: NVIDIA H200 (UUID: GPU-{i:08d}-0000-0000-0000-000000000000)'\n"
                    for i in range(n_gpus))
    tool = folder / "nvidia-smi"
    tool.write_text(f"#!/bin/sh\n[ \"$1\" = \"-L\" ] || exit 9\n{lines}")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """machine(n): this process now sees n GPUs through nvidia-smi (no CUDA_VISIBLE_DEVICES)."""
    def describe(n_gpus):
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
        monkeypatch.setenv("PATH", f"{fake_nvidia_smi(tmp_path / f'gpus{n_gpus}', n_gpus)}{os.pathsep}/usr/bin:/bin")
    return describe


@pytest.mark.parametrize("n_gpus", [1, 2, 4])
def test_workers_map_onto_the_gpus_nvidia_smi_lists(machine, n_gpus):
    machine(n_gpus)
    assert visible_gpus() == [str(i) for i in range(n_gpus)]
    for worker in range(8):
        device = worker_device({"WM_PROCESS_INDEX": str(worker)})
        assert device == worker % n_gpus and device < n_gpus  # never an ordinal that does not exist


@pytest.mark.parametrize("visible, expected", [("0", [0, 0, 0, 0]), ("2,3", [0, 1, 0, 1]),
                                               ("0,1,2,3", [0, 1, 2, 3]), ("", [None] * 4)])
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


def test_openmm_engine_asks_for_the_workers_gpu_and_fails_loudly_without_it(chignolin_files, machine, monkeypatch):
    """Worker 3 of a 2-GPU machine asks OpenMM for device 1; CUDA is not on this machine, so the context is
    an error naming the platform and the fix (no quiet CPU run), unless platform.fallback opts in."""
    from westbench.engines.openmm_engine import OpenMMEngine
    from westbench.simulation.platforms import PlatformError

    machine(2)
    monkeypatch.setenv("WM_PROCESS_INDEX", "3")
    engine = OpenMMEngine(*chignolin_files, platform={"name": "CUDA", "fallback": []})
    assert engine.platform["device_index"] == 1
    with pytest.raises(PlatformError, match=r"CUDA \(platform.name\).*platform.fallback"):
        engine.propagate([engine.basis_state()], 10, 5, [1])
    fallback = OpenMMEngine(*chignolin_files, platform={"name": "CUDA", "fallback": ["Reference"]})
    assert fallback.propagate([fallback.basis_state()], 10, 5, [1])[0].status == "ok"
    runtime = fallback.runtime()
    assert runtime["requested_platform"] == "CUDA" and runtime["platforms"] == ["Reference"] and runtime["fell_back"]
    assert runtime["contexts"]["single"]["platform"] == "Reference"


def test_cpu_engine_records_its_platform_and_threads(chignolin_files, monkeypatch):
    from westbench.engines.openmm_engine import OpenMMEngine

    monkeypatch.setenv("WM_PROCESS_INDEX", "1")
    engine = OpenMMEngine(*chignolin_files, platform={"name": "CPU", "deterministic": True})
    assert "device_index" not in engine.platform  # CPU platform: no device is asked for
    engine.propagate([engine.basis_state()], 10, 5, [1])
    runtime = engine.runtime()
    assert runtime["platforms"] == ["CPU"] and not runtime["fell_back"]
    assert runtime["contexts"]["single"]["properties"]["Threads"] == "1"


@pytest.fixture
def cg_engine(tmp_path):
    from westbench.cg.engine import CGEngine
    from westbench.cg.model import CGModel, save_model
    from westbench.cg.prior import fit_prior

    chain = np.zeros((1, 5, 3), np.float32)
    chain[0, :, 0] = 0.38 * np.arange(5)
    model = CGModel({"p": "GYDPE"}, network=None, prior={"terms": ["bonds"]})
    model.set_prior("p", fit_prior(chain + np.random.default_rng(0).normal(0, 0.01, (200, 5, 3)), terms=["bonds"]))
    save_model(model, tmp_path / "m.pt")
    return lambda **options: CGEngine(tmp_path / "m.pt", "p", basis_positions=chain[0], bead_mass_amu=100.0, **options)


class FakeCuda:
    """torch.cuda as a machine with ``count`` GPUs would answer (a CPU build of torch answers none)."""

    def __init__(self, monkeypatch, count, bad_fork=False):
        self.current, self.deterministic = None, []
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.setattr(torch.cuda, "_is_in_bad_fork", lambda: bad_fork)
        monkeypatch.setattr(torch.cuda, "set_device", lambda device: setattr(self, "current", torch.device(device)))
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "NVIDIA H200")
        monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda mode, **_: self.deterministic.append(mode))
        monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)


@pytest.mark.parametrize("n_gpus, worker, expected", [(1, 1, 0), (2, 3, 1), (4, 2, 2), (4, 7, 3)])
def test_cg_engine_makes_its_workers_gpu_current(cg_engine, machine, monkeypatch, n_gpus, worker, expected):
    machine(n_gpus)
    cuda = FakeCuda(monkeypatch, n_gpus)
    monkeypatch.setenv("WM_PROCESS_INDEX", str(worker))
    engine = cg_engine(device="cuda")
    assert engine.device == torch.device("cuda", expected)
    assert cuda.current == torch.device("cuda", expected)  # set_device before any capture stream is made
    assert cuda.deterministic == [True] and os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert engine.capture  # cuda_graphs defaults to true
    _ = cg_engine(device="cuda", deterministic=False).device
    assert cuda.deterministic == [True, False]


def test_cg_engine_refuses_a_gpu_it_cannot_have(cg_engine, machine, monkeypatch):
    machine(2)
    monkeypatch.setenv("WM_PROCESS_INDEX", "1")
    FakeCuda(monkeypatch, 1)  # nvidia-smi lists 2, this process sees 1 (a MIG slice, a container)
    with pytest.raises(DeviceError, match="cuda:1 but this process sees 1 GPU"):
        _ = cg_engine(device="cuda").device
    FakeCuda(monkeypatch, 2, bad_fork=True)
    with pytest.raises(DeviceError, match="forked from a process that had initialised CUDA"):
        _ = cg_engine(device="cuda").device
    FakeCuda(monkeypatch, 0)
    with pytest.raises(DeviceError, match="cg.device is 'cuda'"):
        _ = cg_engine(device="cuda").device
    assert cg_engine(device="auto").device == torch.device("cpu")  # auto: the CPU, said so in runtime()
    assert cg_engine(device="auto").runtime()["device_setting"] == "auto"


def test_processes_work_manager_is_refused_once_cuda_is_initialised(monkeypatch):
    refuse_fork_after_cuda("processes")
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    with pytest.raises(DeviceError, match="we.work_manager 'processes'"):
        refuse_fork_after_cuda("processes")
    refuse_fork_after_cuda("zmq")  # nodes are started as new interpreters, not forked from here
    refuse_fork_after_cuda("serial")


def test_capture_failure_is_an_error_unless_auto():
    """A CPU build of torch cannot capture: the same failure a broken capture on a GPU gives."""
    from westbench.cg.engine import BucketedForces, CaptureError

    x = torch.randn(3, 5, 3)
    strict = BucketedForces(lambda y: -2.0 * y, capture=True)
    with pytest.raises(CaptureError, match="cg.cuda_graphs"):
        strict(x)
    lenient = BucketedForces(lambda y: -2.0 * y, capture=True, on_failure="eager")
    assert torch.equal(lenient(x), -2.0 * x) and torch.equal(lenient(x), -2.0 * x)
    summary = lenient.summary()
    assert summary["captured_buckets"] == [] and summary["eager_buckets"] == [4]
    assert "for 4 walkers" in summary["capture_failure"]


def test_runtime_records_reach_the_run_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("WEST_SIM_ROOT", str(tmp_path))
    monkeypatch.setenv("WM_PROCESS_INDEX", "2")
    devices.record_runtime({"platform": "CUDA", "device": "cuda:2"})
    devices.record_runtime({"platform": "CUDA", "device": "cuda:2", "captured_buckets": [128]})
    (record,) = devices.collect_runtime(tmp_path)  # one file per worker, the latest record
    assert record["worker"] == "2" and record["captured_buckets"] == [128]
