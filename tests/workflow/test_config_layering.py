"""Config layering as the Snakefile states it: the embedded demo is the config only when no --configfile is
given; a user's config replaces it (keys it leaves out take the schema's published values) and every
engine's effective iteration cap is logged with where it comes from. Dry runs only."""

import re

import pytest
import yaml

from westbench.config import section_defaults

from ..conftest import CHIGNOLIN, REPO, snakemake

pytestmark = pytest.mark.workflow

CHIGNOLIN_ENTRY = {
    "id": "chignolin",
    "name": "Chignolin",
    "pdb_id": "1UAO",
    "sequence": CHIGNOLIN,
    "source": "sequence",
}


def planned(output, rule):
    """How many jobs of ``rule`` a dry run plans (its job-stats table)."""
    counts = re.findall(rf"^{rule}\s+(\d+)$", output, re.MULTILINE)
    return int(counts[0]) if counts else 0


def test_user_config_replaces_the_demo_and_its_caps_are_logged(tmp_path):
    user = tmp_path / "user.yaml"
    user.write_text(yaml.safe_dump({"proteins": [CHIGNOLIN_ENTRY], "we": {"max_iterations": 3}}))
    result = snakemake(tmp_path, "-n", configfile=user)
    assert result.returncode == 0, result.output[-3000:]
    # The demo's per-engine caps (and its engine list) did not creep in underneath.
    assert "we_run implicit: max_iterations 3 (from we.max_iterations)" in result.output
    assert "max_iterations_by_engine" not in result.output
    published = section_defaults("groundtruth.starts")
    assert planned(result.output, "groundtruth_run") == published["count"]
    assert planned(result.output, "we_run") == len(section_defaults("we")["engines"])


def test_demo_without_configfile_and_demo_plus_user_file(tmp_path):
    demo = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    caps = demo["we"]["max_iterations_by_engine"]
    command = ["-n"]
    result = snakemake(tmp_path, *command, configfile=None)
    assert result.returncode == 0, result.output[-3000:]
    for engine, cap in caps.items():
        assert f"we_run {engine}: max_iterations {cap} (from we.max_iterations_by_engine.{engine})" in result.output
    assert planned(result.output, "groundtruth_run") == demo["groundtruth"]["starts"]["count"]

    # Building on the demo is explicit: give it first, the user's file after (later files win).
    edit = tmp_path / "edit.yaml"
    edit.write_text(yaml.safe_dump({"we": {"max_iterations_by_engine": {"implicit": 2}}}))
    both = snakemake(tmp_path, *command, "--configfile", REPO / "config" / "config.yaml", edit, configfile=None)
    assert both.returncode == 0, both.output[-3000:]
    assert "we_run implicit: max_iterations 2 (from we.max_iterations_by_engine.implicit)" in both.output
    assert (
        f"we_run explicit: max_iterations {caps['explicit']} (from we.max_iterations_by_engine.explicit)" in both.output
    )


def test_a_config_without_proteins_says_how_to_build_on_the_demo(tmp_path):
    agents_only = tmp_path / "agents.yaml"
    agents_only.write_text(yaml.safe_dump({"agents": {"tasks_dir": str(REPO / "tasks")}}))
    result = snakemake(tmp_path, "-n", "agents", configfile=agents_only)
    assert result.returncode != 0
    assert "'proteins' is a required property" in result.output
    assert "--configfile config/config.yaml" in result.output and str(agents_only) in result.output
