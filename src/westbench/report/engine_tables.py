"""One engine's table in the report, a row per weighting, read from its ``metrics.json``: every divergence with its
interval, floor and verdict (:mod:`westbench.report.cells`), with what the run's evidence says of it
(:mod:`westbench.report.evidence`: a KL that is no score, a *within noise* the run could not have told from a
difference), then coverage, structure and macrostates, and the footnotes of whatever is missing."""

from __future__ import annotations

from typing import Mapping

import pandas as pd
from markupsafe import Markup

from westbench.report.cells import NO_REASON, Estimate, Footnotes, estimate_cell, missing, value_cell
from westbench.report.divergence_tables import marked
from westbench.report.evidence import ProteinEvidence
from westbench.report.html_tables import html_table

# The divergences of an engine's own table: (metric, distribution, heading).
ENGINE_DIVERGENCES = (
    ("w1", "tic0", "W1 TIC 0"),
    ("w1", "tic01", "W1 TIC 0/1"),
    ("w1", "rg", "W1 Rg (Å)"),
    ("kl", "tic0", "KL TIC 0"),
    ("kl", "tic01", "KL TIC 0/1"),
)


# Keys of metrics.json's not_estimable that are not weightings.
NOT_WEIGHTINGS = {"noise_floor", "macrostates", "nonfinite", "training", "tica", "ended_walkers", "sanity"}
#: The weightings the metric suite knows, in its order: a whole one not estimable gets a row (its ``not_estimable``
#: key is the weighting's name); any other key without "/" is a caveat of the record, not a weighting.
WEIGHTINGS = ("we", "msm", "counts")


def reasons(not_estimable: Mapping, *keys: str) -> str:
    """The reasons ``not_estimable`` records under any of ``keys``, joined ("" when none).

    Examples
    --------
    >>> reasons({"msm": "one state", "msm/w1/tic0": "one state", "noise_floor": "one run"}, "msm/w1/tic0", "msm",
    ...         "noise_floor")
    'one state; one run'
    """
    found = []
    for key in keys:
        reason = not_estimable.get(key)
        if not missing(reason) and str(reason) not in found:
            found.append(str(reason))
    return "; ".join(found)


def json_estimate(record: Mapping, weighting: str, metric: str, distribution: str) -> Estimate:
    """One divergence of a ``metrics.json`` (its value, interval, the noise floor and the verdict), with the
    reasons of whatever is missing (from ``not_estimable``).

    A value the record does not have at all (that distribution is not scored) is a blank cell; one it
    holds as null is not estimable, with its reason.

    Examples
    --------
    >>> record = {"metrics": {"we": {"w1": {"tic0": 0.5, "rg": None}, "intervals": {"w1": {"tic0": {
    ...     "low": 0.4, "high": 0.7, "bias": 0.0}}}, "verdicts": {"w1": {"tic0": "separated"}}}},
    ...     "noise_floor": {"w1": {"tic0": {"value": 0.1, "low": 0.0, "high": 0.3}}},
    ...     "not_estimable": {"we/w1/rg": "no finite Rg"}}
    >>> e = json_estimate(record, "we", "w1", "tic0")
    >>> e.value, e.low, e.floor_high, e.verdict, e.note
    (0.5, 0.4, 0.3, 'separated', '')
    >>> json_estimate(record, "we", "w1", "rg").note, json_estimate(record, "we", "w1", "tic1").scored
    ('no finite Rg', False)
    """
    values = (record.get("metrics") or {}).get(weighting)
    ne = record.get("not_estimable") or {}
    whole = reasons(ne, weighting)  # the whole weighting not estimable
    if values is None:
        return Estimate(None, note=whole or NO_REASON)
    by_metric = values.get(metric) or {}
    value = by_metric.get(distribution)
    if value is None and distribution not in by_metric and not whole:
        return Estimate(None)
    interval = ((values.get("intervals") or {}).get(metric) or {}).get(distribution) or {}
    floor = (((record.get("noise_floor") or {}).get(metric)) or {}).get(distribution) or {}
    verdict = ((values.get("verdicts") or {}).get(metric) or {}).get(distribution) or ""
    if missing(value):
        return Estimate(
            None, verdict=verdict, note=reasons(ne, f"{weighting}/{metric}/{distribution}", weighting) or NO_REASON
        )
    keys = [f"{weighting}/{metric}/{distribution}"]
    if missing(interval.get("low")) or missing(interval.get("high")):
        keys.append(f"{weighting}/intervals")
    if missing(floor.get("high")):
        keys += [f"noise_floor/{metric}/{distribution}", "noise_floor"]
    note = reasons(ne, *keys)
    if verdict == "undetermined" and not note:
        note = "the interval or the noise floor could not be estimated"
    return Estimate(
        value,
        interval.get("low"),
        interval.get("high"),
        interval.get("bias"),
        floor.get("value"),
        floor.get("low"),
        floor.get("high"),
        verdict,
        note,
        bool(interval.get("extended")),
    )


def engine_table(record: Mapping, prefix: str, evidence: ProteinEvidence | None = None) -> Markup:
    """One engine's table, a row per weighting (``metrics.json``), and the footnotes of its missing values;
    ``evidence``: what the run's records say of its values (:func:`westbench.report.divergence_tables.marked`)."""
    engine = str(record.get("engine", ""))
    notes = Footnotes(prefix)
    ne = record.get("not_estimable") or {}
    macro = record.get("macrostates") or {}
    by_weighting = dict(record.get("metrics") or {})
    listed = (record.get("settings") or {}).get("weightings") or []
    for name in [*listed, *ne]:  # a whole weighting not estimable: a row that says so
        known = name in listed or name in WEIGHTINGS
        if known and "/" not in name and name not in NOT_WEIGHTINGS and name not in by_weighting:
            by_weighting[name] = None
    order = [name for name in listed or WEIGHTINGS if name in by_weighting]  # the configured order first
    by_weighting = {name: by_weighting[name] for name in [*order, *(n for n in by_weighting if n not in order)]}
    rows = []
    for name, values in by_weighting.items():
        values = values or {}
        row = {
            "weighting": name,
            "frames": record.get("frames"),
            "coverage": value_cell(values.get("coverage"), reasons(ne, f"{name}/coverage", name), notes),
        }
        for metric, distribution, heading in ENGINE_DIVERGENCES:
            estimate = marked(
                json_estimate(record, name, metric, distribution), engine, name, metric, distribution, evidence
            )
            row[heading] = estimate_cell(estimate, notes)
        populations = values.get("macrostate_populations") or {}
        row.update(
            {
                "contact map W1 (Å)": value_cell(
                    values.get("contact_map_w1_A"),
                    reasons(ne, f"{name}/contact_map", f"{name}/contact_map_w1_A", name),
                    notes,
                ),
                "bonds outside 3.5-4.5 Å": value_cell(
                    values.get("bonds_outside_share"), reasons(ne, f"{name}/bonds_outside_share", name), notes
                ),
                "macrostate TV": value_cell(
                    populations.get("total_variation"),
                    reasons(ne, f"{name}/macrostate_populations", "macrostates", name),
                    notes,
                ),
                "weight outside": value_cell(populations.get("model_outside")),
                "macrostates used": value_cell(macro.get("used"), reasons(ne, "macrostates"), notes),
            }
        )
        rows.append(row)
    frame = pd.DataFrame(rows)
    divergences = ["weighting", *(heading for _, _, heading in ENGINE_DIVERGENCES)]
    others = [c for c in frame.columns if c not in divergences[1:]]
    return html_table(frame[divergences]) + html_table(frame[others]) + notes.html()
