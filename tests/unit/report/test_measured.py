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
