"""One seed derivation per (protein, stage): different proteins never share a stream, same inputs same seed."""

import os
import re
import subprocess
import sys

import pytest

from westbench.seeds import STAGES, stage_seed

from ..conftest import REPO


def test_proteins_stages_and_keys_get_different_seeds():
    for stage in STAGES:
        assert stage_seed(2024, "chignolin", stage) != stage_seed(2024, "trpcage", stage)
    seeds = {
        stage_seed(2024, protein, stage, key)
        for protein in ("chignolin", "trpcage", "all")
        for stage in STAGES
        for key in ("s0001", "s0002", "implicit")
    }
    assert len(seeds) == 3 * len(STAGES) * 3
    assert stage_seed(2024, "chignolin", "we", "implicit") != stage_seed(2025, "chignolin", "we", "implicit")


def test_same_inputs_give_the_same_seed_in_every_process():
    """Stable across processes (no Python hash randomization), in OpenMM's valid range."""
    here = stage_seed(7, "chignolin", "groundtruth_run", "s0003")
    assert 1 <= here <= 2**31 - 1
    code = "from westbench.seeds import stage_seed; print(stage_seed(7, 'chignolin', 'groundtruth_run', 's0003'))"
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(REPO / "src")}
        other = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert int(other.stdout) == here


def test_an_unknown_stage_is_refused():
    with pytest.raises(ValueError, match="groundtruth_starts"):
        stage_seed(1, "chignolin", "groundtruth-starts")


def test_rules_draw_every_seed_through_stage_seed():
    """The config's base seed is read by the plan only, through the one derivation: no rule reads config["seed"],
    every rule's seed param is an ask of the plan (or a one-line input function that asks it), and every seed the
    plan hands out comes from stage_seed."""
    rules = {path.name: path.read_text() for path in (REPO / "rules").glob("*.smk")}
    raw = [
        (name, line.strip())
        for name, text in rules.items()
        for line in text.splitlines()
        if "config[" in line and "seed" in line
    ]
    assert not raw, f"ask PLAN.params.seed instead: {raw}"
    asks = re.compile(
        r"PLAN\.(params|calibration)\.seed\b|STUDY\.(replica|user_model)_seed\b|\bseed_of\("
        r"|\b(job|run|calibration|cg_training|metrics|we|study|user_model_split)_seed\b"
    )
    params = [
        (name, line.strip())
        for name, text in rules.items()
        for line in text.splitlines()
        if re.match(r"\s+seed=", line)
    ]
    stray = [param for param in params if not asks.search(param[1])]
    assert params and not stray, stray
    helpers = re.findall(r"def (\w*seed\w*)\(.*?\n(?:    .*\n)+", "".join(rules.values()))
    bodies = re.findall(r"def \w*seed\w*\(.*?\n((?:    .*\n)+)", "".join(rules.values()))
    assert helpers and all(asks.search(body) for body in bodies), helpers
    plan = [
        path for path in (REPO / "src" / "westbench" / "plan").rglob("*.py") if 'config["seed"]' in path.read_text()
    ]
    assert plan and all('stage_seed(self.config["seed"]' in path.read_text() for path in plan), plan
