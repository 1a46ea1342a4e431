"""The mutation operators (what mistake each one makes), the two levels, and the Mutant record derivations return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

OPERATORS = {
    "unit-x10": "a unit swap: the number multiplied by 10 (nm written as angstrom, and the like)",
    "unit-x0.1": "a unit swap: the number divided by 10 (angstrom written as nm, and the like)",
    "unit-x4.184": "a unit swap: an energy in kcal/mol written as kJ/mol",
    "unit-/4.184": "a unit swap: an energy in kJ/mol written as kcal/mol",
    "coords-x10": "coordinates in nm written as angstrom (every position times 10)",
    "report-x10": "every decimal number of a report multiplied by 10",
    "index+1": "an index base shift: the integer one higher (0-based written as 1-based)",
    "index-1": "an index base shift: the integer one lower (1-based written as 0-based)",
    "constant": "a computed number replaced by a plausible constant (one significant figure)",
    "nudge+1%": "a tolerance-edge probe: the number 1 % high (a slip a window wider than its resolution admits)",
    "nudge-1%": "a tolerance-edge probe: the number 1 % low (a slip a window wider than its resolution admits)",
    "negate": "a verdict flipped",
    "delete": "a required step removed: a deliverable left out",
    "drop-row": "a required step removed: the last row of a table left out",
    "drop-first-row": "an off-by-one selection: the first row of a table left out (the first frame skipped)",
    "remove-step": "a required step removed from the reference solution",
    "param": "a run parameter moved outside its contract range",
    "converge": "a convergence criterion loosened",
}
LEVELS = ("output", "solution")


@dataclass(frozen=True)
class Mutant:
    """One mistake on top of the reference solution.

    ``changes`` maps a file (relative to the artifacts root for ``output`` mutants, to the task folder for
    ``solution`` mutants) to its mutated text, or to None when the mutant deletes it.
    """

    id: str
    operator: str
    file: str
    description: str
    level: str
    changes: Mapping[str, str | None] = field(default_factory=dict, repr=False)
