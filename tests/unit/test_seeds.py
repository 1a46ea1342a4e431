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
    """The config's base seed is read only by the one derivation (and shown in the report's summary)."""
    uses = [
        (path.name, line.strip())
        for path in (REPO / "rules").glob("*.smk")
        for line in path.read_text().splitlines()
        if re.search(r"config\[.seed.\]", line)
    ]
    stray = [use for use in uses if not re.search(r"stage_seed\(|derive\(config\[.seed.\]|\"seed\": config", use[1])]
    assert uses and not stray, stray
