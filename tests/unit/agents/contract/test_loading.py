"""contract.toml read into a Contract; every malformed item refused naming the file, the item and the fix."""

import pytest

from westbench.agents.contract.loading import CONTRACT, KINDS, Contract, Item, load_contract
from westbench.agents.tasks import TaskError

GOOD = (
    '[[item]]\nid = "dt"\nkind = "parameter"\nquote = "a 2 fs timestep"\nchecks = "dt is 2 fs"\nvalue = 2\n'
    'unit = "fs"\nmutate = {key = "dt", scale = 0.001}\n'
    '[[item]]\nid = "temperature"\nkind = "parameter"\nquote = "between 290 and 310 K"\nchecks = ["t"]\n'
    "range = [290, 310]\n"
    '[[item]]\nid = "out.json"\nkind = "file"\nquote = "write out.json"\nchecks = ["c"]\nfile = ["out.json", "*.xvg"]\n'
)


def write(tmp_path, text):
    (tmp_path / CONTRACT).write_text(text)
    return tmp_path


def test_a_contract_reads_into_items_with_their_numbers_and_files(tmp_path):
    contract = load_contract(write(tmp_path, 'descriptive = ["the box is 3 nm wide"]\n' + GOOD))
    assert isinstance(contract, Contract) and contract.path == tmp_path / CONTRACT
    assert [item.id for item in contract.items] == ["dt", "temperature", "out.json"]
    assert contract.descriptive == ("the box is 3 nm wide",)
    dt = contract.item("dt")
    assert dt.checks == ("dt is 2 fs",) and dt.unit == "fs" and dt.mutate == {"key": "dt", "scale": 0.001}
    assert dt.stated_numbers() == [2.0] and dt.files() == []
    assert contract.item("temperature").range == (290.0, 310.0)
    assert contract.item("temperature").stated_numbers() == [290.0, 310.0]
    assert contract.item("out.json").files() == ["out.json", "*.xvg"]
    assert set(KINDS) >= {item.kind for item in contract.items}


def test_a_task_without_contract_has_none(tmp_path):
    assert load_contract(tmp_path) is None


def test_a_boolean_value_states_no_number():
    assert Item("x", "decision", "q", ("c",), value=True).stated_numbers() == []
    assert Item("x", "file", "q", ("c",), file="a.json").files() == ["a.json"]


@pytest.mark.parametrize(
    "text, problem",
    [
        ("not toml [", "not valid TOML"),
        ('title = "x"\n', r"unknown top-level keys \['title'\]"),
        ("descriptive = []\n", r"no \[\[item\]\]"),
        (GOOD + '[[item]]\nid = "dt"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\n', "item id 'dt' appears twice"),
        ('[[item]]\nid = "a"\nkind = "file"\nquote = "q"\n', r"item 1 \(a\) lacks 'checks'"),
        ('[[item]]\nid = "a b"\nkind = "file"\nquote = "q"\nchecks = ["c"]\n', "id must be letters, digits"),
        ('[[item]]\nid = "a"\nkind = "wish"\nquote = "q"\nchecks = ["c"]\n', "kind must be one of"),
        ('[[item]]\nid = "a"\nkind = "file"\nquote = " "\nchecks = ["c"]\n', "quote must be the passage"),
        ('[[item]]\nid = "a"\nkind = "file"\nquote = "q"\nchecks = []\n', "checks must name at least one check"),
        ('[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nrange = [3, 1]\n', "low <= high"),
        ('[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\ncolour = 1\n', r"unknown keys \['colour'\]"),
        ('[[item]]\nid = "a"\nkind = "file"\nquote = "q"\nchecks = ["c"]\nfile = []\n', "file must be a glob"),
        (
            '[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nvalue = 1\nmutate = {pattern = "x="}\n',
            "mutate.pattern needs a group",
        ),
        (
            '[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nmutate = {remove = "("}\n',
            "mutate.remove is not a regular expression",
        ),
        (
            '[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nmutate = {values = [1], level = "x"}\n',
            "mutate.level must be one of",
        ),
        ('[[item]]\nid = "a"\nkind = "unit"\nquote = "q"\nchecks = ["c"]\nmutate = {key = "dt"}\n', "mutate needs"),
        ("descriptive = [1]\n" + GOOD, "descriptive must be a list of quotes"),
    ],
)
def test_a_malformed_contract_is_refused_naming_the_file_and_the_fix(tmp_path, text, problem):
    write(tmp_path, text)
    with pytest.raises(TaskError, match=problem) as raised:
        load_contract(tmp_path)
    assert str(raised.value).startswith(f"{tmp_path / CONTRACT}: ")
