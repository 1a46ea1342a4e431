"""One task's mutation record: its image, its oracle run, every mutant run and verified, killed or survived, and the
do-nothing case."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Sequence

from westbench.agents.contract import load_contract
from westbench.agents.contract.resolution import resolution_rows, resolution_summary
from westbench.agents.grading import PASS_TOLERANCE
from westbench.agents.mutation import Mutant, all_mutants, load_equivalents
from westbench.agents.mutation_run.containers import Engine, MutationError, build_image
from westbench.agents.mutation_run.solutions import artifact_paths, run_solution
from westbench.agents.mutation_run.verifier import ORACLE_CASE, verify_cases
from westbench.agents.tasks import fingerprint, load_task

NOP_CASE = "zz-nop"  # verified last, like any case; nothing delivered


def _case_changes(mutant: Mutant, output_root: str) -> dict:
    """An output mutant's changes with absolute paths in the container."""
    return {f"{output_root.rstrip('/')}/{path}": text for path, text in mutant.changes.items()}


def _mutated_solution(task, mutant: Mutant, scratch: Path) -> Path:
    """A copy of the task's solution in ``scratch`` with a solution mutant's edits (None deletes the file)."""
    solution = scratch / "solution"
    shutil.copytree(task.path / "solution", solution)
    for relative, text in mutant.changes.items():
        target = scratch / relative
        if not target.resolve().is_relative_to(scratch.resolve()):
            raise MutationError(f"{task.name}: mutant {mutant.id} edits {relative}, outside the solution")
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    return solution


def _mutant_cases(engine_: Engine, image: str, task, mutants: Sequence[Mutant], output_root: str, runs: Path):
    """Each mutant's verifier case (``m0000``, ...): an output mutant's file changes, a solution mutant's run (its
    solution run in a scratch copy); the cases and the solution runs' records."""
    cases, solution_runs = {}, {}
    for index, mutant in enumerate(mutants):
        name = f"m{index:04d}"
        if mutant.level == "output":
            cases[name] = {"files": _case_changes(mutant, output_root)}
            continue
        with tempfile.TemporaryDirectory(prefix="westbench-mutant-") as scratch:
            solution = _mutated_solution(task, mutant, Path(scratch))
            root, info = run_solution(engine_, image, task, solution, runs, name)
        solution_runs[name] = info
        cases[name] = {"root": root}
    return cases, solution_runs


def _outcome(result: dict, oracle: dict, oracle_ok: bool, solution_run: dict | None) -> tuple[str, bool]:
    """A mutant's verdict text and whether the verifier killed it (never when the oracle itself failed)."""
    correctness = result["correctness"]
    if not oracle_ok:
        outcome, killed = f"error: the reference solution scored {oracle['correctness']} ({oracle['note']})", False
    elif correctness is None:
        outcome, killed = f"error: not graded ({result['note'] or 'no reward written'})", False
    else:
        killed = correctness < 1.0 - PASS_TOLERANCE
        outcome = f"{correctness:g}" + (f"; failed: {' | '.join(result['failed'][:4])}" if result["failed"] else "")
        if result["note"]:
            outcome += f"; {result['note']}"
    if solution_run is not None and solution_run["exit_code"] not in (0, None):
        outcome += f"; solve.sh exited {solution_run['exit_code']}"
    return outcome, killed


def _row(task_name: str, mutant: Mutant, result: dict, outcome: str, killed: bool, equivalents: dict) -> dict:
    """A mutant's row of the record."""
    return {
        "task": task_name,
        "mutant": mutant.id,
        "operator": mutant.operator,
        "file": mutant.file,
        "description": mutant.description,
        "killed": bool(killed),
        "outcome": outcome,
        "level": mutant.level,
        "correctness": result["correctness"],
        "equivalent": (not killed) and mutant.id in equivalents,
        "equivalent_reason": equivalents.get(mutant.id, "") if not killed else "",
        "verifier_s": result["elapsed_s"],
    }


def mutate_task(
    task_path: str | Path,
    cache_dir: str | Path,
    engine: str = "docker",
    operators: Sequence[str] | None = None,
    levels: Sequence[str] = ("output", "solution"),
) -> dict:
    """Every mutant of one task, run through its verifier: the record ``results/agents/mutation/<task>.json`` holds.

    ``operators`` (default all) and ``levels`` restrict which mutants run (the CI test runs a subset).
    """
    task = load_task(task_path)
    engine_ = Engine(engine)
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    image = build_image(task, engine_)
    oracle_root, oracle_run = run_solution(engine_, image, task, task.path / "solution", cache / "runs", "oracle")
    artifacts = artifact_paths(task)
    # Mutate the delivered files relative to the one artifact folder (ids read "energy.json", not "app/output/...").
    output_root = artifacts[0] if len(artifacts) == 1 else "/"
    delivered = oracle_root / output_root.lstrip("/")
    contract = load_contract(task.path)
    mutants = [
        m
        for m in all_mutants(task.path, delivered, contract)
        if (operators is None or m.operator in operators) and m.level in levels
    ]
    cases, solution_runs = _mutant_cases(engine_, image, task, mutants, output_root, cache / "runs")
    # The do-nothing agent too: a verifier records its whole list of checks whatever is missing (docs/agents.md).
    empty = cache / "work" / "nop-root"
    empty.mkdir(parents=True, exist_ok=True)
    cases[NOP_CASE] = {"root": empty}
    verified = verify_cases(engine_, image, task, oracle_root, cases, cache / "work")
    nop = verified.pop(NOP_CASE)
    cases.pop(NOP_CASE)
    equivalents = load_equivalents(task.path)
    oracle = verified[ORACLE_CASE]
    oracle_ok = oracle["correctness"] is not None and oracle["correctness"] >= 1.0 - PASS_TOLERANCE
    rows = []
    for index, mutant in enumerate(mutants):
        name = f"m{index:04d}"
        outcome, killed = _outcome(verified[name], oracle, oracle_ok, solution_runs.get(name))
        rows.append(_row(task.name, mutant, verified[name], outcome, killed, equivalents))
    resolution = resolution_rows(contract.items) if contract else []
    unused = sorted(set(equivalents) - {m.id for m in mutants})
    stale = sorted(r["mutant"] for r in rows if r["killed"] and r["mutant"] in equivalents)
    return {
        "task": task.name,
        "fingerprint": fingerprint(task.path),
        "image": image,
        "oracle": {**oracle, "solve": oracle_run},
        "nop": nop,
        "mutants": rows,
        "equivalent_unknown": unused,
        "equivalent_killed": stale,  # justified as equivalent, yet the verifier kills them: drop the justification
        "resolution": resolution,  # the size of what "killed" means
        "resolution_summary": resolution_summary(resolution),
        "elapsed_s": round(time.monotonic() - started, 1),
    }
