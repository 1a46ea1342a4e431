"""What Harbor's trajectory (``agent/trajectory.json``, ATIF) says of a trial, read deterministically.

Harbor writes every agent's steps in its Agent Trajectory Interchange Format (ATIF, ``harbor.models.trajectories``):
``steps``, each with a ``source`` (``system``, ``user``, ``agent``), a ``message``, the agent's ``tool_calls``
(``tool_call_id``, ``function_name``, ``arguments``, ``extra``) and an ``observation`` whose ``results`` answer
them (``source_call_id``, ``content``, ``extra``); a long run may continue in another file
(``continued_trajectory_ref``) and subagents' trajectories may be embedded (``subagent_trajectories``).
The agent wrote it, so it is read through :mod:`~westbench.agents.judge.confined` (nothing outside the trial,
no link followed, a size limit).

**Tool results.** A tool result is an observation result of an agent step that called a tool other than a
control call (:data:`CONTROL_CALLS`: marking the task complete is not a tool run); a result linked
(``source_call_id``) to a control call is not one. Terminus-2 runs a batch of keystrokes and answers it with one
result, so a result may answer several calls.

**Tool errors** (the rules, in order; :func:`result_error`):

1. A structured flag where the producer recorded one, on the result's or its call's ``extra``: ``is_error``,
   ``tool_result_is_error`` or ``tool_use_is_error`` true, a non-empty ``error``, an ``exit_code``, ``returncode``
   or ``exit_status`` other than 0, a ``status`` of ``error``, ``failed`` or ``failure``. A flag saying success
   (``is_error`` false, exit code 0, ...) makes the result a success whatever its text says.
2. Without a flag (Terminus-2's terminal screens), the text: a line matching one of :data:`ERROR_SIGNATURES`
   (a Python traceback or exception line, ``command not found``, ``No such file or directory``, ``Permission
   denied``, a segmentation fault or core dump, ``Killed``, GROMACS's ``Fatal error``, a line starting with
   ``Error``/``ERROR``, a non-zero exit status) that no earlier result of the trajectory held: a terminal's screen,
   captured again, repeats old lines, and an old error is not a new one. (So the same error line printed twice
   counts once: the rule undercounts rather than counts a screen twice.)

**Final message.** The message of the last agent step with any text; the completion call is a control call in
the last agent step that made any call (:mod:`westbench.agents.completion` classifies the message's language).

Examples
--------
>>> record = {"steps": [
...     {"step_id": 1, "source": "user", "message": "Write out.txt"},
...     {"step_id": 2, "source": "agent", "message": "Plan: run it",
...      "tool_calls": [{"tool_call_id": "c1", "function_name": "bash_command", "arguments": {}}],
...      "observation": {"results": [{"source_call_id": "c1", "content": "bash: pyhton: command not found"}]}},
...     {"step_id": 3, "source": "agent", "message": "Done: out.txt is written.",
...      "tool_calls": [{"tool_call_id": "c2", "function_name": "bash_command", "arguments": {}},
...                     {"tool_call_id": "c3", "function_name": "mark_task_complete", "arguments": {}}],
...      "observation": {"results": [{"source_call_id": "c2", "content": "ok"}]}}]}
>>> [(r.step_id, r.error, r.rule) for r in tool_results(record)]
[(2, True, 'text: command not found'), (3, False, '')]
>>> final_message(record), completion_call(record)
('Done: out.txt is written.', True)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping

from westbench.agents.judge.collect import AGENT_LOGS
from westbench.agents.judge.confined import Unread, read_file

TRAJECTORY = f"{AGENT_LOGS}/trajectory.json"
#: Calls that control the run rather than run a tool (Terminus-2's, and the usual names of others').
CONTROL_CALLS = frozenset(
    {"mark_task_complete", "task_complete", "attempt_completion", "complete_task", "finish", "submit", "done"}
)
#: The most trajectory files followed through ``continued_trajectory_ref``.
MAX_CONTINUATIONS = 64
#: Bytes read of one trajectory file.
DEFAULT_LIMIT_BYTES = 64_000_000
ERROR_FLAGS = ("is_error", "tool_result_is_error", "tool_use_is_error")
EXIT_CODES = ("exit_code", "returncode", "exit_status")
ERROR_STATUSES = frozenset({"error", "failed", "failure"})
#: Text signatures of a failed tool run (rule 2 of the module docstring), each with its name.
ERROR_SIGNATURES = (
    ("traceback", re.compile(r"^\s*Traceback \(most recent call last\)", re.MULTILINE)),
    ("exception", re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception): ", re.MULTILINE)),
    ("command not found", re.compile(r"command not found\s*$|: not found\s*$", re.MULTILINE)),
    ("no such file", re.compile(r"No such file or directory", re.IGNORECASE)),
    ("permission denied", re.compile(r"Permission denied")),
    ("crash", re.compile(r"Segmentation fault|core dumped|^\s*Killed\s*$", re.MULTILINE)),
    ("fatal error", re.compile(r"^\s*Fatal error:", re.MULTILINE | re.IGNORECASE)),
    ("error line", re.compile(r"^\s*(?:ERROR|Error|error)\b[:!]?\s", re.MULTILINE)),
    (
        "non-zero exit",
        re.compile(r"(?:exit(?:ed)? (?:code|status)|returned non-zero exit status)[ :=]*[1-9]\d*", re.IGNORECASE),
    ),
)


@dataclass(frozen=True)
class ToolResult:
    """One tool result: its step, the calls it answers, its text, whether it is an error and by which rule."""

    step_id: int
    calls: tuple[str, ...]
    text: str
    error: bool
    rule: str


def read_trajectory(trial_dir: str | Path | None, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> tuple[dict | None, str]:
    """Harbor's trajectory of a trial with its continuations joined, and what was read or why not.

    Returns ``(record, state)``: the record (``steps`` of every file in order, embedded subagents' steps after
    the root's) and ``"read"``; or None with ``"absent"`` (no ``agent/trajectory.json``: an agent that writes no
    ATIF, such as the oracle) or the reason it could not be read.
    """
    if not trial_dir:
        return None, "absent"
    name, steps, seen = TRAJECTORY, [], set()
    while name and name not in seen and len(seen) < MAX_CONTINUATIONS:
        seen.add(name)
        text = read_file(Path(trial_dir), name, limit_bytes)
        if isinstance(text, Unread):
            if text.kind == "not-produced":
                return (None, "absent") if name == TRAJECTORY else (None, f"{name}: not produced")
            return None, f"{name}: {text.describe()}"
        try:
            record = json.loads(text)
        except ValueError as exc:
            return None, f"{name}: not JSON ({str(exc)[:80]})"
        if not isinstance(record, dict) or not isinstance(record.get("steps"), list):
            return None, f"{name}: not an ATIF trajectory (no steps)"
        steps.extend(_steps(record))
        following = record.get("continued_trajectory_ref")
        name = str(PurePosixPath(AGENT_LOGS) / PurePosixPath(following).name) if isinstance(following, str) else None
    return {"steps": steps}, "read"


def _steps(record: Mapping, depth: int = 0) -> list[dict]:
    steps = [step for step in record.get("steps") or [] if isinstance(step, dict)]
    for sub in record.get("subagent_trajectories") or [] if depth < 4 else []:
        if isinstance(sub, dict):
            steps.extend(_steps(sub, depth + 1))
    return steps


def text_of(content) -> str:
    """The text of a message or result content: a string, or the text parts of a content list.

    >>> text_of([{"type": "text", "text": "a"}, {"type": "image", "source": {}}, {"type": "text", "text": "b"}])
    'a\\nb'
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _flag(extra) -> bool | None:
    """Rule 1: True or False where ``extra`` records how the tool run ended, None where it records nothing."""
    if not isinstance(extra, dict):
        return None
    verdicts = []
    for key in ERROR_FLAGS:
        if isinstance(extra.get(key), bool):
            verdicts.append(extra[key])
    if "error" in extra and extra["error"] not in (None, False):
        verdicts.append(bool(extra["error"]))
    for key in EXIT_CODES:
        value = extra.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            verdicts.append(value != 0)
    if isinstance(extra.get("status"), str) and extra["status"].strip():
        verdicts.append(extra["status"].strip().lower() in ERROR_STATUSES)
    return any(verdicts) if verdicts else None


def result_error(text: str, flags: Iterable[bool | None], seen_lines: set[str]) -> tuple[bool, str]:
    """Whether one tool result is an error, and the rule that says so (module docstring).

    ``flags``: rule 1's verdicts of the result's and its calls' ``extra`` (None: nothing recorded);
    ``seen_lines``: the error lines earlier results held (updated).

    >>> result_error("Error: x", [False], set()), result_error("ok", [True], set())
    ((False, ''), (True, 'flag'))
    >>> seen = set()
    >>> result_error("$ python a.py\\nModuleNotFoundError: No module named 'b'", [None], seen)
    (True, 'text: exception')
    >>> screen_again = "$ python a.py\\nModuleNotFoundError: No module named 'b'\\n$ ls"
    >>> result_error(screen_again, [None], seen)
    (False, '')
    """
    flags = [flag for flag in flags if flag is not None]
    if flags:
        return (True, "flag") if any(flags) else (False, "")
    found = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped in seen_lines:
            continue
        for name, pattern in ERROR_SIGNATURES:
            if pattern.search(line):
                seen_lines.add(stripped)
                found = found or name
                break
    return (True, f"text: {found}") if found else (False, "")


def tool_results(record: Mapping | None) -> list[ToolResult]:
    """Every tool result of a trajectory, in order, with its error verdict (module docstring)."""
    results, seen = [], set()
    for step in (record or {}).get("steps", []):
        if step.get("source") != "agent":
            continue
        calls = {
            call.get("tool_call_id"): call
            for call in step.get("tool_calls") or []
            if isinstance(call, dict) and isinstance(call.get("function_name"), str)
        }
        tools = {cid: call for cid, call in calls.items() if call["function_name"] not in CONTROL_CALLS}
        if not tools:
            continue
        for result in (step.get("observation") or {}).get("results") or []:
            if not isinstance(result, dict):
                continue
            source = result.get("source_call_id")
            if source is not None and source not in tools:
                continue  # a control call's answer (or a dangling id): not a tool run
            answered = (source,) if source is not None else tuple(tools)
            text = text_of(result.get("content"))
            flags = [_flag(result.get("extra"))] + [_flag(tools[cid].get("extra")) for cid in answered]
            error, rule = result_error(text, flags, seen)
            results.append(
                ToolResult(int(step.get("step_id") or 0), tuple(str(c) for c in answered), text, error, rule)
            )
    return results


def _agent_steps(record: Mapping | None) -> list[dict]:
    return [step for step in (record or {}).get("steps", []) if step.get("source") == "agent"]


def final_message(record: Mapping | None) -> str | None:
    """The message of the last agent step that has any text (None when no agent step has one)."""
    for step in reversed(_agent_steps(record)):
        text = text_of(step.get("message")).strip()
        if text:
            return text
    return None


def completion_call(record: Mapping | None) -> bool:
    """Whether the last agent step that made a call made a completion call (:data:`CONTROL_CALLS`)."""
    for step in reversed(_agent_steps(record)):
        names = [call.get("function_name") for call in step.get("tool_calls") or [] if isinstance(call, dict)]
        if names:
            return any(name in CONTROL_CALLS for name in names)
    return False


def trajectory_facts(trial_dir: str | Path | None, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> dict:
    """The deterministic facts of a trial's trajectory (module docstring), JSON-ready.

    ``trajectory``: ``read``, ``absent`` or why it was not read; counts are None unless it was read.
    """
    from westbench.agents.completion import classify

    record, state = read_trajectory(trial_dir, limit_bytes)
    results = tool_results(record)
    message = final_message(record)
    rules: dict[str, int] = {}
    for result in results:
        if result.error:
            rules[result.rule] = rules.get(result.rule, 0) + 1
    read = record is not None
    return {
        "trajectory": state,
        "steps": len(record["steps"]) if read else None,
        "agent_steps": len(_agent_steps(record)) if read else None,
        "tool_calls": sum(
            1
            for step in _agent_steps(record)
            for call in step.get("tool_calls") or []
            if isinstance(call, dict) and call.get("function_name") not in CONTROL_CALLS
        )
        if read
        else None,
        "tool_results": len(results) if read else None,
        "tool_errors": sum(result.error for result in results) if read else None,
        "tool_error_rules": rules,
        "last_tool_result_error": results[-1].error if results else None,
        "final_message": message[:2000] if message else None,
        "completion": classify(message) if read else "no trajectory",
        "completion_call": completion_call(record) if read else None,
    }
