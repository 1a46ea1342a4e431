"""The published failure modes of MD agents: unstable configuration, fabricated output, premature abandonment.

MDGym (arXiv 2605.08941) names three ways agents fail MD tasks. Each is read here from what a trial left, by a
deterministic rule whose resolution (what it cannot see) is stated, for every trial that was graded and not passed:

* **unstable configuration** (:func:`instability`): a tool result of the trajectory holds an engine's own
  instability message (:data:`INSTABILITY_SIGNATURES`: a NaN energy or coordinate, GROMACS's LINCS or SETTLE
  failures, atoms moving too far, LAMMPS's lost or out-of-range atoms). Lines echoing a shell prompt are skipped
  (a terminal shows the agent's own ``grep "LINCS WARNING"``). In tasks whose subject is an unstable input
  (categories :data:`INSTABILITY_IS_THE_SUBJECT`: diagnosis and refusal) the message is the input's, so it is
  recorded but names no mode. Not seen: an instability only in a log the agent never printed.
* **fabricated output** (:func:`fabricated_numbers`): a check of a ``computed`` contract item failed (the
  verifier recomputed a number from the trial's own artifacts and disagreed, or found none), and a delivered
  file holds a number the agent typed itself (a literal in its tool calls) that neither the instruction nor any
  earlier tool result showed (to the typed number's precision). Numbers with a fraction or an exponent only:
  an invented integer (a count, a frame number) is not caught, and neither is a wrong number written by a
  program the agent ran (that is a failed check, the verifier's job).
* **premature abandonment**: the agent ended its run itself (not a timeout or an error) while a deliverable a
  failed check names was missing (:mod:`~westbench.agents.failures.breaches`).

The flags overlap; the trial's *mode* is the first that applies, in the order of :data:`MODES` (``other``: none).

Examples
--------
>>> record = {"steps": [
...     {"step_id": 1, "source": "user", "message": "Report the mean Rg at 300 K to /app/output/rg.json"},
...     {"step_id": 2, "source": "agent", "message": "",
...      "tool_calls": [{"tool_call_id": "a", "function_name": "bash", "arguments": {"command": "python rg.py"}}],
...      "observation": {"results": [{"source_call_id": "a", "content": "mean 0.7213 nm"}]}},
...     {"step_id": 3, "source": "agent", "message": "",
...      "tool_calls": [{"tool_call_id": "b", "function_name": "bash",
...                      "arguments": {"command": "echo '{\\"rg\\": 0.721, \\"std\\": 0.05, \\"T\\": 300.0}' > out"}}],
...      "observation": {"results": [{"source_call_id": "b", "content": ""}]}}]}
>>> sorted(unobserved_typed_numbers(record))  # 0.721 was seen (0.7213), 300.0 is the instruction's
[0.05]
>>> instability(["root@x:/app# grep 'LINCS WARNING' md.log", "Step 200: Too many LINCS warnings (1320)"])
'lincs'
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from westbench.agents.atif import CONTROL_CALLS, text_of
from westbench.agents.failures.breaches import DELIVERED_ROOTS
from westbench.agents.judge.confined import read_tree

MODES = ("unstable configuration", "fabricated output", "premature abandonment", "other")
#: Each mode's rule in one line (the report's legend; the module docstring has the resolution).
MODE_RULES = {
    "unstable configuration": "an engine's instability message (NaN energy, LINCS, lost atoms) in a tool result, "
    "outside the tasks whose input is unstable on purpose",
    "fabricated output": "a recomputed number failed and a delivered number was typed by the agent without any "
    "earlier output or the instruction showing it",
    "premature abandonment": "the agent ended its run itself with a deliverable missing",
    "other": "none of these",
}
#: Task categories whose input is unstable on purpose: an instability message there is the task's subject.
INSTABILITY_IS_THE_SUBJECT = frozenset({"diagnosis", "negative"})
#: Engines' own messages of a simulation that blew up, each with its name (the first match names it).
INSTABILITY_SIGNATURES = (
    (
        "nan",
        re.compile(
            r"\b(?:energy|energies|coordinates?|positions?|velocit(?:y|ies)|forces?)\b[^\n]{0,40}?"
            r"\b(?:is|are|was|were|became|contains?)\s+(?:a\s+)?(?:nan|inf(?:inity)?)\b",
            re.IGNORECASE,
        ),
    ),
    ("lincs", re.compile(r"LINCS WARNING|Too many LINCS warnings", re.IGNORECASE)),
    ("settle", re.compile(r"can ?not be settled|SETTLE (?:error|warning)", re.IGNORECASE)),
    ("moved too far", re.compile(r"(?:particles?|atoms?) (?:has |have )?moved more than", re.IGNORECASE)),
    ("lost atoms", re.compile(r"\bLost atoms\b|Out of range atoms|Bond atom missing|Non-numeric atom coords")),
    ("blew up", re.compile(r"\b(?:simulation|system) (?:is |has )?(?:blowing up|blown up|blew up|exploding)\b", re.I)),
)
_PROMPT = re.compile(r"^\S*[@:]\S*\s?[#$]\s|^[#$]\s|^>>>\s")
#: Numbers with a fraction or an exponent (integers are counts, seeds and frame numbers: left out of the typed and
#: delivered ones; every number a text shows counts as shown).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?(?![\w.])")
_ANY_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
#: Bytes read of one delivered file, and of all of them, when looking for typed numbers.
FILE_BYTES, TOTAL_BYTES = 2_000_000, 16_000_000


def instability(texts: Iterable[str]) -> str | None:
    """The name of the first instability signature in ``texts`` (tool results), prompt lines skipped; else None."""
    for text in texts:
        lines = "\n".join(line for line in str(text).splitlines() if not _PROMPT.match(line.lstrip()))
        for name, pattern in INSTABILITY_SIGNATURES:
            if pattern.search(lines):
                return name
    return None


def _numbers(text: str, pattern: re.Pattern = _NUMBER) -> list[tuple[float, float]]:
    """Each number of ``text`` with half its last digit's place (the rounding a reader allows it)."""
    found = []
    for token in pattern.findall(text):
        mantissa, _, exponent = token.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        try:
            found.append((float(token), 0.5 * 10.0 ** (int(exponent or 0) - decimals)))
        except ValueError:
            continue
    return found


def _arguments(call: Mapping) -> str:
    return (
        text_of(call.get("arguments"))
        if not isinstance(call.get("arguments"), Mapping)
        else " ".join(text_of(value) for value in call["arguments"].values())
    )


def unobserved_typed_numbers(record: Mapping | None) -> set[float]:
    """Numbers the agent typed in its tool calls that no earlier text showed it (module docstring).

    Shown: the messages of the user and system steps (the instruction) and the tool results of earlier steps;
    a typed number counts as shown when a shown one rounds to it at the typed precision.
    """
    seen: list[float] = []
    typed: set[float] = set()
    for step in (record or {}).get("steps") or []:
        if not isinstance(step, Mapping):
            continue
        if step.get("source") != "agent":
            seen.extend(value for value, _ in _numbers(text_of(step.get("message")), _ANY_NUMBER))
            seen.sort()
            continue
        for call in step.get("tool_calls") or []:
            if not isinstance(call, Mapping) or call.get("function_name") in CONTROL_CALLS:
                continue
            for value, half in _numbers(_arguments(call)):
                start = bisect.bisect_left(seen, value - half * (1 + 1e-9))
                if start == len(seen) or seen[start] > value + half * (1 + 1e-9):
                    typed.add(value)
        results = ((step.get("observation") or {}).get("results")) or []
        seen.extend(
            value
            for result in results
            if isinstance(result, Mapping)
            for value, _ in _numbers(text_of(result.get("content")), _ANY_NUMBER)
        )
        seen.sort()
    return typed


def delivered_numbers(trial_dir: str | Path | None) -> set[float]:
    """Numbers with a fraction or an exponent in the trial's delivered text files (confined reads, size-limited)."""
    found: set[float] = set()
    for root in DELIVERED_ROOTS if trial_dir else ():
        listing = read_tree(trial_dir, root, limit_bytes=FILE_BYTES, total_bytes=TOTAL_BYTES)
        for text in listing.parts.values():
            if isinstance(text, str):
                found.update(value for value, _ in _numbers(text))
    return found


def fabricated_numbers(record: Mapping | None, trial_dir: str | Path | None) -> list[float]:
    """Delivered numbers the agent typed without having been shown them (module docstring), sorted."""
    typed = unobserved_typed_numbers(record)
    return sorted(typed & delivered_numbers(trial_dir)) if typed else []


def computed_check_failed(checks: Sequence[Mapping] | None, computed_checks: Iterable[str]) -> bool:
    """Whether a failed check is one of a ``computed`` contract item's (names as the contract states them,
    an f-string's placeholders standing for any text)."""
    from westbench.agents.contract.problems import names_check

    names = set(computed_checks)
    return any(not check.get("passed") and names_check(str(check.get("name", "")), names) for check in checks or ())


def failure_mode(*, graded_not_passed: bool, unstable: bool, fabricated: bool, abandoned: bool) -> str:
    """The first of :data:`MODES` that applies to a graded trial not passed; ``""`` for any other trial.

    >>> failure_mode(graded_not_passed=True, unstable=False, fabricated=True, abandoned=True)
    'fabricated output'
    >>> failure_mode(graded_not_passed=False, unstable=True, fabricated=False, abandoned=False)
    ''
    """
    if not graded_not_passed:
        return ""
    for mode, applies in zip(MODES, (unstable, fabricated, abandoned)):
        if applies:
            return mode
    return "other"


def computed_checks(task_dir: str | Path) -> list[str]:
    """The check names of a task's ``computed`` contract items (``contract.toml``; none without one)."""
    from westbench.agents.contract.loading import load_contract

    contract = load_contract(task_dir)
    return [name for item in (contract.items if contract else ()) if item.kind == "computed" for name in item.checks]


def trial_modes(trial: Mapping, breach: Mapping, computed: Sequence[str], passed: bool) -> dict:
    """The failure-mode flags and the mode of one trial (``trial.json``'s record and its ``breach`` row), JSON-ready.

    ``computed``: :func:`computed_checks` of its task; ``passed``: the trial's outcome
    (:func:`westbench.agents.failures.tables.outcome`).
    """
    from westbench.agents.atif import read_trajectory, tool_results
    from westbench.agents.failures.breaches import read_checks
    from westbench.agents.statistics import COMPLETED

    trial_dir = trial.get("trial_dir")
    record, _ = read_trajectory(trial_dir)
    seen = instability(result.text for result in tool_results(record))
    subject = trial.get("category") in INSTABILITY_IS_THE_SUBJECT
    invented = fabricated_numbers(record, trial_dir) if computed_check_failed(read_checks(trial_dir), computed) else []
    abandoned = trial.get("status") in COMPLETED and bool(breach.get("missing_deliverable"))
    graded_not_passed = breach.get("signature") != "no verdict" and not passed
    return {
        "instability": seen or "",
        "unstable_configuration": bool(seen) and not subject,
        "fabricated_numbers": ";".join(f"{value:g}" for value in invented[:8]),
        "fabricated_output": bool(invented),
        "premature_abandonment": abandoned,
        "failure_mode": failure_mode(
            graded_not_passed=graded_not_passed,
            unstable=bool(seen) and not subject,
            fabricated=bool(invented),
            abandoned=abandoned,
        ),
    }
