"""Measured numbers have one source: the records of docs/measured/, and the README's blocks rendered from them."""

import json
import re

import pytest

from westbench.errors import WestbenchError
from westbench.report import measured

from ...conftest import REPO

README = REPO / "README.md"
DURATION = re.compile(r"\b\d+(\.\d+)? ?(min|minutes)\b|\b\d+ min \d+ s\b")


def test_the_readme_quotes_the_committed_records():
    stale = measured.stale_blocks(README, REPO / measured.MEASURED_DIR)
    assert stale == [], (
        f"README blocks {stale} differ from docs/measured/: run .venv/bin/python tools/measure.py readme"
    )


def test_outside_its_generated_blocks_the_readme_states_no_run_time_and_speaks_to_users():
    text = re.sub(r"<!-- measured:([a-z_]+):begin.*?<!-- measured:\1:end -->", "", README.read_text(), flags=re.S)
    assert not DURATION.search(text), DURATION.search(text).group(0)
    assert "this machine" not in text.lower()
    assert text.startswith("# westbench\n\n```bash\nbash tools/run.sh ")
    assert re.search(r"```bash\nbash tools/run.sh [^\n]*\nbash tools/test.sh [^\n]*\n```", text)


def test_every_record_names_its_command_commit_or_date_and_wall_time():
    records = measured.read_records(REPO / measured.MEASURED_DIR)
    assert set(records) <= set(measured.RECORDS)
    for name, record in records.items():
        assert record["command"] and record.get("date") and record.get("wall_s", 0) > 0, name
        assert "host" in record and record["returncode"] == 0, name


def test_a_missing_record_reads_not_measured_and_a_missing_block_is_named(tmp_path):
    (tmp_path / "tests.json").write_text(
        json.dumps({"command": "CI=true bash .ci/run", "wall_s": 125.0, "passed": 3, "failed": 1, "date": "2026-01-01"})
    )
    table = measured.measured_table(measured.read_records(tmp_path))
    assert "| **2 min 5 s**; 3 passed, 1 failed | 2026-01-01 |" in table
    assert table.count("not measured yet") == len(measured.RECORDS) - 1
    with pytest.raises(WestbenchError, match="no block calibration"):
        measured.render_readme(
            "<!-- measured:measured:begin -->\n<!-- measured:measured:end -->\n", measured.blocks(tmp_path)
        )


def test_the_calibration_block_reads_the_table_and_its_checks(tmp_path):
    rows = [
        ["reference", "null", 1.0, 1.0, "tic0", 0.08, 0.04, 0.13, 0.10, "within noise", "within noise"],
        ["temperature_120", "perturbation", 1.2, 1.0, "tic0", 0.56, 0.51, 0.63, 0.09, "separated", "separated"],
    ]
    columns = [
        "engine",
        "kind",
        "temperature_scale",
        "contact_scale",
        "distribution",
        "value",
        "ci_low",
        "ci_high",
        "floor_high",
        "verdict",
        "expected",
    ]
    import pandas as pd

    pd.DataFrame(rows, columns=columns).to_csv(tmp_path / "calibration.csv", index=False)
    (tmp_path / "calibration.json").write_text(
        json.dumps({"null_within_noise": True, "agreement": {"rows": 2, "agree": 2}})
    )
    block = measured.calibration_block(tmp_path)
    assert "| `reference` | null | 0.08 [0.04, 0.13] ≤ 0.10: within noise (within noise) |" in block
    assert "2 of 2 verdicts agree with the known answer" in block


def test_the_calibration_summary_over_seeds_adds_up_the_seeds_and_says_what_varies_between_machines(tmp_path):
    def seed(number, resolved, covered, every, all_covered, above, below, missed):
        return {
            "seed": number,
            "wall_s": 300.0,
            "agreement": {"rows": 90, "agree": 90},
            "resolved": {"cells": resolved, "covered": covered},
            "all_cells": {"cells": every, "covered": all_covered},
            "lean": {
                "resolved": {"above": above, "below": below, "uncovered_above": 0, "uncovered_below": 0},
                "all_cells": {"above": 50, "below": 40, "uncovered_above": missed[0], "uncovered_below": missed[1]},
            },
        }

    record = {
        "command": "snakemake ... calibration",
        "date": "2026-12-05",
        "wall_s": 1500.0,
        "returncode": 0,
        "host": {"cpu": "Some CPU", "cores": 2},
        "seeds": [seed(2024, 17, 16, 90, 85, 8, 9, (3, 2)), seed(7, 13, 13, 90, 86, 7, 6, (1, 3))],
    }
    record["seeds"][0]["by_metric"] = {
        "w1": {"all_cells": {"cells": 45, "covered": 44}},
        "kl": {"all_cells": {"cells": 45, "covered": 41}},
    }
    (tmp_path / "calibration_seeds.json").write_text(json.dumps(record))
    block = measured.calibration_block(tmp_path)  # no default run recorded: the summary and what is missing
    assert "| 2024 | 16 of 17 (94%) | 85 of 90 (94%): W1 44 of 45, KL 41 of 45 | 8 / 9 | 3 / 2 | 90 of 90 |" in block
    assert "| 7 | 13 of 13 (100%) | 86 of 90 (96%) | 7 / 6 | 1 / 3 | 90 of 90 |" in block  # no metric breakdown
    assert (
        "| **all** | 29 of 30 (97%) | 171 of 180 (95%): W1 44 of 45, KL 41 of 45 | 15 / 15 | 4 / 5 | 180 of 180 |"
        in block
    )
    assert "2 cores (Some CPU)" in block and "another CPU" in block and "test_calibration_reproducible" in block
    assert block.endswith("Not measured yet: `.venv/bin/python tools/measure.py default_run` records it.")
    row = measured.measured_table({"calibration_seeds": record})
    assert "**25 min 0 s**; 2 seeds: 171 of 180 cells with a known answer covered, 180 of 180 verdicts agree" in row


def test_a_seeds_line_reads_the_studys_checks(tmp_path):
    result = {
        "agreement": {"rows": 90, "agree": 89},
        "interval_coverage": {
            "cells": 12,
            "covered": 11,
            "rate": 0.917,
            "all_cells": {"cells": 90, "covered": 80, "rate": 0.889},
            "lean": {"resolved": {"above": 5, "below": 7, "uncovered_above": 0, "uncovered_below": 1}},
        },
        "null_within_noise": True,
    }
    (tmp_path / "calibration.json").write_text(json.dumps(result))
    line = measured.calibration_seed_summary(tmp_path, 7, 301.5)
    assert line["resolved"] == {"cells": 12, "covered": 11} and line["all_cells"] == {"cells": 90, "covered": 80}
    assert line["lean"]["resolved"]["below"] == 7 and line["seed"] == 7 and line["wall_s"] == 301.5


def test_the_agents_row_counts_the_near_misses_run_apart_from_those_the_recorded_gate_caught(tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "gate.csv").write_text(
        "task,passed,near_misses,near_miss_caught,near_misses_recorded\n"
        "a,True,2,2,\nb,True,0,0,abc1234\nc,False,0,0,abc1234\nd,True,0,0,\n"
    )
    (agents / "gate.json").write_text(json.dumps({"near_miss_catch_rate": {"near_misses": 2, "caught": 2}}))
    summary = measured.agents_summary(tmp_path)
    assert summary == {
        "tasks": 4,
        "gated": 3,
        "near_misses": 2,
        "near_misses_caught": 2,
        "near_misses_recorded_tasks": 2,
    }
    row = measured._result("agents", {"wall_s": 600, **summary})
    assert row == (
        "**10 min 0 s**; 3 of 4 tasks pass the gate; 2 of 2 near misses run caught; 2 tasks' near misses all caught "
        "by the recorded full gate at the same inputs"
    )
