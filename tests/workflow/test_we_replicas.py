"""we.replicas plans: one we_run per engine in its own folder with one replica, n we_run_replica jobs in
replica_<k>/ folders with several, and one we_export per engine either way (`snakemake -n` only)."""

import re

import pytest
import yaml

from ..conftest import REPO, snakemake

pytestmark = pytest.mark.workflow


def plan(tmp_path, we):
    """[(rule, outputs)] of a dry run of the embedded config with ``we`` keys changed; the snakemake output."""
    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    raw["we"].update(we)
    path = tmp_path / "replicas.yaml"
    path.write_text(yaml.safe_dump(raw))
    result = snakemake(tmp_path, "-n", configfile=path)
    assert result.returncode == 0, result.output[-3000:]
    jobs = []
    for match in re.finditer(r"^(?:local)?rule (\w+):\n((?:    .*\n?)*)", result.output, re.MULTILINE):
        outputs = re.search(r"^    output: (.*)$", match.group(2), re.MULTILINE)
        jobs.append((match.group(1), outputs.group(1).split(", ") if outputs else []))
    return jobs, result.output


def outputs_of(jobs, rule):
    return sorted(path for name, outputs in jobs if name == rule for path in outputs)


def test_one_replica_plans_todays_paths(tmp_path):
    jobs, _ = plan(tmp_path, {"replicas": 1, "replicas_by_engine": {}})
    engines = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["we"]["engines"]
    assert outputs_of(jobs, "we_run") == sorted(f"results/chignolin/we/{e}/run.json" for e in engines)
    assert outputs_of(jobs, "we_run_replica") == []
    assert outputs_of(jobs, "we_export") == sorted(
        f"results/chignolin/we/{e}/{name}" for e in engines for name in ("frames.h5", "cost.csv")
    )


def test_three_replicas_plan_three_runs_per_engine_and_one_export(tmp_path):
    jobs, output = plan(tmp_path, {"replicas": 3, "replicas_by_engine": {}})
    engines = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["we"]["engines"]
    assert outputs_of(jobs, "we_run") == []
    assert outputs_of(jobs, "we_run_replica") == sorted(
        f"results/chignolin/we/{e}/replica_{k}/run.json" for e in engines for k in range(3)
    )
    assert outputs_of(jobs, "we_export") == sorted(
        f"results/chignolin/we/{e}/{name}" for e in engines for name in ("frames.h5", "cost.csv")
    )
    for engine in engines:
        assert f"we_run {engine}: 3 replicas (from we.replicas)" in output


def test_a_per_engine_replica_count_changes_only_that_engine(tmp_path):
    jobs, output = plan(tmp_path, {"replicas": 1, "replicas_by_engine": {"explicit": 2}})
    assert outputs_of(jobs, "we_run_replica") == [f"results/chignolin/we/explicit/replica_{k}/run.json" for k in (0, 1)]
    assert "results/chignolin/we/explicit/run.json" not in outputs_of(jobs, "we_run")
    assert "results/chignolin/we/implicit/run.json" in outputs_of(jobs, "we_run")
    assert "we_run explicit: 2 replicas (from we.replicas_by_engine.explicit)" in output
    assert sum(rule == "we_export" for rule, _ in jobs) == len(
        yaml.safe_load((REPO / "config" / "config.yaml").read_text())["we"]["engines"]
    )
