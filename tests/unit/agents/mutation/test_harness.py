"""Every mutant of a task: deliverables only (the contract's files), applied to a copy of the delivered files."""

import json

import pytest

from westbench.agents.contract import load_contract
from westbench.agents.mutation import all_mutants, apply_output_mutant, deliverable_filter, output_mutants

from .written_task import write_task


def test_output_mutants_touch_deliverables_only_and_apply_to_a_copy(tmp_path):
    task, out = write_task(tmp_path)
    mutants = all_mutants(task, out, load_contract(task))
    assert not [m for m in mutants if "mdout.mdp" in m.file]
    assert {"delete:energy.json", "unit-x4.184:energy.json:potential_kj_mol", "index+1:energy.json:frames"} <= {
        m.id for m in mutants
    }
    mutant = next(m for m in mutants if m.id == "unit-/4.184:energy.json:potential_kj_mol")
    apply_output_mutant(mutant, out)
    assert json.loads((out / "energy.json").read_text())["potential_kj_mol"] == pytest.approx(-1234.5 / 4.184)
    apply_output_mutant(next(m for m in mutants if m.id == "delete:energy.json"), out)
    assert not (out / "energy.json").exists()
    assert deliverable_filter(task)("energy.json") and not deliverable_filter(task)("mdout.mdp")
    assert [m.id for m in output_mutants(out)] == ["delete:md.mdp", "delete:mdout.mdp"]  # no filter: every file
