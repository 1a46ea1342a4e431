"""rules/common.smk is the plan's Snakemake side: a config the plan refuses stops the parse with the plan's message
as a WorkflowError (no traceback), and the rules' wildcard functions ask the plan."""

import os
from types import SimpleNamespace

import pytest

from westbench.plan import Plan

from ..conftest import REPO


def parse(workdir, config):
    """The workflow of the embedded default with ``config`` (--config) on top, parsed in-process."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    cwd = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            return api.workflow(
                resource_settings=ResourceSettings(),
                config_settings=ConfigSettings(config=config),
                snakefile=REPO / "Snakefile",
                workdir=workdir,
            )._workflow
    finally:
        os.chdir(cwd)


def test_a_config_the_plan_refuses_stops_the_parse_with_its_message(tmp_path):
    from snakemake.exceptions import WorkflowError

    with pytest.raises(WorkflowError, match=r"we\.engines names \['explicit'\] more than once") as raised:
        parse(tmp_path, {"we": {"engines": ["explicit", "explicit"]}})
    assert type(raised.value) is WorkflowError and "Traceback" not in str(raised.value)


def test_the_wildcard_functions_answer_as_the_plan(workflow):
    plan = Plan.from_config(workflow.config)
    functions = workflow.globals
    for engine in plan.roster.engines:
        wildcards = SimpleNamespace(protein="chignolin", engine=engine, replica="1")
        assert functions["we_run_input"](wildcards) == plan.inputs.we_run("chignolin", engine)
        assert functions["we_settings"](wildcards) == plan.params.we(engine)
        assert (
            functions["we_seed"](wildcards)
            == plan.params.we_seed("chignolin", engine, 1)
            != plan.params.we_seed("chignolin", engine)
        )
        assert functions["we_job_run_dir"](wildcards) == f"results/chignolin/we/{engine}/replica_1"
    assert workflow.get_rule("all").input == plan.targets.all_outputs()


@pytest.mark.parametrize("mutation", [False, True])
def test_the_agent_page_needs_mutation_testing_only_when_the_gate_runs_it(tmp_path, mutation):
    """The page shows mutation results when present; as inputs they would start hours of mutation testing on every
    `agents` run (they did, in CI), so only agents.gate.mutation makes them the page's inputs."""
    workflow = parse(tmp_path, {"agents": {"gate": {"mutation": mutation}}})
    report_inputs = workflow.globals["agent_page_optional_inputs"]()
    mutation_files = {"results/agents/mutation.csv", "results/agents/mutation_score.csv"}
    assert set(report_inputs.values()) == (mutation_files if mutation else set())
    assert workflow.globals["PLAN"].agents.mutation_scores() == (
        ["results/agents/mutation_score.csv"] if mutation else []
    )


def test_rules_pass_params_and_inputs_one_way_a_named_function_asking_the_plan():
    """One idiom for what a job reads (issue 54): a value, or a named input function of rules/common.smk (most of them
    ``of_wildcards`` answers of the plan); no rule file spells a lambda of its own."""
    import re

    spelled = {
        path.name: len(re.findall(r"\blambda\b", path.read_text()))
        for path in (REPO / "rules").glob("*.smk")
        if path.name != "common.smk"
    }
    assert {name: n for name, n in spelled.items() if n} == {}
