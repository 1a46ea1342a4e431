"""What a job reads is its own: a per-engine job's params, inputs and seed never change with another engine's
settings, the engine list or a table setting (Snakemake would rerun it), and the settings keep their keys' order."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import plan_with

ENGINES = ["implicit", "explicit", "cg_undertrained", "cg_fulltrained"]


def engine_job(plan, engine, protein="chignolin", replica=None):
    """Everything a WE run, its export and its metrics job of one engine receive."""
    return {
        "we": plan.params.we(engine),
        "cg": plan.params.we_engine_cg(engine),
        "preparation": plan.params.we_engine_preparation(engine),
        "platform": plan.params.we_engine_platform(engine),
        "seed": plan.params.we_seed(protein, engine, replica),
        "timestep": plan.params.we_timestep_fs(engine),
        "input": plan.inputs.we_run(protein, engine),
        "run_dir": plan.layout.we_run_dir(protein, engine, replica),
        "metrics": plan.inputs.metrics_model_frames(protein, engine),
        "training": plan.inputs.metrics_training_record(protein, engine),
        "threads": plan.params.we_threads(engine),
        "gpus": plan.params.we_gpus(engine),
    }


@settings(max_examples=25, deadline=None)
@given(
    kept=st.sampled_from(ENGINES),
    others=st.lists(st.sampled_from(ENGINES), unique=True),
    caps=st.dictionaries(st.sampled_from(ENGINES), st.integers(1, 50)),
    replicas=st.dictionaries(st.sampled_from(ENGINES), st.integers(1, 4)),
    thresholds=st.lists(st.floats(0.05, 0.95), min_size=1, max_size=3),
)
def test_an_engines_jobs_read_only_its_own_settings(kept, others, caps, replicas, thresholds):
    """Another engine's cap or replicas, the engine list and the coverage thresholds leave an engine's jobs as
    they were; its own cap reaches only its own settings."""
    engines = [kept, *(e for e in others if e != kept)]
    own = {kept: caps[kept]} if kept in caps else {}
    base = plan_with(we={"engines": [kept], "max_iterations_by_engine": own, "replicas_by_engine": {}})
    edited = plan_with(
        we={
            "engines": engines,
            "max_iterations_by_engine": {**caps, **own},
            "replicas_by_engine": {e: n for e, n in replicas.items() if e != kept},
        },
        metrics={"coverage_thresholds": sorted(thresholds)},
    )
    assert engine_job(edited, kept) == engine_job(base, kept)
    assert repr(edited.params.we(kept)) == repr(base.params.we(kept))  # the params' text, key order included


def test_the_iteration_cap_is_the_engines_own_and_only_openmm_engines_batch():
    plan = plan_with(we={"max_iterations": 7, "max_iterations_by_engine": {"implicit": 7, "explicit": 2}})
    assert [plan.params.we(e)["max_iterations"] for e in ENGINES] == [7, 2, 7, 7]
    assert ["batch_walkers" in plan.params.we(e) for e in ENGINES] == [True, True, False, False]
    assert [bool(plan.params.we_engine_preparation(e)) for e in ENGINES] == [True, True, False, False]
    assert [bool(plan.params.we_engine_cg(e)) for e in ENGINES] == [False, False, True, True]
    assert not any("engines" in plan.params.we(e) or "replicas" in plan.params.we(e) for e in ENGINES)


def test_the_coverage_grid_reaches_the_we_runs_only_with_a_coverage_target():
    assert "coverage_bins" not in plan_with().params.we("implicit")
    assert (
        plan_with(we={"coverage_target": 0.5}).params.we("implicit")["coverage_bins"]
        == plan_with().config["metrics"]["coverage_bins"]
    )


def test_seeds_differ_per_job_and_replica_zero_keeps_the_single_runs_seed(default_plan):
    params = default_plan.params
    seeds = {
        params.we_seed("chignolin", "implicit"),
        params.we_seed("chignolin", "implicit", 1),
        params.we_seed("chignolin", "explicit"),
        params.seed("chignolin", "groundtruth_run", "s0000"),
        params.seed("all", "cg_train", "fulltrained"),
    }
    assert len(seeds) == 5
    assert params.we_seed("chignolin", "implicit", "0") == params.we_seed("chignolin", "implicit")


def test_a_training_job_reads_its_own_preset_only_and_a_missing_one_is_an_error(default_plan):
    settings = default_plan.params.cg_training("undertrained")
    assert list(settings["presets"]) == ["undertrained"]
    assert list(settings) == ["model", "prior", "langevin", "device", "training", "presets"]  # the params' text
    with pytest.raises(Exception, match=r"no preset 'missing' in cg\.presets"):
        default_plan.params.cg_training("missing")


def test_a_solvent_model_reads_its_own_keys(default_plan):
    implicit, explicit = default_plan.params.system("implicit"), default_plan.params.system("explicit")
    assert "water_model" in explicit and "water_model" not in implicit and "implicit_solvent" in implicit
    assert default_plan.params.groundtruth_solvent() == explicit  # the ground truth's solvent (the default's)
