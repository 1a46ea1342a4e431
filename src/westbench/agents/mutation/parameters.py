"""A task's contract broken in its reference solution: parameters moved out of range, criteria loosened, steps removed.

Each contract item's ``[item.mutate]`` (:mod:`westbench.agents.contract`) says where its value is written (a
``key = value`` run-input line or a pattern) and what to remove; the mutants edit the reference solution (rerun) or,
where the solution does not state the value, the delivered files.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.deliverables import deliverable_filter, read_text


def key_pattern(key: str) -> str:
    """A regular expression for ``key = value`` run-input lines (mdp style: '-' and '_' alike), value in group 1.

    >>> import re
    >>> re.search(key_pattern("tau-t"), "tau_t    = 0.1 ; ps", re.M).group(1)
    '0.1'
    """
    spelled = "".join("[-_]" if ch in "-_" else re.escape(ch) for ch in key)
    return rf"^[ \t]*{spelled}[ \t]*[=:][ \t]*([^\s;#,]+(?:[ \t]+[^\s;#=]+)*?)[ \t]*(?=[;#\n]|$)"


def out_of_range(item) -> list[str]:
    """Values just outside an item's allowed value or range, in the file's units (``mutate.scale``).

    An exact value moves by 10 % either way, a range by a tenth of its width (at least 1 % of the bound) past each end.

    >>> from westbench.agents.contract import Item
    >>> out_of_range(Item("dt", "parameter", "2 fs", ("c",), value=2, mutate={"scale": 0.001}))
    ['0.0022', '0.0018']
    >>> out_of_range(Item("t", "parameter", "285-315 K", ("c",), range=(285.0, 315.0)))
    ['318.15', '282']
    """
    scale = float(item.mutate.get("scale", 1.0))
    if item.range is not None:
        low, high = item.range
    elif isinstance(item.value, (int, float)) and not isinstance(item.value, bool):
        low = high = float(item.value)
    else:
        return []
    width = high - low
    # a tenth of the range's width past each end, and never less than 1 % of the bound (a range narrower than the
    # file's precision would otherwise round back into itself)
    step_high = (max(width * 0.1, abs(high) * 0.01) or 1e-6) if width else (abs(high) * 0.1 or 1.0)
    step_low = (max(width * 0.1, abs(low) * 0.01) or 1e-6) if width else (abs(low) * 0.1 or 1.0)
    values = []
    for value in (high + step_high, low - step_low):
        scaled = value * scale
        text = f"{scaled:.6g}"
        if text not in values:
            values.append(text)
    return values


def contract_target_files(task_path: str | Path, item, root: str | Path | None = None) -> list[Path]:
    """The files a contract item's mutation edits: ``mutate.files`` globs under the task folder (solution level)
    or under ``root`` (the delivered files, output level)."""
    base = Path(root) if root is not None else Path(task_path)
    default = ["*"] if root is not None else ["solution/*"]  # fnmatch: "*" spans folders too
    patterns = item.mutate.get("files", default)
    files = sorted(
        p
        for p in base.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and any(fnmatch.fnmatchcase(p.relative_to(base).as_posix(), pattern) for pattern in patterns)
    )
    return [p for p in files if read_text(p) is not None]


def _substitute(text: str, pattern: str, value: str) -> tuple[str, int]:
    compiled = re.compile(pattern, re.M)
    count = 0

    def replace(match):
        nonlocal count
        count += 1
        start, end = match.span(1)
        whole = match.group(0)
        offset = match.start(0)
        return whole[: start - offset] + value + whole[end - offset :]

    return compiled.sub(replace, text), count


def contract_mutants(task_path: str | Path, contract, outputs: str | Path | None = None) -> list[Mutant]:
    """The mutants a task's contract asks for: parameters out of range, criteria loosened, steps removed.

    A mutation edits the reference solution, which is rerun (solution level), when the solution states the value
    (its delivered files then agree with the mistake, as an agent's would); else, or when ``mutate.level`` says
    ``output``, the delivered files (``outputs``).
    """
    task_path = Path(task_path)
    mutants = []
    for item in contract.items if contract else ():
        mutate = item.mutate
        if not mutate:
            continue
        pattern = mutate.get("pattern") or (key_pattern(mutate["key"]) if "key" in mutate else None)
        level = mutate.get("level")
        if level is None:  # the reference solution, rerun, where it states the value: its outputs then agree
            in_solution = any(
                re.search(pattern or mutate.get("remove", "(?!)"), p.read_text(errors="replace"), re.M)
                for p in contract_target_files(task_path, item)
            )
            level = "solution" if in_solution or outputs is None else "output"
        if level == "output" and outputs is None:
            continue
        base = Path(outputs) if level == "output" else task_path
        files = contract_target_files(task_path, item, root=outputs if level == "output" else None)
        if level == "output":  # the deliverables only: a by-product the verifier never reads is no mistake
            keep = deliverable_filter(task_path, contract)
            files = [p for p in files if keep(p.relative_to(base).as_posix())]
        operator = "converge" if item.kind == "convergence" else "param"
        if pattern:
            for value in [str(v) for v in mutate.get("values", [])] or out_of_range(item):
                changes = {}
                for path in files:
                    text = path.read_text()
                    new, count = _substitute(text, pattern, value)
                    if count and new != text:
                        changes[path.relative_to(base).as_posix()] = new
                if changes:
                    mutants.append(
                        Mutant(
                            id=f"{operator}:{item.id}={value}",
                            operator=operator,
                            file=",".join(sorted(changes)),
                            description=f"{OPERATORS[operator]}: {item.id} set to {value} ({item.quote})",
                            level=level,
                            changes=changes,
                        )
                    )
        if "remove" in mutate:
            changes = {}
            for path in files:
                text = path.read_text()
                new = re.sub(mutate["remove"], "", text, flags=re.M)
                if new != text:
                    changes[path.relative_to(base).as_posix()] = new
            if changes:
                mutants.append(
                    Mutant(
                        id=f"remove-step:{item.id}",
                        operator="remove-step",
                        file=",".join(sorted(changes)),
                        description=f"{OPERATORS['remove-step']}: {item.id} ({item.quote})",
                        level=level,
                        changes=changes,
                    )
                )
    return mutants
