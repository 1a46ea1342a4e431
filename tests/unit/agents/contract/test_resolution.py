"""A task's resolution read from its contract: the window and the smallest caught mistake of every numeric
requirement, on written tolerances (hypothesis) and on every task's contract."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.contract.loading import Item, load_contract
from westbench.agents.contract.problems import NUMERIC, SMALLEST
from westbench.agents.contract.resolution import resolution_rows, resolution_summary, task_resolution

TASKS = sorted(p.parent for p in (Path(__file__).parents[4] / "tasks").glob("*/contract.toml"))
# Text a tolerance's parts may hold: letters, digits, units and punctuation, never the clause's own words.
PART = st.text(st.sampled_from("abcdefghij klmnopqrstuvwxyz0123456789.%/-+()"), min_size=1, max_size=60).filter(
    lambda text: text.strip(" ;,.") and "smallest" not in text and "mistake" not in text
)


@given(window=PART, mistake=PART, separator=st.sampled_from(["; ", ", ", ". ", ";"]))
def test_the_window_and_the_mistake_are_read_back_as_written(window, mistake, separator):
    window, mistake = window.strip(" ;,."), mistake.strip()
    item = Item(id="x", kind="computed", quote="q", checks=("c",), tolerance=f"{window}{separator}{SMALLEST} {mistake}")
    (row,) = resolution_rows([item])
    assert (row["window"], row["smallest_mistake"]) == (window, mistake)
    assert resolution_summary([row]) == {"numeric_items": 1, "resolution": f"x: {mistake}"}


def test_only_numeric_requirements_count_and_a_tolerance_without_the_clause_is_its_window():
    items = [
        Item(id="f", kind="file", quote="q", checks=("c",), tolerance="exact; smallest mistake none"),
        Item(id="d", kind="decision", quote="q", checks=("c",)),
        Item(id="p", kind="parameter", quote="q", checks=("c",), tolerance="exact: read back"),
    ]
    assert [(r["item"], r["window"], r["smallest_mistake"]) for r in resolution_rows(items)] == [
        ("p", "exact: read back", "")
    ]
    assert resolution_summary(resolution_rows(items))["resolution"] == "p: exact: read back"


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_every_numeric_requirement_of_every_task_has_a_window_and_a_smallest_mistake(task):
    numeric = [item.id for item in load_contract(task).items if item.kind in NUMERIC]
    rows = task_resolution(task)
    assert [row["item"] for row in rows] == numeric
    assert all(row["window"] and row["smallest_mistake"] for row in rows), [
        row for row in rows if not (row["window"] and row["smallest_mistake"])
    ]
