"""One number's mistakes: unit swaps, index base shifts, a plausible constant in place of a computed value, and a
number one percent off (the tolerance-edge probe).

Every file family's operators (:mod:`~westbench.agents.mutation.json_files`, :mod:`~westbench.agents.mutation.tables`,
:mod:`~westbench.agents.mutation.xml_files`, :mod:`~westbench.agents.mutation.reports`) apply these, and write the new
number with the precision of the old (:func:`format_like`).
"""

from __future__ import annotations

import math
import re

KCAL_TO_KJ = 4.184


# Key names that hold energies (the kcal/kJ swap applies to them only).
_ENERGY = re.compile(
    r"kj|kcal|energ|free|pmf|barrier|gsolv|enthalp|potential|hartree|(^|_)(d|delta_?)?[gfeu](_|$)", re.IGNORECASE
)


def plausible_constant(value: float) -> float | None:
    """A round number standing in for a computed one: ``value`` to one significant figure (None if unchanged).

    >>> plausible_constant(297.6), plausible_constant(-0.3047), plausible_constant(1.0), plausible_constant(0.0)
    (300.0, -0.3, None, None)
    """
    if not math.isfinite(value) or value == 0:
        return None
    rounded = float(f"{value:.0e}")
    return None if math.isclose(rounded, value, rel_tol=1e-9) else rounded


def format_like(value: float, original: str) -> str:
    """``value`` written with about the precision of ``original`` (never fewer than 6 significant digits).

    >>> format_like(3.0, "0.300000"), format_like(2.5e-05, "1e-4"), format_like(7.0, "7")
    ('3.000000', '2.5e-05', '7')
    """
    if re.fullmatch(r"-?\d+", original.strip()) and float(value).is_integer():
        return str(int(value))
    if "e" not in original.lower() and "." in original:
        decimals = len(original.strip().split(".")[1])
        text = f"{value:.{decimals}f}"
        if float(text) != 0 or value == 0:
            if math.isclose(float(text), value, rel_tol=1e-3, abs_tol=0):
                return text
    return f"{value:.6g}"


def scaled(factor: float):
    """The rewrite multiplying a number by ``factor`` (a unit swap).

    >>> scaled(10.0)(0.25)
    2.5
    """
    return lambda v: v * factor


#: The tolerance-edge probe: a delivered number this share off, the size of a real slip (one frame of a hundred left
#: out, 300 K for 297 K, a rounded constant) that a window wider than the quantity's resolution lets through. A probe
#: that survives is the task's resolution: its mutants.toml says why the quantity cannot be checked closer (a
#: stochastic estimate's error bar), or the verifier's window is too wide.
NUDGE = 0.01


def float_operators(name: str) -> list[tuple[str, object]]:
    """The operators applied to a delivered real number called ``name``: (operator, new value from the old).

    >>> [operator for operator, _ in float_operators("mean_rg_nm")]
    ['unit-x10', 'unit-x0.1', 'constant', 'nudge+1%', 'nudge-1%']
    """
    found = [("unit-x10", scaled(10.0)), ("unit-x0.1", scaled(0.1)), ("constant", plausible_constant)]
    found += [("nudge+1%", scaled(1 + NUDGE)), ("nudge-1%", scaled(1 - NUDGE))]
    if _ENERGY.search(name):
        found += [("unit-x4.184", scaled(KCAL_TO_KJ)), ("unit-/4.184", scaled(1 / KCAL_TO_KJ))]
    return found


INT_OPERATORS = (("index+1", lambda v: v + 1), ("index-1", lambda v: v - 1))
