"""The engines on the device policy (westbench.runtime.devices).

Machines are described by a fake ``nvidia-smi -L`` on PATH (the ``machine`` fixture, tests/unit/conftest.py),
torch's CUDA counts monkeypatched for the CG engine. The MD engines themselves are real (OpenMM's Reference
platform, a CPU build of torch)."""

import os

import numpy as np
import pytest
import torch

from westbench.runtime.devices import DeviceError


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
