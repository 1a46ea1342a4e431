"""What run would rank the engines: the published configuration's ground truth per protein and its cost, as
config/paper.yaml and docs/cluster.md state them."""

import re

import pandas as pd

from westbench.report.evidence import EngineEvidence, ProteinEvidence
from westbench.report.limits import FloorDesign
from westbench.report.scale import (
    PAPER_CONFIG,
    cannot_rank,
    paper_ground_truths,
    paper_plans,
    plans_from,
    what_would_rank,
)

from ..conftest import REPO
from .evidence_data import controls_record


def cluster_table() -> dict[str, tuple[int, int]]:
    """docs/cluster.md's paper table: protein -> (starts, ground-truth GPU-hours)."""
    rows = {}
    for line in (REPO / "docs" / "cluster.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 4 and re.fullmatch(r"[a-z0-9]+", cells[0]) and cells[2].replace(",", "").isdigit():
            rows[cells[0]] = (int(cells[2].replace(",", "")), int(cells[3]))
    return rows


def test_the_published_ground_truth_and_its_hours_agree_with_docs_cluster_md():
    plans = plans_from(paper_ground_truths(REPO))
    table = cluster_table()
    assert set(table) <= set(plans) and "chignolin" in table
    for protein, (starts, hours) in table.items():
        assert plans[protein].runs == starts
        assert abs(plans[protein].gpu_hours - hours) <= 1, protein  # the table rounds to whole hours


def test_a_folder_without_the_paper_config_gives_no_plans(tmp_path):
    assert paper_ground_truths(tmp_path) == {} and plans_from(None) is None
    assert paper_plans("proteins: [{id: p}]") == {}  # no ground-truth lengths: nothing to quote


def values(excluded: str = "", verdict: str = "within noise") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "engine": ["a"],
            "metric": ["W1"],
            "distribution": ["rg"],
            "floor_high": [1.0],
            "verdict": [verdict],
            "excluded": [excluded],
        }
    )


def test_what_would_rank_quotes_the_config_the_runs_and_the_floor_s_design():
    controls = controls_record({"collapse": False}, resolved={("w1", "rg"): False})
    evidence = ProteinEvidence("p", {"a": EngineEvidence("a", groundtruth_frames=60)}, controls=controls)
    designs = {"a": FloorDesign(runs=3, pseudo_runs=1, engine_runs=1000.0)}
    plans = plans_from({"p": {"runs": 372, "length_ps": 4000, "save_interval_ps": 10}})
    text = what_would_rank("p", evidence, values(), designs, plans)
    assert "this one's (3 runs, 60 frames)" in text and f"{PAPER_CONFIG}, has 372 runs of 4 ns for p" in text
    assert "(148,800 frames), about 101 GPU-hours" in text
    needed = designs["a"].runs_for(1.0, 0.2)  # the largest known-bad control within noise there: 0.2
    assert f"at least {needed:,} runs like this run's" in text and "W1(Rg)" in text
    assert "has no entry for q" in what_would_rank("q", evidence, values(), designs, plans)
    assert "372 to 2,560 runs" in what_would_rank("p", None, values(), 3, None)


def test_cannot_rank_names_each_reason():
    missed = ProteinEvidence("p", controls=controls_record({"mirror": None}))
    assert "mirror image: cannot tell" in cannot_rank(missed, values())[0]
    small = ProteinEvidence("p", tica_caveat="TICA fitted on 54 lagged frame pairs for 45 features: noise")
    assert cannot_rank(small, values()) == [
        "its ground truth is too small to fit its own TICA (TICA fitted on 54 lagged frame pairs for 45 features)"
    ]
    assert cannot_rank(None, values(verdict="undetermined")) == ["no value has a verdict (every one is undetermined)"]
    assert cannot_rank(None, values(excluded="pinned")) == [
        "no value is left to rank once those it cannot read are set aside"
    ]
    assert cannot_rank(None, values()) == []
