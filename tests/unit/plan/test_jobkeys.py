"""The config keys each job reads come from the schema (westbench.plan.jobkeys): a schema key reaches a job or fails
here."""

import copy
import re

import pytest

from westbench.config import load_schema, section_keys
from westbench.errors import ConfigError
from westbench.plan.jobkeys import JOBS, NOT_PASSED, job_keys, unreached_keys

from ..conftest import REPO


def section_node(schema, section):
    node = schema
    for part in section.split("."):
        node = node["properties"][part]
    return node


def with_key(section, key="zz_new_key"):
    """A copy of the schema with one more key in a section."""
    schema = copy.deepcopy(load_schema())
    section_node(schema, section)["properties"][key] = {"type": "integer", "default": 1}
    return schema


def test_every_key_of_the_sections_reaches_a_job_or_is_excluded_with_a_reason():
    assert unreached_keys() == []
    for job in JOBS.values():
        assert all(isinstance(reason, str) and reason for reason in job.exclude.values())
    assert all(reason for reasons in NOT_PASSED.values() for reason in reasons.values())


@pytest.mark.parametrize("name", list(JOBS))
def test_each_job_gets_schema_keys_only(name):
    keys = job_keys(name)
    assert keys and set(keys) <= set(section_keys(JOBS[name].section))
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("section", sorted({job.section for job in JOBS.values()}))
def test_a_key_added_to_a_section_reaches_its_job_or_fails_a_test(section):
    """The issue's check: a schema key is added (in a copy of the schema) and must reach its job or fail a test."""
    schema = with_key(section)
    derived = [name for name, job in JOBS.items() if job.section == section and job.only is None]
    for name in derived:  # a job taking the section less its exclusions: the new key reaches it, no edit needed
        assert "zz_new_key" in job_keys(name, schema)
    for name, job in JOBS.items():  # a job with a fixed list: unchanged
        if job.only is not None and job.section == section:
            assert job_keys(name, schema) == job_keys(name)
    # Without a job that takes the whole section, the new key reaches nothing: the coverage test fails on it.
    assert unreached_keys(schema) == ([] if derived else [f"{section}.zz_new_key"])


def test_a_new_metrics_key_reaches_the_metric_suite_and_not_the_macrostate_model():
    schema = with_key("metrics")
    assert "zz_new_key" in job_keys("metric_suite", schema)
    assert "zz_new_key" not in job_keys("macrostates", schema)


def test_a_removed_or_renamed_key_named_by_a_job_is_an_error():
    schema = copy.deepcopy(load_schema())
    del section_node(schema, "metrics")["properties"]["reference_engine"]  # an exclusion of metric_suite
    with pytest.raises(ConfigError, match="reference_engine"):
        job_keys("metric_suite", schema)
    del section_node(schema, "metrics")["properties"]["msm_lag"]  # listed by macrostates
    with pytest.raises(ConfigError, match="msm_lag"):
        job_keys("macrostates", schema)
    with pytest.raises(ConfigError, match="no job"):
        job_keys("no_such_job")


def test_the_jobs_get_what_the_rules_passed_before_the_table():
    """The table reproduces the hand-kept tuples it replaced, in their order (Snakemake compares params by text)."""
    assert job_keys("metric_suite") == (
        "weightings",
        "bins",
        "kl_floor",
        "kl_estimator",
        "kl_neighbours",
        "kl_query_points",
        "msm_bins",
        "msm_lag",
        "coverage_bins",
        "macrostates",
        "density",
        "kde_bandwidth",
        "scatter_max_points",
        "w1_2d_bins",
        "bootstrap",
        "bootstrap_blocks",
        "block_decorrelation",
        "floor_splits",
        "discard_iterations",
        "min_effective_frames",
        "kl_sensitivity_bins",
    )
    assert job_keys("we_run") == (
        "bins_per_tic",
        "walkers_per_bin",
        "initial_walkers",
        "steps_per_segment",
        "save_every",
        "max_wallclock_s",
        "coverage_target",
        "coverage_check_every",
        "work_manager",
        "keep_restarts",
    )
    assert job_keys("platform") == ("name", "precision", "fallback", "deterministic")
    assert job_keys("calibration_we") == (
        "bins_per_tic",
        "initial_walkers",
        "max_wallclock_s",
        "coverage_target",
        "coverage_check_every",
        "work_manager",
        "keep_restarts",
    )
    assert job_keys("groundtruth_run") == (
        "solvent",
        "equilibration_ps",
        "length_ps",
        "save_interval_ps",
        "checkpoint_interval_ps",
        "minimize_max_iterations",
        "force_mapping",
    )
    assert job_keys("groundtruth_starts") == (
        "source",
        "temperature_k",
        "runs",
        "length_ps",
        "save_interval_ps",
        "tica_lag_frames",
    )


# A parenthesised run of two or more string literals: a hand-typed tuple of keys.
TUPLE = re.compile(r'\(\s*("[a-z0-9_]+"\s*,\s*)+"[a-z0-9_]+"\s*,?\s*\)')


def schema_sections(node, found=None, prefix=""):
    """{dotted section: its keys} of every object section of the schema."""
    found = {} if found is None else found
    for key, value in node.get("properties", {}).items():
        if "properties" in value:
            found[prefix + key] = set(value["properties"])
            schema_sections(value, found, f"{prefix}{key}.")
    return found


def test_the_rules_hold_no_hand_typed_tuple_of_a_sections_keys():
    """Rules take the keys a job reads from westbench.plan.jobkeys, never from a tuple typed next to them."""
    sections = schema_sections(load_schema())
    typed = []
    for path in [*(REPO / "rules").glob("*.smk"), REPO / "Snakefile"]:
        for match in TUPLE.finditer(path.read_text()):
            names = set(re.findall(r'"([a-z0-9_]+)"', match.group(0)))
            owners = [section for section, keys in sections.items() if names <= keys]
            if owners:
                typed.append(f"{path.relative_to(REPO)}: {match.group(0)} (keys of {owners[0]})")
    assert not typed, "name the job in westbench.plan.jobkeys.JOBS instead: " + "; ".join(typed)


def test_the_tuple_check_sees_a_typed_tuple():
    assert TUPLE.search('KEYS = ("ph", "add_terminal_residues")')
