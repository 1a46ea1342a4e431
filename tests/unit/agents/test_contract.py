"""Every task's contract (tasks/<task>/contract.toml) against its instruction and its verifier, and the loader.

A requirement the instruction states without an item, an item whose quote or value the instruction does not state,
and an item naming a check the verifier does not have each fail here: the contract cannot drift from either.
"""

import fnmatch
import re

import pytest

from westbench.agents.contract import (
    KINDS,
    check_names,
    contract_problems,
    load_contract,
    names_check,
    normalize,
    numbers_in,
)
from westbench.agents.tasks import TaskError, discover_tasks

from ...conftest import REPO

TASKS = REPO / "tasks"
SHIPPED = [task for task in discover_tasks(TASKS) if task.shipped]


@pytest.mark.parametrize("task", SHIPPED, ids=lambda task: task.name)
def test_every_requirement_of_the_instruction_is_an_item_with_a_check_of_the_verifier(task):
    assert contract_problems(task.path) == []


@pytest.mark.parametrize("task", SHIPPED, ids=lambda task: task.name)
def test_every_contract_names_its_deliverables_and_covers_the_kinds_of_requirement(task):
    contract = load_contract(task.path)
    globs = [g for item in contract.items for g in item.files()]
    assert globs, f"{task.name}: no item names a delivered file (file = ...)"
    # every deliverable the instruction names under /app/output is one of the contract's files
    instruction = normalize((task.path / "instruction.md").read_text())
    named = {m.rstrip(".,;:)") for m in re.findall(r"/app/output/([\w.*<>/-]+\.\w+)", instruction)}
    example = {m: m.replace("<i>", "0").replace("NN", "00") for m in named}
    missing = [m for m, e in example.items() if not any(fnmatch.fnmatchcase(e, g) for g in globs)]
    assert not missing, f"{task.name}: deliverables without a file item: {missing}"
    assert {item.kind for item in contract.items} <= set(KINDS)
    # a task whose run needs settings has at least one parameter or convergence item with a mutation
    mdp_like = any((task.path / "solution" / "solve.sh").read_text().count(token) for token in (".mdp", "createSystem"))
    if mdp_like and task.category not in ("negative", "diagnosis"):
        assert any(item.mutate for item in contract.items if item.kind in ("parameter", "convergence")), task.name


def write_task(root, contract, instruction="Run 5 ps at 300 K; write `/app/output/a.json`.", verify=None):
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "solution").mkdir(exist_ok=True)
    (root / "instruction.md").write_text(instruction)
    (root / "tests" / "verify.py").write_text(
        verify
        or 'with checks.check("a.json readable"):\n    pass\nchecks.require(f"temperature {t} K", True)\n'
        'for name, tol in (("length", 1),):\n    checks.check(name)\n'
    )
    (root / "solution" / "solve.sh").write_text("cat > md.mdp <<EOF\nref-t = 300\nnsteps = 2500\nEOF\n")
    (root / "contract.toml").write_text(contract)
    return root


ITEMS = """
[[item]]
id = "a.json"
kind = "file"
file = "a.json"
quote = "write /app/output/a.json"
checks = ["a.json readable"]

[[item]]
id = "temperature"
kind = "parameter"
quote = "Run 5 ps at 300 K"
range = [5, 300]
checks = ["temperature 300 K"]
tolerance = "exact: ref-t read back as written; smallest mistake a neighbouring temperature (310 K)"
mutate = {key = "ref-t", values = ["310"]}
"""


def test_a_complete_contract_has_no_problems_and_the_loader_reads_every_field(tmp_path):
    task = write_task(tmp_path, ITEMS)
    assert contract_problems(task) == []
    contract = load_contract(task)
    item = contract.item("temperature")
    assert (
        item.range == (5.0, 300.0)
        and item.mutate["values"] == ["310"]
        and contract.item("a.json").files() == ["a.json"]
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (("Run 5 ps at 300 K", "Run 5 ps at 310 K"), "its quote is not in instruction.md"),
        (("range = [5, 300]", "range = [5, 290]"), "290 is not stated in its quote"),
        (('checks = ["temperature 300 K"]', 'checks = ["pressure 1 bar"]'), "no check named 'pressure 1 bar'"),
        (('values = ["310"]', 'values = ["310"], files = ["solution/none.sh"]'), "matches none of"),
        (("; smallest mistake a neighbouring temperature (310 K)", ""), "without its resolution"),
    ],
)
def test_a_contract_drifting_from_its_instruction_or_verifier_fails(tmp_path, change, problem):
    task = write_task(tmp_path, ITEMS.replace(*change))
    assert any(problem in p for p in contract_problems(task)), contract_problems(task)


def test_a_number_the_instruction_states_outside_every_quote_is_a_problem(tmp_path):
    task = write_task(tmp_path, ITEMS, instruction="Run 5 ps at 300 K with 2 fs steps; write `/app/output/a.json`.")
    assert ["2" in p and "no item or descriptive quote covers it" in p for p in contract_problems(task)] == [True]
    task = write_task(
        tmp_path, 'descriptive = ["with 2 fs steps"]\n' + ITEMS, instruction=(tmp_path / "instruction.md").read_text()
    )
    assert contract_problems(task) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[item]]\nid = "x"\nkind = "wish"\nquote = "q"\nchecks = ["c"]\n', "kind must be one of"),
        ('[[item]]\nid = "x"\nkind = "file"\nquote = "q"\n', "lacks 'checks'"),
        ('[[item]]\nid = "x y"\nkind = "file"\nquote = "q"\nchecks = ["c"]\n', "id must be"),
        ('[[item]]\nid = "x"\nkind = "file"\nquote = "q"\nchecks = ["c"]\n' * 2, "appears twice"),
        ('[[item]]\nid = "x"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nrange = [3, 1]\n', "low <= high"),
        ('[[item]]\nid = "x"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nmutate = {pattern = "no group"}\n', "group"),
        ('[[item]]\nid = "x"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nmutate = {key = "dt"}\n', "needs values"),
        ('[[item]]\nid = "x"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\ncolour = 1\n', "unknown keys"),
        ("", "no [[item]]"),
    ],
)
def test_a_malformed_contract_names_the_file_and_the_fix(tmp_path, text, message):
    (tmp_path / "contract.toml").write_text(text)
    with pytest.raises(TaskError, match="contract.toml") as error:
        load_contract(tmp_path)
    assert message in str(error.value)


def test_check_names_are_the_verifiers_literals_templates_and_tables(tmp_path):
    task = write_task(tmp_path, ITEMS)
    assert check_names(task / "tests" / "verify.py") == {"a.json readable", "temperature {t} K", "length"}
    assert names_check("temperature 300 K", {"temperature {t} K"}) and not names_check(
        "pressure", {"temperature {t} K"}
    )


def test_numbers_are_the_stated_ones_not_parts_of_names_exponents_or_list_markers():
    assert numbers_in(normalize("1. Run 2 fs x 1000 steps with amber14 in kJ mol^-1 nm^-2 at 0-based 298.15 K")) == [
        2.0,
        1000.0,
        0.0,
        298.15,
    ]
