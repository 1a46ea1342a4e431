"""Markdown and text reports: every decimal number of a report multiplied by 10."""

from __future__ import annotations

import re

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.numeric import format_like

_DECIMAL = re.compile(r"(?<![\w.])(-?\d+\.\d+)(?![\w.])")


def report_mutant(relative: str, text: str) -> Mutant | None:
    """Every decimal number of a Markdown or text report times 10."""
    if not _DECIMAL.search(text):
        return None
    mutated = _DECIMAL.sub(lambda m: format_like(float(m.group(1)) * 10, m.group(1)), text)
    return Mutant(
        id=f"report-x10:{relative}",
        operator="report-x10",
        file=relative,
        description=f"{OPERATORS['report-x10']}: {relative}",
        level="output",
        changes={relative: mutated},
    )
