"""Config edits on a finished default run plan only the jobs that read the edited keys (`snakemake -n`).

Snakemake reruns a job whose params changed (rerun trigger `params`, on by default): rules pass each
job only the config keys it reads, so an edit reaches exactly the jobs that depend on it.
"""

import copy
import re
import shutil

import pytest
import yaml

from westbench.config import validate_config

from ..conftest import REPO, snakemake

pytestmark = pytest.mark.workflow

# Jobs that gather every engine of the configuration: tables, figures across engines, the report.
AGGREGATES = {"metric_tables", "protein_figures", "html_report", "compute_tables", "all"}
REPORT = {"html_report", "compute_tables", "all"}


@pytest.fixture(scope="module")
def finished(default_run, tmp_path_factory):
    """A copy of the finished default run (its outputs with their times and Snakemake's .snakemake/ records)."""
    workdir = tmp_path_factory.mktemp("reruns") / "run"
    shutil.copytree(default_run, workdir, symlinks=True)
    return workdir


def embedded():
    """The embedded default config as written, and with every schema default filled in."""
    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return raw, validate_config(raw)


def planned(workdir, config_path):
    """Jobs a dry run plans: [(rule, output paths)]."""
    result = snakemake(workdir, "-n", configfile=config_path)
    assert result.returncode == 0, result.output[-3000:]
    jobs = []
    # A grouped job's rules are printed indented under "group job <name>": any indent, its body one level deeper.
    for match in re.finditer(r"^( *)(?:local)?rule (\w+):\n((?:\1    .*\n?)*)", result.output, re.MULTILINE):
        outputs = re.search(r"^ *output: (.*)$", match.group(3), re.MULTILINE)
        jobs.append((match.group(2), outputs.group(1).split(", ") if outputs else []))
    return jobs


def plan_after(workdir, tmp_path, edit):
    """Jobs planned on ``workdir`` after ``edit(raw, effective)`` changes a copy of the embedded config."""
    raw, effective = embedded()
    raw = copy.deepcopy(raw)
    edit(raw, effective)
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(raw))
    return planned(workdir, path)


def rules(jobs):
    return sorted(rule for rule, _ in jobs)


def engine_of(outputs):
    """results/<protein>/{we,metrics,external}/<engine>/... -> engine (None for other outputs)."""
    for path in outputs:
        parts = path.split("/")
        if len(parts) > 4 and parts[2] in ("we", "metrics", "external"):
            return parts[3]
    return None


@pytest.mark.slow
def test_unchanged_config_plans_nothing(finished, tmp_path):
    assert plan_after(finished, tmp_path, lambda raw, effective: None) == []


@pytest.mark.slow
def test_the_finished_run_plans_nothing_as_tools_run_sh_invokes_it(finished):
    """`snakemake --profile profiles/local -n` (the embedded default, no --configfile, as tools/run.sh runs it):
    nothing to be done. With tests/unit/plan/test_dag_snapshot.py (params, inputs, outputs and scripts as
    committed) it guards that a change of the plan reruns nobody's finished results."""
    result = snakemake(finished, "--profile", REPO / "profiles" / "local", "-n", configfile=None)
    assert result.returncode == 0, result.output[-3000:]
    assert "Nothing to be done" in result.output, result.output[-3000:]
    assert not re.search(r"^(?:local)?rule \w+:$", result.output, re.MULTILINE), result.output[-3000:]


@pytest.mark.slow
def test_removing_an_engine_reruns_only_the_aggregates(finished, tmp_path):
    def drop(raw, effective):
        assert "cg_undertrained" in effective["we"]["engines"]
        raw["we"]["engines"] = [e for e in effective["we"]["engines"] if e != "cg_undertrained"]

    jobs = plan_after(finished, tmp_path, drop)
    assert set(rules(jobs)) == AGGREGATES and len(jobs) == len(AGGREGATES), rules(jobs)


@pytest.mark.slow
def test_a_coverage_threshold_reruns_only_the_tables_figures_and_report(finished, tmp_path):
    def threshold(raw, effective):
        thresholds = list(effective["metrics"]["coverage_thresholds"])
        thresholds[0] = round(thresholds[0] / 2, 4)
        raw.setdefault("metrics", {})["coverage_thresholds"] = thresholds

    jobs = plan_after(finished, tmp_path, threshold)
    assert set(rules(jobs)) == AGGREGATES and len(jobs) == len(AGGREGATES), rules(jobs)


@pytest.mark.slow
def test_one_engines_iteration_cap_reruns_that_engine_only(finished, tmp_path):
    def cap(raw, effective):
        we = effective["we"]
        current = we["max_iterations_by_engine"].get("explicit", we["max_iterations"])
        raw["we"].setdefault("max_iterations_by_engine", {})["explicit"] = current - 1 if current > 1 else current + 1

    jobs = plan_after(finished, tmp_path, cap)
    per_engine = [(rule, engine_of(outputs)) for rule, outputs in jobs if rule not in AGGREGATES]
    assert sorted(per_engine) == [("metric_suite", "explicit"), ("we_export", "explicit"), ("we_run", "explicit")]
    assert {rule for rule, _ in jobs} - {"we_run", "we_export", "metric_suite"} == AGGREGATES


@pytest.mark.slow
def test_one_cg_preset_retrains_and_reruns_that_engine_only(finished, tmp_path):
    def preset(raw, effective):
        presets = copy.deepcopy(effective["cg"]["presets"])
        presets["undertrained"]["frame_fraction"] = presets["undertrained"].get("frame_fraction", 1.0) / 2
        raw.setdefault("cg", {})["presets"] = presets

    jobs = plan_after(finished, tmp_path, preset)
    # The calibration study trains the same preset on its reference's forces: its copy of that engine reruns too.
    study = {
        "calibration_cg_train",
        "calibration_table",
        "calibration_we_run",
        "calibration_we_export",
        "calibration_metrics",
    }
    per_engine = sorted(
        (rule, engine_of(outputs)) for rule, outputs in jobs if rule not in AGGREGATES | {"cg_train"} | study
    )
    assert per_engine == [
        ("metric_suite", "cg_undertrained"),
        ("we_export", "cg_undertrained"),
        ("we_run", "cg_undertrained"),
    ]
    trained = [outputs for rule, outputs in jobs if rule in ("cg_train", "calibration_cg_train")]
    assert len(trained) == 2 and all("/cg/undertrained/" in path for outputs in trained for path in outputs)
    in_study = [outputs for rule, outputs in jobs if rule in study - {"calibration_cg_train", "calibration_table"}]
    assert in_study and all("/cg_undertrained/" in path for outputs in in_study for path in outputs)


@pytest.mark.slow
def test_the_report_title_reruns_only_the_report(finished, tmp_path):
    def title(raw, effective):
        raw.setdefault("report", {})["title"] = effective["report"]["title"] + " (edited)"

    jobs = plan_after(finished, tmp_path, title)
    assert set(rules(jobs)) == REPORT and len(jobs) == len(REPORT), rules(jobs)


@pytest.mark.slow
def test_the_coverage_grid_reruns_the_exports_and_metrics_not_the_we_runs(finished, tmp_path):
    """metrics.coverage_bins, the one grid: cost.csv and the coverage column change; a WE run without a coverage
    target does not read it."""

    def grid(raw, effective):
        assert effective["we"]["coverage_target"] is None
        raw.setdefault("metrics", {})["coverage_bins"] = effective["metrics"]["coverage_bins"] // 2

    jobs = plan_after(finished, tmp_path, grid)
    engines = embedded()[1]["we"]["engines"]
    per_engine = sorted((rule, engine_of(outputs)) for rule, outputs in jobs if rule not in AGGREGATES)
    assert [pair for pair in per_engine if pair[0] == "we_export"] == sorted(("we_export", e) for e in engines)
    # no we_run; the calibration study's exports and metrics read the same grid
    assert {rule for rule, _ in per_engine} - {"calibration_we_export", "calibration_metrics", "calibration_table"} == {
        "we_export",
        "metric_suite",
    }
    assert not any(rule.endswith("we_run") for rule, _ in per_engine)
    assert {engine for rule, engine in per_engine if rule == "metric_suite"} >= set(engines)


@pytest.mark.slow
def test_one_more_replica_runs_only_the_new_replica_and_re_exports_that_engine(finished, tmp_path):
    """we.replicas_by_engine: the replicas already run keep their folders, seeds and results."""
    current = embedded()[1]["we"]["replicas_by_engine"].get("implicit", embedded()[1]["we"]["replicas"])

    def more(raw, effective):
        raw["we"].setdefault("replicas_by_engine", {})["implicit"] = current + 1

    jobs = plan_after(finished, tmp_path, more)
    per_engine = sorted((rule, engine_of(outputs)) for rule, outputs in jobs if rule not in AGGREGATES)
    new = range(current, current + 1) if current > 1 else range(2)  # from one run in we/implicit/ to replica folders
    assert per_engine == sorted(
        [("metric_suite", "implicit"), ("we_export", "implicit")] + [("we_run_replica", "implicit")] * len(new)
    )
    assert sorted(path for rule, outputs in jobs if rule == "we_run_replica" for path in outputs) == [
        f"results/chignolin/we/implicit/replica_{k}/run.json" for k in new
    ]
