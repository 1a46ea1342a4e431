"""The contract's mutants: values outside the allowed range (hypothesis), run-input lines found, the solution or the
delivered files edited."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.contract import Item, load_contract
from westbench.agents.mutation import contract_mutants, key_pattern, out_of_range

from .strategies import finite
from .written_task import write_task


@given(
    st.one_of(st.just(0.0), finite.filter(lambda x: abs(x) < 1e4)),
    st.one_of(st.just(0.0), st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)),
    st.sampled_from([1.0, 0.001]),
)
def test_out_of_range_values_lie_outside_the_allowed_range(low, width, scale):
    item = Item("p", "parameter", "q", ("c",), range=(low, low + width), mutate={"scale": scale})
    values = [float(text) / scale for text in out_of_range(item)]
    assert values and len(values) == len(set(values))
    for value in values:
        assert value < low or value > low + width


@pytest.mark.parametrize(
    ("line", "value"),
    [("tau-t = 0.1 ; ps", "0.1"), ("tau_t   =   0.1 0.1", "0.1 0.1"), ("  dt=0.002", "0.002"), ("ref-t: 300", "300")],
)
def test_a_key_pattern_finds_the_value_of_an_mdp_or_yaml_line(line, value):
    key = "tau-t" if "tau" in line else ("dt" if "dt" in line else "ref-t")
    assert re.search(key_pattern(key), line, re.M).group(1) == value


def test_contract_mutants_edit_the_solution_where_it_states_the_value_else_the_delivered_files(tmp_path):
    task, out = write_task(tmp_path)
    contract = load_contract(task)
    mutants = {m.id: m for m in contract_mutants(task, contract, out)}
    assert set(mutants) == {"param:dt=0.0022", "param:dt=0.0018", "remove-step:minimize"}
    assert mutants["param:dt=0.0022"].level == "solution"
    assert "dt = 0.0022" in mutants["param:dt=0.0022"].changes["solution/solve.sh"]
    assert "run_minimize" not in mutants["remove-step:minimize"].changes["solution/solve.sh"]
    contract = load_contract(task)
    contract.items[0].mutate["level"] = "output"
    output_level = {m.id: m for m in contract_mutants(task, contract, out)}
    assert output_level["param:dt=0.0022"].changes == {"md.mdp": "dt = 0.0022\n"}
