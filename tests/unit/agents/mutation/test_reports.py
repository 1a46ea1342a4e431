"""Markdown and text reports mutated: every decimal number times 10, nothing else touched."""

import re

from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.mutation.catalogue import OPERATORS
from westbench.agents.mutation.reports import report_mutant

DECIMAL = re.compile(r"-?\d+\.\d+")


def test_every_decimal_is_ten_times_larger_with_its_precision_and_the_rest_unchanged():
    text = "# Result\n\nThe free energy is -3.25 kJ/mol over 12 windows; RMSD 0.140 nm.\n"
    mutant = report_mutant("summary.md", text)
    assert mutant.id == "report-x10:summary.md" and mutant.operator == "report-x10"
    assert mutant.file == "summary.md" and mutant.level == "output"
    assert mutant.description == f"{OPERATORS['report-x10']}: summary.md"
    expected = "# Result\n\nThe free energy is -32.50 kJ/mol over 12 windows; RMSD 1.400 nm.\n"
    assert mutant.changes == {"summary.md": expected}


def test_a_report_without_decimals_has_no_mutant():
    assert report_mutant("notes.txt", "12 windows, 3 replicas, version 2") is None


def test_versions_and_exponents_are_not_decimals():
    """A number glued to a letter or a dot (a version, 1.5e3, a file name) is not a reported value."""
    assert report_mutant("r.txt", "gromacs 2023.1.2 wrote 1.5e3 frames to run1.5x") is None


@given(st.lists(st.floats(min_value=-1e4, max_value=1e4, allow_nan=False).map(lambda x: round(x, 3)), min_size=1))
def test_each_number_becomes_ten_times_itself(values):
    text = " ; ".join(f"{value:.3f}" for value in values)
    mutated = report_mutant("r.md", text).changes["r.md"]
    found = [float(number) for number in DECIMAL.findall(mutated)]
    assert len(found) == len(values)
    for before, after in zip((float(f"{value:.3f}") for value in values), found):
        assert abs(after - 10 * before) <= 1e-6 * max(1.0, abs(10 * before))
    assert mutated.count(";") == text.count(";")
