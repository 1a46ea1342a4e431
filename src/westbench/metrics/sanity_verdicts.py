"""The engine sanity checks in an engine's scores: run on the frames the suite scores, each failure a caveat, every
verdict that would read *within noise* made *undetermined*, and the ``metrics.csv`` row of the failed checks.

The checks themselves are :func:`westbench.geometry.sanity.engine_sanity`'s; ``metrics.json`` records their report
as ``sanity`` (:mod:`westbench.metrics.record`).

Examples
--------
>>> from westbench.geometry.sanity import Check, SanityReport
>>> sanity_row(SanityReport({"units": Check(False, 38.2, "3.3-4.3 Å", "median bond 38.2 Å")}))["note"]
'units'
"""

from __future__ import annotations

import logging

import pandas as pd

from westbench.geometry.sanity import SanityReport, engine_sanity
from westbench.metrics.estimability import NotEstimable
from westbench.metrics.noise_floor import UNDETERMINED, WITHIN_NOISE
from westbench.metrics.suite import MetricSuite

__all__ = ["check_sanity", "sanity_row", "undetermined_if_insane"]

log = logging.getLogger("westbench.metrics")


def check_sanity(suite: MetricSuite) -> SanityReport:
    """The engine's sanity checks (:func:`westbench.geometry.sanity.engine_sanity`) on the frames the suite scores,
    under their WE weights (the exported ones; every frame once where they are not a distribution); each failed
    check is logged and recorded as a caveat (``sanity/<check>``)."""
    try:
        weights = suite.weights("we")
    except NotEstimable:
        weights = suite.weights("counts")
    report = engine_sanity(suite.groundtruth, suite.model, weights)
    for name in report.failed:
        message = report.checks[name].message
        log.warning("engine sanity: %s failed: %s", name, message)
        suite.caveats.add(f"sanity/{name}", f"failed engine sanity check {name}: {message}")
    return report


def undetermined_if_insane(values: dict, table: pd.DataFrame, sanity: SanityReport) -> pd.DataFrame:
    """Where the engine failed a sanity check, every verdict that would read *within noise* becomes *undetermined*
    with the failure as its reason (in ``values`` and in the tidy ``table``, which is returned); *separated* stays.

    Agreement within noise is no evidence for an engine that is not the protein (a mirror image has the ground
    truth's TICs; a few frames repeated can sit inside a small ground truth's floor): it must never read as fine.
    A separated verdict stays true of such an engine. The values, intervals and floors are kept.

    Examples
    --------
    >>> from westbench.geometry.sanity import Check, SanityReport
    >>> failed = SanityReport({"units": Check(False, 38.2, "3.3-4.3 Å", "median bond 38.2 Å")})
    >>> values = {"verdicts": {"w1": {"rg": "separated", "tic0": "within noise"}}, "verdict_notes": {"w1": {}}}
    >>> table = pd.DataFrame({"distribution": ["rg", "tic0"], "metric": ["w1", "w1"],
    ...                       "verdict": ["separated", "within noise"], "note": ["", ""]})
    >>> undetermined_if_insane(values, table, failed)["verdict"].tolist(), values["verdicts"]["w1"]["tic0"]
    (['separated', 'undetermined'], 'undetermined')
    """
    if sanity.passed:
        return table
    why = f"the engine {sanity.reason()}: agreement within noise is no evidence for an engine that is not the protein"
    for metric, verdicts in values.get("verdicts", {}).items():
        for name, decided in verdicts.items():
            if decided == WITHIN_NOISE:
                verdicts[name] = UNDETERMINED
                values.setdefault("verdict_notes", {}).setdefault(metric, {})[name] = why
    if "verdict" in table:
        within = (table["verdict"] == WITHIN_NOISE).to_numpy()
        table = table.copy()
        notes = table["note"].astype(object).where(table["note"].notna(), "") if "note" in table else None
        table.loc[within, "verdict"] = UNDETERMINED
        table.loc[within, "note"] = [
            why if notes is None or not notes[i] else f"{why}; {notes[i]}" for i in table.index[within]
        ]
    return table


def sanity_row(sanity: SanityReport) -> dict:
    """The tidy ``metrics.csv`` row of the sanity checks: ``note`` the failed checks, ";"-joined ("" when none),
    ``value`` their count (the tables' ``sanity_failed`` column, :func:`westbench.metrics.tables.divergence_table`).

    >>> from westbench.geometry.sanity import SanityReport
    >>> sanity_row(SanityReport({}))
    {'weighting': '', 'distribution': 'sanity', 'metric': 'failed', 'value': 0.0, 'note': ''}
    """
    return {
        "weighting": "",
        "distribution": "sanity",
        "metric": "failed",
        "value": float(len(sanity.failed)),
        "note": ";".join(sanity.failed),
    }
