"""The report's W1 and KL tables: per protein, engine and weighting one cell per distribution (its estimate, 95 %
interval, verdict and noise floor, :mod:`westbench.report.cells`), read from the metric tables' CSV files
(:func:`westbench.metrics.tables.divergence_table`), with what the run's evidence says of each value
(:mod:`westbench.report.evidence`): a KL that is no score, a *within noise* the run could not have told from a
difference, an engine that failed its sanity check."""

from __future__ import annotations

from typing import Mapping

import pandas as pd
from markupsafe import Markup

from westbench.presentation.verdicts import FIELDS, KEYS, TEXT_FIELDS, distributions_of
from westbench.report.cells import Estimate, Footnotes, estimate_cell, missing
from westbench.report.evidence import UNRESOLVED, ProteinEvidence, kl_reason
from westbench.report.html_tables import html_table, split_columns

#: Column headings of the divergence tables' distributions, and the unit of each distribution (its W1's unit).
HEADINGS = {
    "tic0": "TIC 0",
    "tic1": "TIC 1",
    "tic2": "TIC 2",
    "tic3": "TIC 3",
    "rg": "Rg",
    "bonds": "bonds",
    "angles": "angles",
    "dihedrals": "dihedrals",
    "tic01": "TIC 0/1",
}


UNITS = {"rg": "Å", "bonds": "Å", "angles": "°", "dihedrals": "°"}


def text(value) -> str:
    """A text cell of a table read from CSV: "" where it is empty."""
    return "" if missing(value) else str(value)


def csv_estimate(row: Mapping, name: str) -> Estimate:
    """Distribution ``name`` of one row of a W1/KL table (:func:`westbench.metrics.tables.divergence_table`);
    the columns the older format lacks are None.

    Examples
    --------
    >>> e = csv_estimate({"rg": 0.4, "rg_ci_low": 0.3, "rg_ci_high": 0.6, "rg_verdict": float("nan")}, "rg")
    >>> e.value, e.low, e.high, e.floor_high, e.verdict, e.scored
    (0.4, 0.3, 0.6, None, '', False)
    """

    def get(part):
        value = row.get(f"{name}_{part}")
        return None if missing(value) else value

    return Estimate(
        row.get(name),
        *(get(part) for part in FIELDS if part not in TEXT_FIELDS),
        verdict=text(row.get(f"{name}_verdict")),
        note=text(row.get(f"{name}_note")),
    )


def marked(estimate: Estimate, engine: str, weighting: str, metric: str, name: str, evidence) -> Estimate:
    """``estimate`` with what the run's evidence (:class:`westbench.report.evidence.ProteinEvidence`, or None) says
    of it: a KL that is no score (``pinned``), and a *within noise* on a distribution the controls show the run
    cannot resolve (``reading``).

    Examples
    --------
    >>> from westbench.report.evidence import EngineEvidence
    >>> evidence = ProteinEvidence("p", {"a": EngineEvidence("a", kl_floor=1e-8, groundtruth_frames=60)},
    ...                            controls={"resolution": {"w1": {"rg": {"resolved": False}}}})
    >>> marked(Estimate(3.1, floor_high=16.5), "a", "we", "kl", "tic0", evidence).pinned[:23]
    'pinned by the bin floor'
    >>> marked(Estimate(0.3, floor_high=1.0), "a", "we", "w1", "rg", evidence).reading
    'not distinguishable at this resolution'
    """
    if evidence is None:
        return estimate
    if metric.lower() == "kl" and not missing(estimate.value):
        row = {"engine": engine, "weighting": weighting, "distribution": name, "value": estimate.value}
        estimate.pinned = kl_reason({**row, "floor_high": estimate.floor_high, "note": estimate.note}, evidence)
    if evidence.resolved(metric, name) is False:
        estimate.reading = UNRESOLVED
    return estimate


def read_estimate(row: Mapping, name: str, metric: str, evidence: ProteinEvidence | None) -> Estimate:
    """:func:`csv_estimate` :func:`marked` with the run's evidence."""
    estimate = csv_estimate(row, name)
    return marked(estimate, str(row.get("engine", "")), str(row.get("weighting", "")), metric, name, evidence)


def engine_cell(row: Mapping, evidence: ProteinEvidence | None):
    """The engine's name, with "failed sanity check" and the checks where it failed one."""
    failed = text(row.get("sanity_failed"))
    if not failed and evidence is not None:
        failed = ";".join(evidence.engine(str(row["engine"])).failed_checks)
    if not failed:
        return row["engine"]
    return Markup('{}<br><span class="failed">failed sanity check: {}</span>').format(
        row["engine"], failed.replace(";", ", ")
    )


def divergence_cells(
    table: pd.DataFrame, prefix: str, units: bool = True, evidence: Mapping[str, ProteinEvidence] | None = None
) -> tuple[pd.DataFrame, Footnotes]:
    """A W1/KL table for reading: the keys, then per distribution one cell (:func:`estimate_cell`); headings
    carry the distribution's unit when ``units`` (W1); the footnotes give the reasons of missing values.
    ``prefix`` is the metric (``w1``, ``kl``); ``evidence`` (per protein) marks KL values that are no score, reads
    *within noise* as "not distinguishable at this resolution" where the controls show the run could not have told,
    and names an engine that failed its sanity check as failed.

    Examples
    --------
    >>> table = pd.DataFrame({"engine": ["a"], "rg": [0.375], "rg_ci_low": [0.21], "rg_ci_high": [0.9],
    ...                       "rg_floor_high": [1.63], "rg_verdict": ["within noise"], "rg_note": [""]})
    >>> cells, notes = divergence_cells(table, "w1")
    >>> list(cells.columns), "0.375 [0.21, 0.90]" in cells.iloc[0, 1], "±" in cells.iloc[0, 1]
    (['engine', 'Rg (Å)'], True, False)
    """
    notes = Footnotes(prefix)
    names = distributions_of(table)
    headings = [f"{HEADINGS.get(n, n)} ({UNITS[n]})" if units and n in UNITS else HEADINGS.get(n, n) for n in names]
    keys = [key for key in KEYS if key in table]
    rows = []
    for row in table.to_dict("records"):  # row by row: footnotes numbered in reading order
        found = (evidence or {}).get(row.get("protein"))
        shown = {**row, "engine": engine_cell(row, found)} if "engine" in row else row
        rows.append(
            [shown[key] for key in keys] + [estimate_cell(read_estimate(row, n, prefix, found), notes) for n in names]
        )
    return pd.DataFrame(rows, columns=[*keys, *headings]), notes


def divergence_html(
    table: pd.DataFrame, prefix: str, units: bool = True, evidence: Mapping[str, ProteinEvidence] | None = None
) -> Markup:
    """:func:`divergence_cells` as HTML: split into tables of a few distributions each that fit the page
    (:func:`westbench.report.html_tables.split_columns`), the footnotes below the last.

    Examples
    --------
    >>> table = pd.DataFrame({"engine": ["a"], **{n: [0.1] for n in ("tic0", "tic1", "tic2", "tic3", "rg", "bonds")}})
    >>> str(divergence_html(table, "w1")).count("<table>")
    2
    """
    cells, notes = divergence_cells(table, prefix, units, evidence)
    keys = [key for key in KEYS if key in cells]
    return Markup("").join(html_table(part) for part in split_columns(cells, keys)) + notes.html()


def read_divergence_table(path) -> pd.DataFrame:
    """A W1/KL CSV of rule ``metric_tables``: verdicts and notes as text ("" where empty)."""
    table = pd.read_csv(path)
    for column in table.columns:
        if str(column).endswith(tuple(f"_{part}" for part in TEXT_FIELDS)):
            table[column] = [text(value) for value in table[column]]
    return table
