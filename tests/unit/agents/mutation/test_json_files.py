"""JSON mutants over random documents (hypothesis): one field changed, still JSON, a known operator."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.mutation import OPERATORS, json_mutants

from .strategies import finite

json_values = st.recursive(
    st.one_of(st.integers(-1000, 1000), finite, st.booleans(), st.text(max_size=3)),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.sampled_from("abcde"), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from(["x_nm", "n", "ok", "energy_kj_mol", "items"]), json_values, min_size=1))
def test_every_json_mutant_changes_the_file_keeps_it_json_and_names_a_known_operator(data):
    text = json.dumps(data)
    for mutant in json_mutants("r.json", text):
        assert mutant.operator in OPERATORS and mutant.level == "output" and mutant.file == "r.json"
        mutated = json.loads(mutant.changes["r.json"])
        assert mutated != data and set(mutated) == set(data)  # one field changed, nothing added or lost
