"""The WE job's one decision of work and workers (westbench.we.engine_entry.job_workers): what the engine spec and the
job's run share, asked of westbench.engines.kinds."""

import pytest

from westbench.config import ConfigError
from westbench.engines.kinds import CG, OPENMM, USER
from westbench.we.engine_entry import engine_spec, job_workers, max_walkers_per_worker

SETTINGS = {"bins_per_tic": 7, "walkers_per_bin": 3, "work_manager": "processes", "batch_walkers": 1}


@pytest.mark.parametrize(
    ("kind", "user"),
    [(OPENMM, None), (CG, None), (USER, {"work": "openmm"}), (USER, {"work": "torch"})],
)
def test_cpu_workers_follow_the_threads_under_a_parallel_work_manager(kind, user):
    assert job_workers(kind, 3, SETTINGS, platform={"name": "CPU"}, cg={"device": "cpu"}, user=user) == 3
    assert job_workers(kind, 3, {**SETTINGS, "work_manager": "serial"}, platform={"name": "CPU"}, user=user) == 1


@pytest.mark.parametrize("kind", ["groundtruth", "external", USER])
def test_a_kind_without_a_we_job_or_a_user_kind_without_its_entry_is_a_config_error(kind):
    with pytest.raises(ConfigError, match="we.engines entry|runs no WE job"):
        job_workers(kind, 2, SETTINGS, platform={"name": "CPU"})


def test_the_engine_spec_shares_an_iteration_among_the_same_workers():
    inputs = {"model": "m.pt", "basis": "b.pdb"}
    cg = {"langevin": {}, "explosion": {}, "device": "cpu"}
    spec = engine_spec(CG, inputs, protein="p", settings=SETTINGS, job_threads=2, cg=cg)
    workers = job_workers(CG, 2, SETTINGS, cg=cg)
    assert workers == 2
    assert spec["block_size"] == max_walkers_per_worker(SETTINGS, workers)
