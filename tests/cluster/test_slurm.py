"""The embedded default DAG through the SLURM profile on a real single-node SLURM (installed by the project).

The DAG test starts from a copy of the session's local default run with the jobs it must see submitted
removed, and compares what SLURM recomputed with the local run.

`tools/slurm/setup-slurm.sh` installs and starts munge, slurmctld and slurmd with partitions cpu and gpu
and two fake GPUs. The run uses `profiles/slurm` as shipped, with the CI overrides a user would make in
the marked place (account) plus what this 2-core, offline machine needs: no conda (conda-forge is not
reachable; jobs use the test's environment), squeue for status (no accounting database), and at most
one core and 2 GB per job so that two jobs run side by side.
"""

import json
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest
import yaml

from ..conftest import REPO, snakemake

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

# Rules that only gather inputs: Snakemake finishes them itself, nothing is submitted.
TARGET_RULES = {"all"}


@pytest.fixture(scope="module")
def slurm():
    result = subprocess.run(
        ["bash", str(REPO / "tools" / "slurm" / "setup-slurm.sh")], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def ci_profile(folder):
    """profiles/slurm with the CI overrides; every per-rule entry (partition, gpu, runtime) kept."""
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    profile["default-resources"].update(slurm_account="ci", mem_mb=1000)
    for key in ("software-deployment-method", "conda-prefix"):
        profile.pop(key, None)
    profile.update({"slurm-status-command": "squeue", "slurm-init-seconds-before-status-checks": 2, "jobs": 4})
    profile["resources"] = ["gpu_slots=2"]  # two cores: two runs of a packed group side by side
    profile["slurm-keep-successful-logs"] = True  # the test reads which jobs each allocation ran
    for resources in profile["set-resources"].values():
        resources.update(cpus_per_task=1, mem_mb=2000)
    profile["set-threads"] = {rule: 1 for rule in profile["set-threads"]}
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(profile))
    return folder


def slurm_jobs(workdir):
    """{job id: fields} of every SLURM job run from ``workdir`` (finished jobs stay visible for an hour)."""
    listing = subprocess.run(["scontrol", "show", "job", "-o"], capture_output=True, text=True).stdout
    jobs = {}
    for line in listing.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if fields.get("WorkDir") == str(workdir):
            jobs[fields["JobId"]] = fields
    return jobs


#: The jobs of the targets' DAG the test removes the outputs of (see below), each once but the metric suite, once
#: per target.
RESUBMITTED = {
    "build_system": 1,
    "groundtruth_run": 3,
    "fit_tica": 1,
    "macrostates": 1,
    "we_run": 1,
    "we_export": 1,
    "metric_suite": 2,
}


def test_default_dag_runs_through_sbatch_and_matches_a_local_run(slurm, default_run, tmp_path):
    # The finished local run (its outputs with their times and Snakemake's records) minus what this test must see
    # submitted: the explicit system (build_system), one ground-truth run (groundtruth_run), and what depends on
    # them: the TICA fit and its macrostates, the explicit WE run (we_run: its whole folder, or it would resume
    # the finished run) and its export, and both metric suites. Snakemake takes the rest of the targets' DAG
    # (structure, implicit system, starts, the other runs) as finished. So every GPU rule of the profile that the
    # targets need goes through sbatch but groundtruth_starts (its entry merges the same `<<: *gpu_job` as the
    # three submitted); rerunning the whole DAG instead cost CI about five minutes.
    workdir = tmp_path / "slurm"
    shutil.copytree(default_run, workdir, symlinks=True)
    local, cluster = default_run / "results" / "chignolin", workdir / "results" / "chignolin"
    starts = sorted(p.name for p in (cluster / "groundtruth" / "runs").iterdir())
    for suffix in (".xml", "_state.xml", ".pdb", ".json"):
        (cluster / "prepare" / f"explicit{suffix}").unlink()
    for folder in (
        *(f"groundtruth/runs/{s}" for s in starts),
        "tica",
        "we/explicit",
        "metrics/explicit",
        "metrics/groundtruth",
    ):
        shutil.rmtree(cluster / folder)
    kept = {
        p: p.stat().st_mtime_ns
        for folder in (cluster / "groundtruth" / "starts", cluster / "we" / "implicit")
        for p in folder.rglob("*")
        if p.is_file()
    }
    # The OpenMM engines of the main study only (the calibration study's and the CG presets' jobs are none of the
    # targets'). Of those, the explicit engine's scores and the ground truth's; the implicit engine's replicas,
    # the tables and the report are local-run tests' business.
    main_study = tmp_path / "main-study.yaml"
    main_study.write_text("calibration: {enabled: false}\nwe: {engines: [implicit, explicit]}\n")
    targets = [f"results/chignolin/metrics/{engine}/metrics.json" for engine in ("explicit", "groundtruth")]
    result = snakemake(
        workdir,
        *targets,
        "--profile",
        ci_profile(tmp_path / "profile"),
        "--configfile",
        REPO / "config" / "config.yaml",
        main_study,
        configfile=None,
        timeout=2400,
    )
    assert result.returncode == 0, result.output[-4000:]

    # Every job went through sbatch, under the rule's own resources.
    stats = dict(
        re.findall(r"^(\w+)\s+(\d+)$", result.output.split("Job stats:", 1)[1].split("\n\n", 1)[0], re.MULTILINE)
    )
    expected = {rule: int(count) for rule, count in stats.items() if rule not in TARGET_RULES | {"total"}}
    assert expected == RESUBMITTED  # the removed jobs, nothing the copy holds finished
    jobs = slurm_jobs(workdir)
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    submitted, groups = {}, {}
    for fields in jobs.values():
        assert fields["JobState"] == "COMPLETED", fields
        # A packed group's allocation is named <group id>_<its rules> (Snakemake's GroupJob.name).
        name = re.match(r"rule_(\w+?)(?:_wildcards|$)", fields["Comment"]).group(1)
        if name.startswith(("groundtruth_", "prepare_")) and name not in expected:
            log = open(fields["StdOut"]).read()
            # Each job of the allocation, once: Snakemake logs a job's block (rule, ..., wildcards) more than once.
            blocks = re.findall(r"^\s*(?:localrule|rule) (\w+):\n((?:[ \t]+\w+: .*\n)*)", log, re.MULTILINE)
            jobs_of = {(rule, re.search(r"wildcards: (.*)", block).group(1)) for rule, block in blocks}
            members = [rule for rule, _ in sorted(jobs_of)]
            groups[name] = members
            rules = set(members)
        else:
            rules = {name}
        for rule in rules:
            count = members.count(rule) if rules != {name} else 1
            submitted[rule] = submitted.get(rule, 0) + count
            entry = profile["set-resources"].get(rule, {})
            wants_gpu = entry.get("gpu", 0) or "gpu" in str(entry.get("gres", ""))
            assert ("gpu" in fields.get("TresPerJob", "") or "gpu" in fields.get("TresPerNode", "")) == bool(
                wants_gpu
            ), (rule, fields.get("TresPerJob"), fields.get("TresPerNode"))
            assert fields["Partition"] == ("gpu" if wants_gpu else "cpu"), (rule, fields["Partition"])
    assert submitted == expected
    # The three ground-truth runs went as ONE allocation (the packed group), not three.
    assert [sorted(members) for group, members in groups.items() if group.startswith("groundtruth_chignolin")] == [
        ["groundtruth_run"] * 3
    ], groups
    assert len(jobs) == sum(expected.values()) - 2
    # The accounting (sacct's job-completion records; the test cluster keeps no accounting database) has one record
    # per allocation, each completed, the packed group's among them on the GPU partition.
    accounting = subprocess.run(
        ["sacct", "-c", "-n", "-P", "-o", "JobID,Partition,State", "-j", ",".join(jobs)],
        capture_output=True,
        text=True,
    ).stdout
    records = {line.split("|")[0]: line.split("|")[1:] for line in accounting.splitlines() if line.strip()}
    assert set(records) == set(jobs), accounting
    assert all(state == "COMPLETED" for _, state in records.values()), accounting
    assert {"groundtruth_run", "we_run", "build_system"} <= {
        r for r in submitted if set(profile["set-resources"].get(r, {})) & {"gpu", "gres"}
    }
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # the starts and the implicit runs: not recomputed

    # Outputs equal those of the local run (deterministic platform: one thread, seeded everything).
    for name in (
        *(f"groundtruth/runs/{s}/frames.h5" for s in starts),
        "tica/groundtruth_frames.h5",
        "we/explicit/frames.h5",
    ):
        with h5py.File(local / name) as a, h5py.File(cluster / name) as b:
            assert set(a) == set(b)
            for key in a:
                assert np.array_equal(a[key][()], b[key][()]), (name, key)
    for engine in ("explicit", "groundtruth"):
        a = json.loads((local / "metrics" / engine / "metrics.json").read_text())["metrics"]
        b = json.loads((cluster / "metrics" / engine / "metrics.json").read_text())["metrics"]
        assert a == b, engine


def test_multi_node_we_mode_starts_its_nodes_with_srun(slurm, tmp_path):
    """we.work_manager zmq inside a SLURM job: a ZeroMQ master plus one node process per allocated node
    (srun), here on the toy engine for three iterations."""
    import os
    import sys

    script = tmp_path / "zmq_run.py"
    script.write_text(
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stdout)\n"
        "from westbench.we.run import run_we\n"
        "from tests.unit.we.test_we_toy import CFG\n"
        f"print(run_we({str(tmp_path / 'run')!r}, cfg=CFG, segs_per_state=3, max_iterations=3, work_manager='zmq',"
        " n_workers=1))\n"
    )
    log = tmp_path / "job.log"
    result = subprocess.run(
        [
            "sbatch",
            "--wait",
            "--nodes=1",
            "--cpus-per-task=1",
            "--mem=2000",
            "-p",
            "cpu",
            "-o",
            str(log),
            f"--export=ALL,PYTHONPATH={REPO / 'src'}{os.pathsep}{REPO}",
            "--wrap",
            f"{sys.executable} {script}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = log.read_text() if log.exists() else ""
    assert result.returncode == 0, result.stderr + output[-3000:]
    assert "starting WESTPA nodes: srun --nodes=1" in output and "'iterations': 3" in output, output[-3000:]
