"""CSV mutants over random tables (hypothesis): the header kept, every row kept but the dropped one, indices shifted."""

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.mutation import csv_mutants

from .strategies import finite


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 50), finite), min_size=2, max_size=8),
)
def test_csv_mutants_keep_the_header_and_the_rows_except_the_dropped_one(rows):
    text = "frame,rg_nm\n" + "".join(f"{i},{v!r}\n" for i, v in rows)
    mutants = {m.id: m for m in csv_mutants("t.csv", text)}
    assert {"drop-row:t.csv", "drop-first-row:t.csv", "index+1:t.csv:frame"} <= set(mutants)
    for mutant in mutants.values():
        table = list(csv.reader(io.StringIO(mutant.changes["t.csv"])))
        assert table[0] == ["frame", "rg_nm"]
        assert len(table) - 1 == len(rows) - (mutant.operator in ("drop-row", "drop-first-row"))
        assert mutant.changes["t.csv"] != text
    kept = list(csv.DictReader(io.StringIO(mutants["drop-first-row:t.csv"].changes["t.csv"])))
    assert [(int(r["frame"]), float(r["rg_nm"])) for r in kept] == [(i, float(repr(v))) for i, v in rows[1:]]
    shifted = list(csv.DictReader(io.StringIO(mutants["index+1:t.csv:frame"].changes["t.csv"])))
    assert [int(r["frame"]) for r in shifted] == [i + 1 for i, _ in rows]
