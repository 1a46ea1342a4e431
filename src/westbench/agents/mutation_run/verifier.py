"""Every case (the oracle's outputs, each mutant's) through the task's verifier in one container; each case's reward
read as Harbor reads it."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Mapping

from westbench.agents.grading import correctness_of
from westbench.agents.mutation_run.containers import Container, Engine
from westbench.agents.mutation_run.solutions import artifact_paths
from westbench.agents.tasks import TaskInfo

MUTANTS_DIR = "/westbench-mutants"
RESULTS_DIR = "/westbench-results"
PRISTINE_DIR = "/westbench-pristine"
ORACLE_CASE = "oracle"


DRIVER = r"""
set -u
mkdir -p {results} {pristine}
for a in {artifacts}; do
  if [ -e "$a" ]; then mkdir -p "{pristine}$(dirname "$a")"; cp -a "$a" "{pristine}$a"; fi
done
for case in $(ls {mutants}); do
  for a in {artifacts}; do
    rm -rf "$a"
    if [ -e "{pristine}$a" ]; then mkdir -p "$(dirname "$a")"; cp -a "{pristine}$a" "$a"; fi
  done
  if [ -f "{mutants}/$case/full" ]; then
    cp -a "{mutants}/$case/root/." / 2>/dev/null
  else
    cp -a "{mutants}/oracle/root/." / 2>/dev/null
    [ -d "{mutants}/$case/files" ] && cp -a "{mutants}/$case/files/." / 2>/dev/null
    if [ -f "{mutants}/$case/deleted" ]; then
      while IFS= read -r path; do rm -rf "$path"; done < "{mutants}/$case/deleted"
    fi
  fi
  rm -rf /logs/verifier; mkdir -p /logs/verifier
  find /tmp -mindepth 1 -delete 2>/dev/null
  start=$(date +%s.%N)
  (cd /tests && timeout {timeout} bash /tests/test.sh) > "{results}/$case.log" 2>&1
  echo "$? $start $(date +%s.%N)" > "{results}/$case.exit"
  for f in reward.json reward.txt checks.json; do
    [ -f "/logs/verifier/$f" ] && cp "/logs/verifier/$f" "{results}/$case.$f"
  done
done
"""


def _reward(folder: Path, case: str) -> tuple[float | None, list[str], str, int | None]:
    """Correctness, failed checks, a note and the number of checks of one verified case from the copied results."""
    failed, note, total = [], "", None
    correctness = None
    reward_json, reward_txt = folder / f"{case}.reward.json", folder / f"{case}.reward.txt"
    if reward_json.is_file():
        try:
            correctness = correctness_of(json.loads(reward_json.read_text()))
        except ValueError:
            note = "reward.json unreadable"
    elif reward_txt.is_file():
        try:
            correctness = float(reward_txt.read_text().split()[0])
        except (ValueError, IndexError):
            note = "reward.txt unreadable"
    checks = folder / f"{case}.checks.json"
    if checks.is_file():
        try:
            detail = json.loads(checks.read_text())
            items = detail.get("checks", []) if isinstance(detail, dict) else None
            if not isinstance(items, list) or not all(isinstance(c, dict) for c in items):
                raise ValueError("checks.json is not a table of checks")  # a malformed file reads as unreadable
            failed = [c["name"] for c in items if not c.get("passed")]
            total = len(items)
            if detail.get("error"):
                note = str(detail["error"])[:300]
        except (ValueError, KeyError, TypeError):
            pass
    exit_file = folder / f"{case}.exit"
    if exit_file.is_file() and exit_file.read_text().split()[:1] == ["124"]:
        correctness, note = None, "verifier timed out"
    return correctness, failed, note, total


def verify_cases(
    engine: Engine, image: str, task: TaskInfo, oracle_root: Path, cases: Mapping[str, dict], work: Path
) -> dict[str, dict]:
    """Run the verifier on every case in one container of the image; per case its correctness and failed checks.

    ``cases`` maps a case name to ``{"root": folder}`` (a whole run's artifacts) or ``{"files": {path: text or
    None}}`` (changes to the oracle outputs, paths absolute in the container).
    """
    mutants = work / "mutants"
    if mutants.exists():
        shutil.rmtree(mutants)
    shutil.copytree(oracle_root, mutants / ORACLE_CASE / "root", symlinks=True)
    for name, case in cases.items():
        folder = mutants / name
        folder.mkdir(parents=True, exist_ok=True)
        if "root" in case:
            shutil.copytree(case["root"], folder / "root", symlinks=True)
            (folder / "full").write_text("")
            continue
        deleted = []
        for path, text in case["files"].items():
            if text is None:
                deleted.append(path)
                continue
            target = folder / "files" / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        if deleted:
            (folder / "deleted").write_text("".join(p + "\n" for p in deleted))
    script = DRIVER.format(
        results=RESULTS_DIR,
        pristine=PRISTINE_DIR,
        mutants=MUTANTS_DIR,
        artifacts=" ".join(shlex.quote(a) for a in artifact_paths(task)),
        timeout=int(task.verifier_timeout_s),
    )
    results = work / "results"
    if results.exists():
        shutil.rmtree(results)
    per_case = task.verifier_timeout_s + 30
    with Container(engine, image, task, "verify") as container:
        container.copy_in(task.path / "tests", "/tests")
        container.copy_in(mutants, MUTANTS_DIR)
        container.exec(script, timeout=per_case * (len(cases) + 1) + 120)
        container.copy_out(RESULTS_DIR, results)
    found = {}
    for name in [ORACLE_CASE, *cases]:
        correctness, failed, note, total = _reward(results, name)
        elapsed = None
        exit_file = results / f"{name}.exit"
        if exit_file.is_file():
            parts = exit_file.read_text().split()
            try:
                elapsed = round(float(parts[2]) - float(parts[1]), 2)
            except (IndexError, ValueError):
                pass
        found[name] = {
            "correctness": correctness,
            "failed": failed,
            "note": note,
            "elapsed_s": elapsed,
            "checks": total,
        }
    return found
