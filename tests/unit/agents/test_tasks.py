"""The task suite as shipped, any other task folder as a valid Harbor task, the loader on broken or foreign folders.

House rules apply to westbench's own tasks (``[task].name`` in the ``westbench/`` namespace) only: a task
written elsewhere and dropped into tasks/ has to be a valid Harbor task, nothing more.
"""

import json
import os
import tomllib

import pytest

from westbench.agents.judge import load_rubric
from westbench.agents.tasks import TaskError, discover_tasks, fingerprint, load_task, select_tasks

from ...conftest import REPO

TASKS = REPO / "tasks"
REQUIRED_CATEGORIES = {
    "preparation",
    "system-building",
    "analysis",
    "we-setup",
    "diagnosis",
    "parameterization",
    "long-horizon",
    "underspecified",
    "negative",
}


@pytest.fixture(scope="module")
def suite():
    return [task for task in discover_tasks(TASKS) if task.shipped]


def test_every_task_folder_is_a_valid_harbor_task():
    for task in discover_tasks(TASKS):  # shipped or dropped in: loads, and Harbor has what it runs
        assert [p for p in task.problems() if "solve.sh" not in p] == [], task.name


def test_suite_has_36_complete_tasks_over_all_difficulties_and_required_categories(suite):
    assert len(suite) >= 36
    difficulties = [t.difficulty for t in suite]
    assert set(difficulties) == {"easy", "medium", "hard"}
    assert difficulties.count("medium") < len(suite) / 2 and difficulties.count("hard") >= len(suite) / 4
    assert REQUIRED_CATEGORIES <= {t.category for t in suite}
    for task in suite:
        assert task.problems() == [], task.name


def test_every_task_isolates_its_verifier_and_has_no_network(suite):
    for task in suite:
        assert task.isolated_verifier and task.artifacts == ("/app/output",), task.name
        assert not task.network, task.name
        assert task.agent_timeout_s and task.verifier_timeout_s <= 300 and task.cpus and task.memory_mb, task.name


PROJECT_IMAGES = {
    "westbench/md-base:bookworm-1",
    "westbench/gromacs-base:bookworm-2",
    "westbench/analysis-base:bookworm-1",
    "westbench/chem-base:bookworm-1",
    "westbench/lammps-base:bookworm-1",
}


def task_structure_entries() -> dict[str, str]:
    """{task: file name} of the RCSB entries tools/task_structures.py writes into tasks' inputs (never committed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("task_structures", REPO / "tools" / "task_structures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {task: f"{pdb_id}.pdb" for task, pdb_id, _ in module.ENTRIES}


def test_every_task_builds_from_a_project_base_image_and_ships_its_inputs(suite):
    """Committed inputs, or an RCSB entry tools/task_structures.py writes (a bare clone offline lacks those: the
    structures tier below checks them)."""
    entries = task_structure_entries()
    for task in suite:
        assert len(task.base_images) == 1 and set(task.base_images) <= PROJECT_IMAGES, task.name
        inputs = task.path / "environment" / "inputs"
        assert task.name in entries or (inputs.is_dir() and any(inputs.rglob("*"))), task.name
        assert sum(p.stat().st_size for p in inputs.rglob("*") if p.is_file()) < 200_000, (
            f"{task.name}: inputs too large"
        )


@pytest.mark.structures
def test_the_tasks_rcsb_entries_are_in_their_inputs():
    """tools/test.sh writes them before the tests (tools/task_structures.py); only the fast lane may lack them."""
    for task, name in task_structure_entries().items():
        assert (TASKS / task / "environment" / "inputs" / name).is_file(), f"{task}: run tools/task_structures.py"


def test_every_instruction_states_a_contract_of_deliverables_under_app_output(suite):
    for task in suite:
        text = (task.path / "instruction.md").read_text()
        assert "Deliverables (contract)" in text and "/app/output/" in text, task.name


def test_every_task_has_a_rubric_of_process_criteria(suite):
    for task in suite:
        rubric = load_rubric(task.path / "rubric.toml")
        assert len(rubric["criteria"]) >= 3, task.name
        assert {c["type"] for c in rubric["criteria"]} <= {"binary", "likert"}


def test_verifier_helper_copies_match_the_library():
    source = (REPO / "src" / "westbench" / "agents" / "verifykit.py").read_bytes()
    shipped = [task.name for task in discover_tasks(TASKS) if task.shipped]
    copies = sorted(TASKS / name / "tests" / "verifykit.py" for name in shipped)
    stale = [str(c) for c in copies if not c.is_file() or c.read_bytes() != source]
    assert not stale, f"missing or differing; run `python3 tools/sync-verifykit.py`: {stale}"


def test_every_lammps_task_ships_the_lammps_helper_as_the_library_has_it():
    source = (REPO / "src" / "westbench" / "agents" / "lammpskit.py").read_bytes()
    lammps = [t for t in discover_tasks(TASKS) if t.shipped and any("lammps-base" in b for b in t.base_images)]
    copies = {t.name: t.path / "tests" / "lammpskit.py" for t in lammps}
    stale = [name for name, copy in copies.items() if not copy.is_file() or copy.read_bytes() != source]
    assert lammps and not stale, f"run `python3 tools/sync-verifykit.py`: {stale}"


def test_loader_names_the_file_and_the_fix(tmp_path):
    with pytest.raises(TaskError, match="task.toml not found"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[agent\n")
    with pytest.raises(TaskError, match="not valid TOML"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[verifier]\ntimeout_sec = -1\n")
    with pytest.raises(TaskError, match=r"\[verifier\].timeout_sec must be a positive number"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[environment]\nallow_internet = true\n")
    task = load_task(tmp_path)
    assert task.network and task.difficulty == "unknown" and task.category == "uncategorized"
    assert any("tests/test.sh is missing" in p for p in task.problems())
    assert any("environment/Dockerfile is missing" in p for p in task.problems())


def test_fingerprint_changes_with_any_file(tmp_path):
    (tmp_path / "task.toml").write_text("x = 1\n")
    before = fingerprint(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test.sh").write_text("exit 0\n")
    assert fingerprint(tmp_path) != before


def test_task_toml_files_are_harbor_schema_1_4(suite):
    for path in (task.path / "task.toml" for task in suite):
        config = tomllib.loads(path.read_text())
        assert config["schema_version"] == "1.4" and config["verifier"]["environment_mode"] == "separate", path


def test_a_foreign_task_is_not_shipped_and_selection_picks_tasks_by_name_or_pattern():
    foreign = load_task(REPO / "tests" / "containers" / "fixtures" / "forge-tasks" / "answer-shared")
    assert not foreign.shipped and foreign.problems() == []
    assert load_task(TASKS / "we-contact-map").shipped
    names = ["hello", "we-contact-map", "we-weighted-rg"]
    assert select_tasks(names, []) == names and select_tasks(names, ["we-*", "hello"]) == names
    assert select_tasks(names, ["we-w*"]) == ["we-weighted-rg"]
    with pytest.raises(TaskError, match="agents.select.tasks names 'nope'"):
        select_tasks(names, ["nope"])


# The near misses as shipped: plausible wrong solutions the gate runs as the reference and requires below 1.
SLIPPED = {
    ("gmx-crystal-waters", "no-posre-itp"),
    ("gmx-solvate-ions", "no-posre-itp"),
    ("alchemlyb-mbar-harmonic", "raw-samples-inflated-error"),
    ("underspecified-protonation", "propka-claimed-not-run"),
}


def test_near_misses_are_well_formed_and_cover_the_three_slipped_cases(suite):
    from westbench.agents.tasks import near_misses

    shipped = {(task.name, name): folder for task in suite for name, folder in near_misses(task.path).items()}
    assert SLIPPED <= set(shipped) and len(shipped) >= 68
    for (task, name), folder in shipped.items():
        script = (folder / "solve.sh").read_text()
        assert script.startswith("#!/bin/bash\n"), f"{folder}/solve.sh"
        assert script != (TASKS / task / "solution" / "solve.sh").read_text(), f"{folder} is the reference solution"
        assert len((folder / "why.md").read_text().strip().splitlines()) == 1


# Near misses a task must ship, by difficulty (docs/agents.md, "Near misses"; CONTRIBUTING.md).
MIN_NEAR_MISSES = {"easy": 1, "medium": 2, "hard": 2}


def test_every_task_ships_its_near_misses_each_an_executable_solve_sh_and_a_why_md(suite):
    from westbench.agents.tasks import near_misses

    short = {}
    for task in suite:
        found = near_misses(task.path)
        if len(found) < MIN_NEAR_MISSES[task.difficulty]:
            short[task.name] = f"{task.difficulty}: {len(found)} of {MIN_NEAR_MISSES[task.difficulty]}"
        for name, folder in found.items():
            solve = folder / "solve.sh"
            assert solve.stat().st_size and os.access(solve, os.X_OK), f"{solve}: not executable (chmod +x) or empty"
            assert (folder / "why.md").read_text().strip(), f"{folder}/why.md is empty"
    assert not short, f"tasks short of near misses (easy >= 1, medium and hard >= 2): {short}"


def test_a_near_miss_is_not_part_of_its_task_and_a_malformed_one_names_the_fix(tmp_path):
    from westbench.agents.tasks import near_misses

    (tmp_path / "task.toml").write_text("x = 1\n")
    before = fingerprint(tmp_path)
    folder = tmp_path / "near_misses" / "made-up"
    folder.mkdir(parents=True)
    (folder / "solve.sh").write_text("#!/bin/bash\necho 1\n")
    assert fingerprint(tmp_path) == before  # editing a near miss reruns no trial of the task
    with pytest.raises(TaskError, match="why.md: write one line"):
        near_misses(tmp_path)
    (folder / "why.md").write_text("Invents the numbers.\n")
    assert list(near_misses(tmp_path)) == ["made-up"]
    (tmp_path / "near_misses" / "empty").mkdir()
    with pytest.raises(TaskError, match="solve.sh not found"):
        near_misses(tmp_path)


# Near misses whose mistake is in the analysis may reuse a recorded run of the reference protocol (run/ beside their
# solve.sh, with provenance.json) instead of repeating its MD; the run must still be the reference solution's own.
RECORDED_RUN = ("# model 1 only, with the deposited hydrogens removed", "del simulation\n")


def test_a_near_miss_reusing_a_recorded_run_reuses_the_reference_protocol_unchanged():
    import hashlib

    task = TASKS / "long-horizon-trpcage-nmr"
    reference = (task / "solution" / "solve.sh").read_text()
    start, end = RECORDED_RUN
    block = reference[reference.index(start) : reference.index(end) + len(end)]
    folders = [f for f in sorted((task / "near_misses").iterdir()) if (f / "run" / "provenance.json").is_file()]
    assert len(folders) == 2
    for folder in folders:
        provenance = json.loads((folder / "run" / "provenance.json").read_text())
        assert provenance["protocol"] == hashlib.sha256(block.encode()).hexdigest(), (
            f"{folder}/run was recorded from another protocol than solution/solve.sh's: record it again"
        )
        recorded = {"minimized.pdb", "trajectory.dcd", "integrator.xml", "initial_state.xml"}
        assert {p.name for p in (folder / "run").iterdir()} == {"provenance.json"} | recorded
        for name in recorded:
            assert (folder / "run" / name).read_bytes() == (folders[0] / "run" / name).read_bytes()
        # the fallback (a changed input or OpenMM) runs the reference's own lines
        script = (folder / "solve.sh").read_text()
        fallback = script[script.index("    " + start) : script.index("    " + end) + len(end) + 4]
        dedented = "".join(line[4:] if line.strip() else line for line in fallback.splitlines(True))
        assert dedented == block.replace('forcefield_files = ["amber14-all.xml", "implicit/gbn2.xml"]\n', ""), folder
