"""What this run could detect, from its controls (``controls.json``, :mod:`westbench.metrics.controls`): per failure
mode whether a known-bad engine would be caught (yes, no, cannot tell), whether the correct engines came out within
noise, and per distribution the smallest W1 or KL the run separated (its resolution).

:func:`detection_sentence` is the bottom line's sentence per protein; :func:`detection_html` the report's section.
A run without controls says so: what it could detect is then not known.

Examples
--------
>>> controls = {"detects": {"collapse (3 conformations repeated)": "yes", "mirror image": "no"},
...     "controls": [{"name": "collapse", "family": "collapse", "kind": "failure", "effect": 3,
...                   "failure_mode": "collapse (3 conformations repeated)"},
...                  {"name": "mirror", "family": "mirror", "kind": "failure", "failure_mode": "mirror image"}],
...     "resolution": {"w1": {"tic0": {"smallest_separated": 0.4, "largest_within_noise": 0.2, "resolved": True}}}}
>>> print(detection_sentence(controls))  # doctest: +NORMALIZE_WHITESPACE
With this ground truth, a known-bad engine would be caught: collapse (3 conformations repeated): yes; mirror image:
no. The smallest W1 separable on TIC 0: 0.4.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

import pandas as pd
from markupsafe import Markup

from westbench.report.definitions import defined_line
from westbench.report.html_tables import html_table

#: Families of controls whose failure any benchmark must catch (a collapsed, mirrored or unit-scaled engine): a run
#: that cannot catch one of them cannot rank engines (:func:`missed_gross`). Scale controls count when they are unit
#: mistakes (a factor of 2 or more either way), not the few-per-cent probes of resolution.
GROSS = ("collapse", "mirror", "scale")
#: A known-bad control the scores could not catch but the engine sanity checks did (``caught_by_sanity``): they judge
#: each engine alone, so they catch it whatever the ground truth's size (:mod:`westbench.geometry.sanity`).
BY_SANITY = "yes (by the sanity checks)"
ANSWERS = ("yes", BY_SANITY, "no", "cannot tell")
#: The distributions, in the order the section lists them, with their names in sentences.
NAMES = {
    "tic0": "TIC 0",
    "tic1": "TIC 1",
    "tic2": "TIC 2",
    "tic3": "TIC 3",
    "tic01": "TIC 0/1",
    "rg": "Rg",
    "bonds": "bonds",
    "angles": "angles",
    "dihedrals": "dihedrals",
}


def _failures(controls: Mapping) -> list[Mapping]:
    return [c for c in controls.get("controls") or [] if c.get("kind") == "failure"]


def is_gross(control: Mapping) -> bool:
    """Whether a control stands for a failure any benchmark must catch (:data:`GROSS`).

    Examples
    --------
    >>> is_gross({"family": "scale", "effect": 10.0}), is_gross({"family": "scale", "effect": 1.05})
    (True, False)
    """
    family = str(control.get("family") or control.get("name") or "")
    if family not in GROSS:
        return False
    if family == "scale":
        effect = control.get("effect")
        return effect is None or not 0.5 < float(effect) < 2.0
    return True


def answers(controls: Mapping) -> dict[str, str]:
    """Failure mode -> yes / no / cannot tell (``detects``, or each failure control's ``detected``), or
    :data:`BY_SANITY` where the scores did not catch it and the sanity checks did in every split of the ground truth
    (``caught_by_sanity``); "in k of n splits (by the sanity checks)" where they did in some only, which the run
    cannot promise (:func:`caught` is false).

    Examples
    --------
    >>> answers({"detects": {"mirror image": "cannot tell", "collapse": "no"},
    ...          "caught_by_sanity": {"mirror image": "yes", "collapse": "no"}})
    {'mirror image': 'yes (by the sanity checks)', 'collapse': 'no'}
    >>> answers({"detects": {"mirror image": "cannot tell"}, "caught_by_sanity": {"mirror image": "in 2 of 3 splits"}})
    {'mirror image': 'in 2 of 3 splits (by the sanity checks)'}
    """
    found = {str(k): str(v) for k, v in (controls.get("detects") or {}).items()}
    for control in _failures(controls):
        mode = str(control.get("failure_mode") or control.get("name"))
        if mode not in found:
            found[mode] = {True: "yes", False: "no"}.get(control.get("detected"), "cannot tell")
    for mode, caught in (controls.get("caught_by_sanity") or {}).items():
        if found.get(str(mode)) == "yes":
            continue
        if caught == "yes":
            found[str(mode)] = BY_SANITY
        elif str(caught).startswith("in "):  # caught in some splits of the ground truth only: not promised
            found[str(mode)] = f"{caught} (by the sanity checks)"
    return found


def caught(answer: str | None) -> bool:
    """Whether an answer of :func:`answers` says the run would catch the failure (by its scores or sanity checks)."""
    return answer in ("yes", BY_SANITY)


def missed_gross(controls: Mapping | None) -> list[str]:
    """The gross failure modes (:func:`is_gross`) the run would not catch (answer no or cannot tell), with answers."""
    if not controls:
        return []
    found = answers(controls)
    modes = [str(c.get("failure_mode") or c.get("name")) for c in _failures(controls) if is_gross(c)]
    return [f"{mode}: {found.get(mode, 'cannot tell')}" for mode in dict.fromkeys(modes) if not caught(found.get(mode))]


def why_cannot_tell(controls: Mapping) -> str:
    """The commonest reason a control decided nothing ("" when every control decided): the verdict notes of its
    undetermined cells, or the control's own note where it has no cells (not made)."""
    notes: Counter = Counter()
    for control in controls.get("controls") or []:
        if control.get("detected") is not None:
            continue
        cells = [cell for by_name in (control.get("cells") or {}).values() for cell in (by_name or {}).values()]
        found = [str((cell or {}).get("note") or "").strip() for cell in cells if (cell or {}).get("note")]
        notes.update(found or ([str(control["note"]).strip()] if control.get("note") else []))
    return notes.most_common(1)[0][0].rstrip(".") if notes else ""


def _number(value) -> str:
    return "none" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.2g}"


def detection_sentence(controls: Mapping | None) -> str:
    """The bottom line's sentence: which failure modes a known-bad engine would be caught for (the gross ones by
    name, the others counted) and the smallest W1 the run separates on TIC 0."""
    if not controls:
        return (
            "This run has no controls (controls.json absent: controls.enabled is off, or the run predates them), so "
            "what it could detect is not known."
        )
    found = answers(controls)
    gross = [str(c.get("failure_mode") or c.get("name")) for c in _failures(controls) if is_gross(c)]
    named = list(dict.fromkeys(gross)) or list(found)
    parts = [f"{mode}: {found.get(mode, 'cannot tell')}" for mode in named]
    others = Counter(answer for mode, answer in found.items() if mode not in named)
    if sum(others.values()) == 1:
        mode = next(mode for mode in found if mode not in named)
        parts.append(f"{mode}: {found[mode]}")
    elif others:
        counted = ", ".join(f"{others[a]} {a}" for a in dict.fromkeys([*ANSWERS, *others]) if others[a])
        parts.append(f"the other {sum(others.values())} known-bad controls: {counted}")
    text = "With this ground truth, a known-bad engine would be caught: " + "; ".join(parts) + "."
    reason = why_cannot_tell(controls)
    if reason and "cannot tell" in found.values():
        text += f" Cannot tell: {reason}."
    tic0 = ((controls.get("resolution") or {}).get("w1") or {}).get("tic0")
    if tic0 is not None:
        smallest = tic0.get("smallest_separated")
        text += f" The smallest W1 separable on TIC 0: {_number(smallest)}" + (
            " (no known-bad control was separated there)." if smallest is None else "."
        )
    return text


#: Columns of :func:`failure_table`.
COLUMNS = ["control", "failure mode", "expected", "as expected", "separated on", "what it is"]


def failure_table(controls: Mapping) -> pd.DataFrame:
    """One row per control: what it is, what the run should say (``expected``) and whether it did (``as expected``:
    a known-bad control caught, a correct one within noise)."""
    rows = []
    for control in controls.get("controls") or []:
        cells = control.get("cells") or {}
        separated = [
            f"{metric.upper()} {NAMES.get(name, name)}"
            for metric, by_name in cells.items()
            for name, cell in by_name.items()
            if (cell or {}).get("verdict") == "separated"
        ]
        null = control.get("kind") == "null"
        detected = control.get("detected")  # a null: whether it was separated somewhere (a false alarm)
        answer = {True: "no (a false alarm)" if null else "yes", False: "yes" if null else "no"}.get(
            detected, "cannot tell"
        )
        rows.append(
            {
                "control": control.get("name", ""),
                "failure mode": "none (a correct engine)" if null else control.get("failure_mode") or "",
                "expected": control.get("expected", ""),
                "as expected": answer,
                "separated on": ", ".join(separated) or "nothing",
                "what it is": control.get("description", ""),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def resolution_table(controls: Mapping) -> pd.DataFrame:
    """Per distribution and metric: the smallest known-bad value separated, the largest within noise, resolved."""
    resolution = controls.get("resolution") or {}
    names = [n for n in NAMES if any(n in (resolution.get(m) or {}) for m in resolution)]
    rows = []
    for name in names:
        row = {"distribution": NAMES[name]}
        for metric in resolution:
            entry = (resolution[metric] or {}).get(name) or {}
            label = str(metric).upper()
            row[f"{label} smallest separated"] = _number(entry.get("smallest_separated"))
            row[f"{label} largest within noise"] = _number(entry.get("largest_within_noise"))
            row[f"{label} resolved"] = "yes" if entry.get("resolved") else "no"
        rows.append(row)
    return pd.DataFrame(rows)


def detection_html(found: Mapping[str, Mapping | None]) -> Markup:
    """The section "What this run could detect": per protein (``found``: its ``controls.json`` or None), the
    sentence, the controls with what each should and did come out as, and the resolution per distribution."""
    body = Markup('<h2 id="detection">What this run could detect</h2>\n')
    body += Markup(
        '<p class="note">Engines whose answer is known, made from this run\'s own ground truth without new MD and '
        "scored by the same suite (the controls): correct ones must come out <i>within noise</i>, known-bad ones "
        "<i>separated</i> on what they change. <b>Caught</b> (for a known-bad control, <b>as expected</b>): it was "
        "separated on a distribution it changes (yes), was not (no), or nothing was decided (cannot tell); "
        "<i>yes (by the sanity checks)</i>: the scores did not catch it but the engine sanity checks, which judge "
        "each engine alone whatever the ground truth's size, did; a correct "
        "control is as expected when nothing is separated. <b>Resolution</b>: per distribution, the "
        "smallest value of a known-bad control the run separated and the largest it left within noise; "
        "<b>resolved</b>: some known-bad control was separated there. Where a distribution is not resolved, "
        "<i>within noise</i> reads <i>not distinguishable at this resolution</i>.</p>\n"
    )
    for protein, controls in found.items():
        body += Markup("<h3>{}</h3>\n<p>{}</p>\n").format(protein, detection_sentence(controls))
        if not controls:
            continue
        if controls.get("reference"):
            body += Markup('<p class="note">Reference of the controls: {}</p>\n').format(controls["reference"])
        tables = [failure_table(controls), resolution_table(controls)]
        for table in (t for t in tables if len(t)):
            body += Markup('<div class="scroll">{}</div>\n').format(html_table(table))
        body += defined_line([column for table in tables for column in table.columns])
    return body
