"""Composition of the task suite from task.toml tags, and trials broken down by tag."""

import pandas as pd
import pytest

from westbench.agents.composition import (
    TAGS,
    CompositionError,
    breakdown_by_tag,
    composition_figure,
    composition_markdown,
    composition_table,
    suite_composition,
)

from ...conftest import REPO


def write_task(
    root, name, difficulty="easy", packages='["gromacs"]', method="analysis", image="westbench/md-base:bookworm-1"
):
    folder = root / name
    (folder / "environment").mkdir(parents=True)
    (folder / "task.toml").write_text(
        f'[metadata]\ndifficulty = "{difficulty}"\ncategory = "analysis"\npackages = {packages}\n'
        f'system = "peptide"\nmethod = "{method}"\n'
    )
    (folder / "environment" / "Dockerfile").write_text(f"FROM {image}\n")


@pytest.fixture(scope="module")
def suite():
    return suite_composition(REPO / "tasks")


def test_every_task_of_the_suite_is_tagged(suite):
    assert len(suite) == len(list((REPO / "tasks").glob("*/task.toml"))) >= 36
    for tag in ("difficulty", "category", "system", "method"):
        assert "unknown" not in set(suite[tag]), suite.loc[suite[tag] == "unknown", "task"].tolist()
    assert all(p and "unknown" not in p for p in suite["packages"])


def test_suite_meets_the_composition_targets(suite):
    table = composition_table(suite).set_index(["tag", "value"])["tasks"]
    n = len(suite)
    assert 0.15 <= table["difficulty", "easy"] / n <= 0.3 and table["difficulty", "medium"] / n < 0.5
    assert 0.25 <= table["difficulty", "hard"] / n <= 0.45
    assert len(table["method"]) >= 10
    for package in (
        "gromacs",
        "mdanalysis",
        "alchemlyb",
        "pymbar",
        "pdb2pqr",
        "propka",
        "physical-validation",
        "xtb",
        "parmed",
        "openmm",
        "mdtraj",
    ):
        assert table["package", package] >= 1, package
    for category in ("negative", "underspecified", "long-horizon"):
        assert table["category", category] >= 3, category
    assert set(suite["image"]) == {
        "westbench/md-base:bookworm-1",
        "westbench/gromacs-base:bookworm-2",
        "westbench/analysis-base:bookworm-1",
        "westbench/chem-base:bookworm-1",
        "westbench/lammps-base:bookworm-1",
    }


def test_table_counts_a_task_under_each_of_its_packages_and_orders_difficulties(tmp_path):
    write_task(tmp_path, "b", "hard", '["gromacs", "parmed"]', "parameterization")
    write_task(tmp_path, "a", "easy")
    write_task(tmp_path, "c", "medium", '["xtb"]', "QM")
    suite = suite_composition(tmp_path)
    table = composition_table(suite)
    assert list(table[table["tag"] == "difficulty"]["value"]) == ["easy", "medium", "hard"]
    packages = table[table["tag"] == "package"].set_index("value")["tasks"].to_dict()
    assert packages == {"gromacs": 2, "parmed": 1, "xtb": 1}
    assert table[table["tag"] == "package"]["value"].iloc[0] == "gromacs"  # most tasks first
    assert table[table["tag"] == "difficulty"]["share"].sum() == pytest.approx(1.0)
    text = composition_markdown(suite)
    assert "| package (3) | gromacs 2, parmed 1, xtb 1 |" in text and "| tag | 3 tasks |" in text


def test_untagged_task_counts_as_unknown_and_bad_packages_name_the_file(tmp_path):
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "task.toml").write_text('version = "1.0"\n')
    suite = suite_composition(tmp_path)
    assert suite.iloc[0][["difficulty", "method", "image"]].tolist() == ["unknown", "unknown", "unknown"]
    assert suite.iloc[0]["packages"] == ("unknown",)
    write_task(tmp_path, "bad", packages='"gromacs"')
    with pytest.raises(CompositionError, match=r"bad/task.toml: \[metadata\] packages must be a list"):
        suite_composition(tmp_path)
    with pytest.raises(CompositionError, match="no such tasks folder"):
        suite_composition(tmp_path / "missing")


def test_breakdown_by_tag_splits_trials_by_every_tag(tmp_path):
    write_task(tmp_path, "a", "easy", '["gromacs", "parmed"]', "parameterization")
    write_task(tmp_path, "b", "hard", '["xtb"]', "QM")
    suite = suite_composition(tmp_path)
    trials = pd.DataFrame(
        [
            {"task": "a", "agent": "oracle", "correctness": 1.0, "score": 100.0},
            {"task": "b", "agent": "oracle", "correctness": 1.0, "score": 100.0},
            {"task": "a", "agent": "nop", "correctness": 0.0, "score": 0.0},
            {"task": "b", "agent": "nop", "correctness": 0.5, "score": 50.0},
            {"task": "elsewhere", "agent": "nop", "correctness": 1.0, "score": 100.0},
        ]
    )
    table = breakdown_by_tag(trials, suite)
    assert list(dict.fromkeys(table["tag"])) == list(TAGS)
    nop = table[table["agent"] == "nop"].set_index(["tag", "value"])
    assert (
        nop.loc[("difficulty", "hard"), "mean_correctness"] == 0.5
        and nop.loc[("difficulty", "hard"), "pass_rate"] == 0.0
    )
    assert nop.loc[("package", "parmed"), "trials"] == 1 and nop.loc[("package", "gromacs"), "avg_score"] == 0.0
    assert nop.loc[("method", "unknown"), "pass_rate"] == 1.0  # a task missing from the suite still counts
    oracle = table[table["agent"] == "oracle"]
    assert (oracle["pass_rate"] == 1.0).all() and len(oracle) == 2 + 1 + 3 + 1 + 2  # values per tag
    assert list(table[(table["tag"] == "difficulty") & (table["agent"] == "oracle")]["value"]) == ["easy", "hard"]
    with pytest.raises(CompositionError, match="lacks the columns"):
        breakdown_by_tag(trials.drop(columns="correctness"), suite)
    with pytest.raises(CompositionError, match="unknown tags"):
        breakdown_by_tag(trials, suite, tags=("colour",))


def test_figure_is_written(tmp_path, suite):
    composition_figure(suite, tmp_path / "composition.png")
    assert (tmp_path / "composition.png").stat().st_size > 20_000


def test_tagged_grid_feeds_the_leaderboard_per_tag_value():
    from westbench.agents.composition import suite_composition, tagged_grid
    from westbench.agents.statistics import complete_grid, leaderboard

    from ...conftest import REPO

    suite = suite_composition(REPO / "tasks")
    tasks = list(suite["task"][:4])
    trials = pd.DataFrame(
        {"task": tasks, "agent": "oracle", "model": "none", "attempt": 1, "status": "passed", "correctness": 1.0}
    )
    trials.loc[0, "status"] = "agent_timeout"  # verifier scored 1, the agent timed out
    grid = complete_grid(trials, tasks, [("oracle", "none")], attempts=1)
    board = leaderboard(tagged_grid(grid, suite), attempts=1, by=["tag", "value"])
    per_difficulty = board[board["tag"] == "difficulty"]
    assert per_difficulty["tasks"].sum() == 4  # every task under exactly one difficulty
    packages = board[board["tag"] == "package"]
    assert packages["tasks"].sum() == sum(len(p) for p in suite["packages"][:4])  # once per package
    first = suite.iloc[0]
    row = per_difficulty[per_difficulty["value"] == first["difficulty"]].iloc[0]
    assert row["pass_rate"] < 1.0  # the timed-out trial fails there whatever its correctness
