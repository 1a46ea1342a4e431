"""The mutation catalogue: every mutant a task yields names a catalogued operator and level; a Mutant is a record."""

import dataclasses

import pytest

from westbench.agents.contract import load_contract
from westbench.agents.mutation import all_mutants
from westbench.agents.mutation.catalogue import LEVELS, OPERATORS, Mutant

from .written_task import write_task


def test_every_mutant_of_a_task_uses_a_catalogued_operator_and_level(tmp_path):
    task, out = write_task(tmp_path)
    mutants = all_mutants(task, out, load_contract(task))
    assert mutants
    for mutant in mutants:
        assert mutant.operator in OPERATORS, mutant.id
        assert mutant.level in LEVELS, mutant.id
        assert mutant.id.startswith(mutant.operator), mutant.id
    assert len({m.id for m in mutants}) == len(mutants)


def test_every_operator_says_what_mistake_it_makes():
    assert LEVELS == ("output", "solution")
    for name, description in OPERATORS.items():
        assert description.strip() and description == description.strip(), name


def test_a_mutant_is_frozen_and_its_changes_stay_out_of_its_repr():
    mutant = Mutant("negate:a.json", "negate", "a.json", "a verdict flipped", "output", {"a.json": "x" * 1000})
    with pytest.raises(dataclasses.FrozenInstanceError):
        mutant.level = "solution"
    assert "xxxx" not in repr(mutant) and "negate:a.json" in repr(mutant)
    assert Mutant("d", "delete", "f", "", "output").changes == {}
