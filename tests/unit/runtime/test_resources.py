"""The thread and GPU policy (westbench.runtime.resources) against the rules' uses of it."""

import pytest

from westbench.config import section_defaults
from westbench.runtime.resources import engine_threads, job_gpus, job_threads, we_workers

CPU = {**section_defaults("platform"), "name": "CPU", "cpu_threads": 4}


@pytest.mark.parametrize("deterministic, expected", [(True, 1), (False, 4)])
def test_openmm_on_the_cpu_uses_one_thread_only_when_deterministic(deterministic, expected):
    assert job_threads("openmm", {**CPU, "deterministic": deterministic}) == expected


@pytest.mark.parametrize("name", ["CUDA", "OpenCL", "HIP"])
def test_openmm_on_a_gpu_takes_one_host_thread_and_one_gpu(name):
    platform = {**CPU, "name": name, "deterministic": False}
    assert job_threads("openmm", platform) == 1
    assert job_gpus("openmm", platform) == 1
    assert job_gpus("openmm", CPU) == 0


def test_torch_ignores_openmm_determinism_and_follows_cg_device():
    assert job_threads("torch", {**CPU, "deterministic": True}) == 4
    assert [job_gpus("torch", CPU, device=d) for d in ("cpu", "auto", "cuda")] == [0, 0, 1]
    assert job_gpus("torch", {**CPU, "name": "CUDA"}, device="auto") == 1
    assert job_gpus("torch", {**CPU, "name": "CUDA"}, device="cpu") == 0


@pytest.mark.parametrize("work", ["openmm", "torch"])
def test_a_parallel_we_job_runs_one_single_threaded_worker_per_thread(work):
    threads = job_threads(work, {**CPU, "deterministic": True}, work_manager="processes")
    assert threads == 4
    assert we_workers(threads, "processes") == 4 and engine_threads(threads, "processes") == 1
    assert we_workers(3, "serial") == 1 and engine_threads(3, "serial") == 3


def test_the_schema_default_keeps_the_laptop_run_on_two_cores():
    assert section_defaults("platform")["cpu_threads"] == 2


def test_unknown_work_is_refused():
    with pytest.raises(ValueError, match="work must be one of"):
        job_threads("gromacs", CPU)
