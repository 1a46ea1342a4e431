"""Table cells of the HTML report: a divergence with its interval, noise floor and verdict, or why it is missing.

A W1 or KL value reads ``0.375 [0.21, 0.90] ≈`` with ``floor ≤ 1.63`` under it: the estimate, its
95 % BCa interval, the verdict mark (:data:`MARKS`: separated, within noise, undetermined; the legend
is :data:`LEGEND`) and the upper bound of the noise floor (the ground truth against itself at the
model's sample size), the floor's median and range in the cell's ``title``. The bootstrap bias is shown
where it is large (more than half the interval's width). Intervals are never written as "±": a
bias-corrected interval of a divergence is not symmetric about its estimate.

Rounding: the estimate to three significant digits; the interval one decimal fewer and *outward*
(the lower bound down, the upper bound up), so the printed interval always contains the printed
estimate; the floor's upper bound up, so "floor ≤" stays true.

A value that could not be estimated reads "not estimable" where the number would be, with the reason
in its ``title`` and as a numbered footnote of its table (:class:`Footnotes`). A KL that is no score (pinned by
the bin floor: :mod:`westbench.report.evidence`) reads "pinned by the bin floor" instead of a number (the value
in its ``title``); a *within noise* on a distribution the run's controls show it cannot resolve carries "not
distinguishable at this resolution" under it.

Examples
--------
>>> notes = Footnotes("w1")
>>> cell = estimate_cell(Estimate(0.375, low=0.21, high=0.9, floor=0.4, floor_low=0.1, floor_high=1.63,
...                               verdict="within noise"), notes)
>>> "0.375 [0.21, 0.90]" in cell, "floor ≤ 1.63" in cell, MARKS["within noise"] in cell, "±" in cell
(True, True, True, False)
>>> missing = estimate_cell(Estimate(None, verdict="undetermined", note="no model frame"), notes)
>>> "not estimable" in missing, 'title="no model frame"' in missing
(True, True)
>>> str(notes.html()).count("<li")
1
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal

from markupsafe import Markup

#: Short marks of the verdicts (legend: :data:`LEGEND`).
MARKS = {"separated": "◆", "within noise": "≈", "undetermined": "?"}
#: What each verdict means, for the marks' ``title`` and the legend.
MEANINGS = {
    "separated": "separated: the interval's lower bound is above the noise floor's upper bound",
    "within noise": "within noise: the interval's lower bound is not above the noise floor's upper bound",
    "undetermined": "undetermined: the interval or the noise floor could not be estimated",
}
LEGEND = (
    Markup("Verdicts: ")
    + Markup("; ").join(
        Markup('<span class="verdict v-{}">{}</span> {}').format(name.replace(" ", "-"), mark, MEANINGS[name])
        for name, mark in MARKS.items()
    )
    + Markup(".")
)
NOT_ESTIMABLE = "not estimable"
NO_REASON = "no reason recorded"


def missing(value) -> bool:
    """Whether a cell value is absent: None, NaN, pandas' NA or an empty string.

    Examples
    --------
    >>> [missing(v) for v in (None, float("nan"), "", 0.0, "separated")]
    [True, True, True, False, False]
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    try:
        return bool(value != value) or (isinstance(value, float) and not math.isfinite(value))
    except (TypeError, ValueError):  # pandas.NA compares to NA, whose truth value is undefined
        return True


def decimals(value: float, digits: int = 3) -> int:
    """Decimal places that show ``value`` to ``digits`` significant digits (0 to 6).

    Examples
    --------
    >>> decimals(0.375), decimals(18.4), decimals(1234.0), decimals(0.0)
    (3, 1, 0, 2)
    """
    if not value or not math.isfinite(value):
        return digits - 1
    return int(min(6, max(0, digits - 1 - math.floor(math.log10(abs(value))))))


def number(value: float, places: int, rounding: str = ROUND_HALF_EVEN, sign: bool = False) -> str:
    """``value`` with ``places`` decimals, rounded as ``rounding`` (a :mod:`decimal` mode); exact zero as "0".

    Examples
    --------
    >>> number(0.375, 3), number(0.2999, 2, ROUND_CEILING), number(0.29, 2, ROUND_FLOOR), number(0.0, 3)
    ('0.375', '0.30', '0.29', '0')
    >>> number(0.12, 2, sign=True), number(-0.12, 2, sign=True)
    ('+0.12', '-0.12')
    """
    if value == 0:
        return "0"
    text = str(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=rounding))
    if text.startswith("-") and not text.strip("-0."):
        text = text[1:]  # -0.00: a negative value rounded to zero
    return f"+{text}" if sign and not text.startswith("-") else text


class Footnotes:
    """The reasons of one table's missing values, numbered in order of first use (ids ``<prefix>-<n>``).

    Examples
    --------
    >>> notes = Footnotes("kl")
    >>> str(notes.mark("one state")), str(notes.mark("one frame")), str(notes.mark("one state"))
    ('<sup><a href="#kl-1">1</a></sup>', '<sup><a href="#kl-2">2</a></sup>', '<sup><a href="#kl-1">1</a></sup>')
    """

    def __init__(self, prefix: str):
        self.prefix, self.reasons = prefix, []

    def mark(self, reason: str) -> Markup:
        """The superscript link to ``reason``'s footnote (added on first use)."""
        if reason not in self.reasons:
            self.reasons.append(reason)
        n = self.reasons.index(reason) + 1
        return Markup('<sup><a href="#{0}-{1}">{1}</a></sup>').format(self.prefix, n)

    def html(self) -> Markup:
        """The footnotes as an ordered list (empty when no value is missing)."""
        if not self.reasons:
            return Markup("")
        items = Markup("").join(
            Markup('<li id="{}-{}">{}</li>').format(self.prefix, n, reason) for n, reason in enumerate(self.reasons, 1)
        )
        return Markup('<ol class="footnotes">{}</ol>').format(items)


def not_estimable(reason: str | None, notes: Footnotes | None = None, text: str = NOT_ESTIMABLE) -> Markup:
    """``text`` ("not estimable") with ``reason`` in its ``title`` and a footnote mark.

    Examples
    --------
    >>> str(not_estimable("one frame"))
    '<span class="not-estimable" title="one frame">not estimable</span>'
    """
    reason = reason if not missing(reason) else NO_REASON
    mark = notes.mark(reason) if notes is not None else Markup("")
    return Markup('<span class="not-estimable" title="{}">{}</span>{}').format(reason, text, mark)


def verdict_mark(verdict: str, reason: str = "") -> Markup:
    """The verdict's mark, its meaning (and for *undetermined*, ``reason``) in the ``title``; empty for no verdict.

    Examples
    --------
    >>> str(verdict_mark("separated"))  # doctest: +ELLIPSIS
    '<span class="verdict v-separated" title="separated: the interval&#39;s lower bound is above ...">◆</span>'
    >>> str(verdict_mark(""))
    ''
    """
    if missing(verdict):
        return Markup("")
    meaning = MEANINGS.get(verdict, verdict)
    if verdict == "undetermined" and not missing(reason):
        meaning = f"{meaning} ({reason})"
    return Markup('<span class="verdict v-{}" title="{}">{}</span>').format(
        verdict.replace(" ", "-"), meaning, MARKS.get(verdict, verdict)
    )


@dataclass
class Estimate:
    """One W1 or KL value with what the metric suite knows about it (None where it does not).

    ``verdict`` is "" when the source has none (the older format); ``note`` says why a value,
    interval, floor or verdict is missing; ``extended``: the estimate fell outside the BCa interval
    and a bound was moved to it.
    """

    value: float | None
    low: float | None = None
    high: float | None = None
    bias: float | None = None
    floor: float | None = None
    floor_low: float | None = None
    floor_high: float | None = None
    verdict: str = ""
    note: str = ""
    extended: bool = False
    reading: str = ""  # how the verdict reads here, e.g. "not distinguishable at this resolution" (the controls)
    pinned: str = ""  # why this KL is no score (pinned by the bin floor): shown instead of the value

    @property
    def scored(self) -> bool:
        """Whether the source has verdicts (the new format): then a missing part is stated, not left blank."""
        return not missing(self.verdict) or not missing(self.note)


def large_bias(estimate: Estimate) -> bool:
    """Whether the bootstrap's bias exceeds half the interval's width (then the report shows it).

    Examples
    --------
    >>> large_bias(Estimate(1.0, low=0.8, high=1.2, bias=0.3)), large_bias(Estimate(1.0, low=0.8, high=1.2, bias=0.1))
    (True, False)
    """
    e = estimate
    if any(missing(x) for x in (e.bias, e.low, e.high)):
        return False
    return abs(e.bias) > (e.high - e.low) / 2


def estimate_cell(estimate: Estimate, notes: Footnotes | None = None, digits: int = 3) -> Markup:
    """The HTML of one divergence cell (see the module's description).

    Examples
    --------
    >>> cell = estimate_cell(Estimate(2.5, low=2.1, high=3.0, bias=0.6, floor_high=0.7, verdict="separated"))
    >>> "2.50 [2.1, 3.0]" in cell, "◆" in cell, "floor ≤ 0.700" in cell, "bias +0.60" in cell
    (True, True, True, True)
    >>> pinned = estimate_cell(Estimate(11.8, 10.8, 15.5, verdict="within noise", pinned="pinned by the bin floor"))
    >>> "pinned by the bin floor" in pinned, "11.8 [" in pinned
    (True, False)
    >>> unresolved = Estimate(0.3, 0.1, 0.5, verdict="within noise", reading="not distinguishable at this resolution")
    >>> "not distinguishable" in estimate_cell(unresolved)
    True
    >>> str(estimate_cell(Estimate(0.3, low=0.2, high=0.5)))  # no verdict in the source: value and interval only
    '<span class="estimate" title="estimate 0.3, 95 % interval [0.2, 0.5]">0.300 [0.20, 0.50]</span>'
    """
    e = estimate
    if missing(e.value):
        return not_estimable(e.note, notes) if e.scored else Markup("")
    if e.pinned:
        return Markup('<span class="pinned" title="{}: {:.4g} nats, not a score">{}</span>').format(
            e.pinned, e.value, e.pinned.split(":")[0]
        )
    scale = next((x for x in (e.value, e.high, e.floor_high) if not missing(x) and x != 0), 0.0)
    places = decimals(scale, digits)
    text = number(e.value, places)
    has_interval = not missing(e.low) and not missing(e.high)
    if has_interval:
        bound = max(places - 1, 0)
        text += f" [{number(e.low, bound, ROUND_FLOOR)}, {number(e.high, bound, ROUND_CEILING)}]"
        title = f"estimate {e.value:.6g}, 95 % interval [{e.low:.6g}, {e.high:.6g}]"
        if e.extended:
            title += "; the estimate fell outside the BCa interval and the bound was moved to it"
        parts = [Markup('<span class="estimate" title="{}">{}</span>').format(title, text)]
    else:
        parts = [Markup("{}").format(text)]
        if e.scored:
            parts.append(Markup(" [") + not_estimable(e.note, notes, "no interval") + Markup("]"))
    mark = verdict_mark(e.verdict, e.note)
    if mark:
        parts.append(Markup(" ") + mark)
    if e.reading and e.verdict == "within noise":  # the reading's first words, all of it on hover
        short = " ".join(e.reading.split()[:2])
        parts.append(Markup('<br><span class="reading" title="{}">{}</span>').format(e.reading, short))
    if not missing(e.floor_high):
        title = "noise floor (the ground truth against itself at this sample size)"
        if not missing(e.floor):
            title += f": median {e.floor:.4g}"
        if not missing(e.floor_low):
            title += f", 95 % range [{e.floor_low:.4g}, {e.floor_high:.4g}]"
        floor = number(e.floor_high, decimals(e.floor_high, digits), ROUND_CEILING)
        parts.append(Markup('<br><span class="floor" title="{}">floor ≤ {}</span>').format(title, floor))
    elif e.scored:
        parts.append(
            Markup('<br><span class="floor">') + not_estimable(e.note, notes, "floor not estimable") + Markup("</span>")
        )
    if large_bias(e):
        parts.append(
            Markup(
                '<br><span class="bias" title="bootstrap mean minus estimate, larger than half the '
                'interval">bias {}</span>'
            ).format(number(e.bias, decimals(e.bias, 2), sign=True))
        )
    return Markup("").join(parts)


def value_cell(value, reason: str | None = None, notes: Footnotes | None = None, digits: int = 4) -> Markup | str:
    """A plain value (coverage, a share, a count): rounded to ``digits`` significant digits; "not estimable"
    with the reason when it is missing and a reason is known, else empty.

    Examples
    --------
    >>> value_cell(0.123456), value_cell(3), str(value_cell(None, "one state"))
    ('0.1235', '3', '<span class="not-estimable" title="one state">not estimable</span>')
    >>> value_cell(None)
    ''
    """
    if missing(value):
        return not_estimable(reason, notes) if not missing(reason) else ""
    if isinstance(value, (bool, numbers.Integral)) or not isinstance(value, numbers.Real):
        return str(value)
    return f"{float(value):.{digits}g}"
