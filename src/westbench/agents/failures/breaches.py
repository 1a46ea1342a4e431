"""Contract-breach signatures of a trial: missing deliverable, failed deterministic check, judge-assessed shortfall.

Read from what the trial left (the verifier's ``checks.json``, the deliverables Harbor copied out, the judge's
``judge.json``) and the task's contract (the ``## Deliverables`` section every instruction ends with):

* **missing deliverable**: a deliverable of the contract that the trial did not deliver *and* that a failed
  check names (in its name or reason). A contract name is a backticked file name in the contract section
  (:func:`contract_names`: ``/app/output/<path>`` or a bare name with a file extension of
  :data:`FILE_EXTENSIONS`; ``<i>``, ``NN`` and ``*`` are wildcards); a name under another absolute folder
  (``/app/inputs/conf.gro``) is an input, not a deliverable, and so is a bare name the instruction also writes
  under ``/app/inputs/`` or that the task ships as an input (``environment/``): a deliverable that shares an
  input's name (a fixed ``topol.top``) is then not told apart from the input, and its absence counts as a
  failed check only. Requiring a failed check to name it leaves out
  deliverables the contract asks for only on another route (a refusal's alternative files). A task without a
  contract section falls back on the ``/app/output/...`` paths failed checks name. The delivered files are
  listed, never read, confined to the trial (:func:`~westbench.agents.judge.confined.read_tree`).
* **failed check**: some deterministic check failed (``checks.json``), or, for a verifier that writes no
  ``checks.json``, correctness below 1.
* **judge shortfall**: the rubric judge judged the trial and some criterion was not met; None when not judged.

The *signature* of a trial is the first that applies of: ``no verdict`` (the verifier gave none: an environment
or verifier error), ``missing deliverable``, ``failed check``, ``agent timeout or error`` (every check passed but
the agent did not finish), ``judge shortfall``, else ``none``. The flags are not exclusive; the signature is.

Examples
--------
>>> text = "## Deliverables (contract)\\n| `/app/output/rg.csv` | header `frame,rg_nm` |\\n| `summary.json` | ... |\\n"
>>> text += "Run `gmx grompp -f a.mdp` on `/app/inputs/conf.gro`; `window_<i>.mdp` for each i."
>>> contract_names(text)
['rg.csv', 'summary.json', 'window_*.mdp']
>>> checks = [{"name": "rg.csv has header", "passed": False, "reason": "FileNotFoundError: /app/output/rg.csv"},
...           {"name": "weighted mean", "passed": False, "reason": "KeyError"}]
>>> missing_deliverables(checks, contract_names(text), delivered={"summary.json"})
['rg.csv']
>>> signature({"status": "failed", "correctness": 0.0}, checks, ["rg.csv"], judge_shortfall=None)
'missing deliverable'
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping, Sequence

from westbench.agents.judge.confined import read_tree

OUTPUT = "/app/output/"
#: Where a trial's deliverables lie under its folder (Harbor's copy of /app/output; westbench's changed files).
DELIVERED_ROOTS = ("artifacts/app/output", "artifacts/.westbench-changes/app/output")
#: File extensions that make a bare backticked name a deliverable's name.
FILE_EXTENSIONS = frozenset(
    "csv json pdb gro top itp mdp tpr ndx xvg xtc dcd trr edr log txt md xml h5 hdf5 npz npy dat cfg sh py png "
    "pqr pka sdf mol2 prmtop inpcrd frcmod lib yaml yml toml out xyz inp cpt pkl".split()
)
SIGNATURES = (
    "no verdict",
    "missing deliverable",
    "failed check",
    "agent timeout or error",
    "judge shortfall",
    "none",
)
_CONTRACT = re.compile(r"^#+\s*Deliverables\b.*$", re.IGNORECASE | re.MULTILINE)
_TICKED = re.compile(r"`([^`\n]+)`")
_OUTPUT_PATH = re.compile(r"/app/output/([\w.<>*/-]+)")
_NAME = re.compile(r"[\w<>*.-]+(?:/[\w<>*.-]+)*")
# shared by the checks reading
_UNGRADED = ("environment_error", "verifier_error", "missing")


def _as_pattern(name: str) -> str:
    """A contract name as an ``fnmatch`` pattern: ``<i>``, ``NN`` and ``*`` are wildcards."""
    return re.sub(r"<[^>]*>|\bNN\b|(?<=_)NN", "*", name)


def contract_names(instruction: str, inputs: Iterable[str] = ()) -> list[str]:
    """The deliverables a task's contract names (module docstring), relative to ``/app/output``, in order.

    ``inputs``: names of the files the task ships (its ``environment/`` folder); a bare name among them, or
    written under ``/app/inputs/`` anywhere in the instruction, is an input.
    """
    match = _CONTRACT.search(instruction or "")
    if match is None:
        return []
    inputs = {PurePosixPath(name).name for name in inputs} | {
        PurePosixPath(path).name for path in re.findall(r"/app/inputs/([\w./-]+)", instruction)
    }
    names = []
    for token in _TICKED.findall(instruction[match.end() :]):
        token = token.strip()
        if token.startswith(OUTPUT):
            name = token[len(OUTPUT) :].rstrip("/")
        elif token.startswith("/") or " " in token or not _NAME.fullmatch(token):
            continue
        elif PurePosixPath(token).name in inputs:
            continue
        else:
            name = token
        suffix = PurePosixPath(name).suffix.lstrip(".").lower()
        if not name or (not token.startswith(OUTPUT) and suffix not in FILE_EXTENSIONS):
            continue
        pattern = _as_pattern(name)
        if pattern not in names:
            names.append(pattern)
    return names


def _mentions(pattern: str, text: str) -> list[str]:
    """The concrete names of ``pattern`` a check's text mentions (the name itself for a plain one)."""
    if "*" not in pattern:
        return [pattern] if re.search(rf"(?<![\w.-]){re.escape(pattern)}(?![\w-])", text) else []
    body = re.escape(pattern).replace(r"\*", r"[\w.-]*")
    return sorted(set(re.findall(rf"(?<![\w.-])({body})(?![\w-])", text)))


def _is_delivered(name: str, delivered: set[str]) -> bool:
    base = PurePosixPath(name).name
    return any(
        fnmatch.fnmatchcase(path, name) or fnmatch.fnmatchcase(PurePosixPath(path).name, base) for path in delivered
    )


def missing_deliverables(checks: Sequence[Mapping], names: Sequence[str], delivered: Iterable[str]) -> list[str]:
    """Contract deliverables a failed check names that the trial did not deliver (module docstring).

    ``names``: :func:`contract_names` (empty: the ``/app/output/...`` paths the failed checks name);
    ``delivered``: the delivered files, relative to ``/app/output``.
    """
    delivered = set(delivered)
    failed = [f"{check.get('name', '')}\n{check.get('reason', '')}" for check in checks if not check.get("passed")]
    patterns = list(names) or sorted(
        {path.rstrip(".,;:'\")") for text in failed for path in _OUTPUT_PATH.findall(text)}
    )
    missing = []
    for pattern in patterns:
        for text in failed:
            for name in _mentions(pattern, text) or (
                [m.rstrip(".,;:'\")") for m in _OUTPUT_PATH.findall(text) if fnmatch.fnmatchcase(m, pattern)]
            ):
                if not _is_delivered(name, delivered) and name not in missing:
                    missing.append(name)
    return missing


def delivered_files(trial_dir: str | Path | None) -> set[str]:
    """The files a trial delivered, relative to ``/app/output`` (listed confined to the trial, none read)."""
    found: set[str] = set()
    for root in DELIVERED_ROOTS if trial_dir else ():
        listing = read_tree(trial_dir, root, limit_bytes=0, total_bytes=0)
        found |= {name[len(root) + 1 :] for name in listing.parts if not name.endswith("/")}
    return found


def read_checks(trial_dir: str | Path | None) -> list[dict] | None:
    """The verifier's checks (``verifier/checks.json``, read as the trial record reads it:
    :func:`westbench.agents.harbor.verifier_detail`), or None when it wrote none."""
    from westbench.agents.harbor import verifier_detail

    detail = verifier_detail(trial_dir)
    checks = detail.get("checks") if detail else None
    return [c for c in checks if isinstance(c, dict)] if isinstance(checks, list) else None


def signature(
    trial: Mapping, checks: Sequence[Mapping] | None, missing: Sequence[str], judge_shortfall: bool | None
) -> str:
    """The trial's signature: the first of :data:`SIGNATURES` that applies (module docstring)."""
    status = trial.get("status")
    correctness = trial.get("correctness")
    graded = status not in _UNGRADED and correctness is not None and correctness == correctness
    if not graded:
        return "no verdict"
    if missing:
        return "missing deliverable"
    if failed_check(trial, checks):
        return "failed check"
    if status not in ("passed", "failed"):
        return "agent timeout or error"
    return "judge shortfall" if judge_shortfall else "none"


def failed_check(trial: Mapping, checks: Sequence[Mapping] | None) -> bool:
    """Whether a deterministic check failed (``checks.json``; without it, correctness below 1)."""
    if checks:
        return any(not check.get("passed") for check in checks)
    correctness = trial.get("correctness")
    return correctness is not None and correctness == correctness and float(correctness) < 1.0 - 1e-9


def judge_shortfall(judge: Mapping | None) -> bool | None:
    """Whether the rubric judge found a criterion not met (None when the trial was not judged)."""
    if not judge or not judge.get("judged"):
        return None
    return not bool(judge.get("all_passed"))


def task_contract(task_dir: str | Path) -> list[str]:
    """:func:`contract_names` of a task folder (its instruction and shipped inputs); empty without an instruction."""
    task_dir = Path(task_dir)
    instruction = task_dir / "instruction.md"
    if not instruction.is_file():
        return []
    shipped = [p.name for p in (task_dir / "environment").rglob("*") if p.is_file()]
    return contract_names(instruction.read_text(), shipped)


def breach(trial: Mapping, judge: Mapping | None, contract: Sequence[str]) -> dict:
    """Every breach flag and the signature of one trial (``trial.json``'s record), JSON-ready.

    ``contract``: the task's deliverables (:func:`task_contract`).
    """
    trial_dir = trial.get("trial_dir")
    checks = read_checks(trial_dir)
    missing = missing_deliverables(checks or [], contract, delivered_files(trial_dir))
    shortfall = judge_shortfall(judge)
    return {
        "checks_detail": checks is not None,
        "checks_failed": sum(not c.get("passed") for c in checks) if checks else None,
        "checks_total": len(checks) if checks is not None else None,
        "missing_deliverable": bool(missing),
        "missing_files": ";".join(missing),
        "failed_check": failed_check(trial, checks),
        "judge_shortfall": shortfall,
        "signature": signature(trial, checks, missing, shortfall),
    }
