"""Every path has one pattern: a rule's output pattern (the layout given wildcards) and the path the input functions
ask for (the layout given ids) are the same line; the gathering jobs' records name their files in order."""

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.plan.layout import Layout

from .conftest import plan_with

IDS = st.text(string.ascii_lowercase + string.digits + "_", min_size=1, max_size=8)


@settings(max_examples=50, deadline=None)
@given(protein=IDS, engine=IDS, name=IDS, replica=st.integers(0, 9), scope=st.sampled_from(["protein", "all"]))
def test_a_pattern_filled_in_is_the_path_of_those_ids(protein, engine, name, replica, scope):
    layout = plan_with(cg={"scope": scope}).layout
    fill = {"protein": protein, "engine": engine, "name": name, "replica": replica, "preset": name, "start": name}
    calls = [
        (Layout.prepare, ("{protein}", "{name}"), (protein, name)),
        (Layout.groundtruth_run, ("{protein}", "{start}", "frames.h5"), (protein, name, "frames.h5")),
        (Layout.tica, ("{protein}", "model.json"), (protein, "model.json")),
        (Layout.we_run_dir, ("{protein}", "{engine}"), (protein, engine)),
        (Layout.we_run_dir, ("{protein}", "{engine}", "{replica}"), (protein, engine, replica)),
        (Layout.metrics, ("{protein}", "{engine}"), (protein, engine)),
        (Layout.figure, ("{protein}", "{name}"), (protein, name)),
        (layout.cg_model_dir, ("{protein}", "{preset}"), (protein, name)),
        (Layout.cg_user_model_dir, ("{protein}", "{name}"), (protein, name)),
    ]
    for method, pattern, ids in calls:
        assert method(*pattern).format(**fill) == method(*ids), method.__name__
    assert layout.system(protein, engine) == {
        key: path.format(**fill) for key, path in layout.system("{protein}", "{engine}").items()
    }


def unconstrained(pattern) -> str:
    """An output pattern without its wildcards' constraints (``{protein,[a-z]+}`` -> ``{protein}``)."""
    return re.sub(r"\{(\w+),[^}]*\}", r"{\1}", str(pattern))


def test_the_rules_outputs_are_the_layouts_patterns(workflow):
    """The WE runs' outputs (the patterns the input functions and the export's run folders rely on)."""
    plan = plan_with()
    outputs = {name: unconstrained(workflow.get_rule(name).output[0]) for name in ("we_run", "we_run_replica")}
    assert outputs == {
        "we_run": f"{plan.layout.we_run_dir('{protein}', '{engine}')}/run.json",
        "we_run_replica": f"{plan.layout.we_run_dir('{protein}', '{engine}', '{replica}')}/run.json",
    }


def test_records_name_the_files_of_the_gathering_jobs_in_order():
    plan = plan_with(
        proteins=[
            {"id": "a", "name": "A", "sequence": "GYDPETGTWG", "source": "sequence"},
            {"id": "b", "name": "B", "sequence": "GYDPETGTWG", "source": "sequence"},
        ],
        external={"md": {"kind": "trajectories", "trajectories": "x/*.dcd"}},
    )
    targets = plan.targets
    records, files = targets.metric_records(), targets.all_metrics_json()
    assert [f"results/{p}/metrics/{e}/metrics.json" for p, e in records] == files
    assert records[-1] == ["b", "groundtruth"] and ["a", "md"] in records
    costs = targets.all_we_costs()
    assert [[path.split("/")[1], path.split("/")[3]] for path in costs] == targets.scored_engine_records()
    assert "results/a/external/md/cost.csv" in costs and "results/a/we/implicit/cost.csv" in costs
    assert targets.training_curves() == [
        f"results/{p}/cg/{preset}/training_curve.png" for p, preset in targets.cg_model_records()
    ]


def test_one_model_over_every_protein_lives_under_results_cg():
    targets = plan_with(cg={"scope": "all"}).targets
    assert targets.cg_model_records() == [["all", "fulltrained"], ["all", "undertrained"]]
    assert targets.cg_outputs()[0] == "results/cg/fulltrained/model.pt"


def test_the_default_target_holds_every_stage_and_the_study_only_when_it_is_on(default_plan):
    outputs = default_plan.targets.all_outputs()
    assert len(outputs) == len(set(outputs))
    for path in (
        "results/chignolin/prepare/summary.json",
        "results/chignolin/we/implicit/frames.h5",
        "results/chignolin/metrics/groundtruth/metrics.json",
        "results/chignolin/cg/fulltrained/model.pt",
        "results/report/westbench.html",
        "results/tables/calibration.csv",
        "results/calibration/chignolin/figures/convergence.png",
    ):
        assert path in outputs, path
    off = plan_with(calibration={"enabled": False}).targets.all_outputs()
    assert [path for path in outputs if "calibration" not in path] == off
