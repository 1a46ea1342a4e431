"""A task's resolution: for every numeric requirement of its contract, the window its verifier allows and the
smallest plausible mistake that window still catches (the ``tolerance`` of a ``contract.toml`` item).

The gate, the near-miss table and the mutation score report it beside their counts, so that "caught" reads
with its size: a verifier that kills every mutant is only as sharp as the smallest mistake its windows exclude.

Examples
--------
>>> from westbench.agents.contract.loading import Item
>>> dt = Item(id="timestep", kind="parameter", quote="a 2 fs timestep", checks=("dt {dt} fs",), value=2,
...           tolerance="exact: dt read back; smallest mistake a neighbouring step (1 or 4 fs)")
>>> out = Item(id="a.json", kind="file", quote="write a.json", checks=("a.json readable",))
>>> rows = resolution_rows([dt, out])
>>> rows[0]["window"], rows[0]["smallest_mistake"]
('exact: dt read back', 'a neighbouring step (1 or 4 fs)')
>>> resolution_summary(rows)
{'numeric_items': 1, 'resolution': 'timestep: a neighbouring step (1 or 4 fs)'}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from westbench.agents.contract.problems import NUMERIC, SMALLEST

_SPLIT = re.compile(rf"[;,.]?\s*{SMALLEST}\s*(?:is\s+|:\s*)?", re.IGNORECASE)


def resolution_rows(items: Iterable) -> list[dict]:
    """One row per numeric requirement (:data:`~westbench.agents.contract.problems.NUMERIC`) that states a
    tolerance: ``item``, ``kind``, ``window`` (the tolerance before its smallest-mistake clause),
    ``smallest_mistake`` (empty where the tolerance names none) and ``checks`` (the verifier checks, joined)."""
    rows = []
    for item in items:
        if item.kind not in NUMERIC or not item.tolerance:
            continue
        window, _, smallest = _parts(item.tolerance)
        rows.append(
            {
                "item": item.id,
                "kind": item.kind,
                "window": window,
                "smallest_mistake": smallest,
                "checks": " | ".join(item.checks),
            }
        )
    return rows


def _parts(tolerance: str) -> tuple[str, str, str]:
    """(window, separator, smallest mistake) of a tolerance; the whole text as the window without the clause."""
    pieces = _SPLIT.split(tolerance.strip(), maxsplit=1)
    if len(pieces) == 1:
        return pieces[0].strip(), "", ""
    return pieces[0].strip(), SMALLEST, pieces[1].strip()


def resolution_summary(rows: Sequence[Mapping]) -> dict:
    """A task's resolution in two table cells: how many numeric requirements it has, and each one's smallest
    caught mistake (``item: mistake``, joined by ``; ``)."""
    return {
        "numeric_items": len(rows),
        "resolution": "; ".join(f"{row['item']}: {row['smallest_mistake'] or row['window']}" for row in rows),
    }


def task_resolution(task_dir: str | Path) -> list[dict]:
    """:func:`resolution_rows` of a task folder's contract (empty for a task without ``contract.toml``)."""
    from westbench.agents.contract.loading import load_contract

    contract = load_contract(task_dir)
    return resolution_rows(contract.items) if contract else []
