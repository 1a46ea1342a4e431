"""GROMACS index files shifted by one in each direction (hypothesis over atom numbers)."""

from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.mutation import ndx_mutants


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=20))
def test_an_index_file_shifted_by_one_in_each_direction(numbers):
    text = "[ Group ]\n" + " ".join(map(str, numbers)) + "\n"
    up, down = (m.changes["i.ndx"] for m in ndx_mutants("i.ndx", text))
    assert [int(x) for x in up.split()[3:]] == [n + 1 for n in numbers]
    assert [int(x) for x in down.split()[3:]] == [n - 1 for n in numbers]
