"""The HTML report's first section: the calibration study's verdicts against the known answers.

Examples
--------
>>> headline({"null_verdicts": {"cells": 18, "determined": 16, "within_noise": 16, "separated": []},
...           "strongest_temperature_separated": True, "agreement": {"rows": 4, "agree": 4}})
... # doctest: +NORMALIZE_WHITESPACE
'the null engine came out within noise on 16 of the 16 W1 and KL cells that could be decided (2 undetermined);
the strongest temperature perturbation came out separated; 4 of 4 verdicts agree with the known answer'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from markupsafe import Markup

from westbench.presentation.training import failure_to_learn
from westbench.report.cells import Estimate, Footnotes, estimate_cell

#: The one sentence the report (and the README) says the study proves.
CLAIM = (
    "Known-answer calibration: on a system whose equilibrium is known exactly (a Go model of the protein and a "
    "ground truth made by it), the metric suite must call the reference itself within noise and its "
    "perturbations separated, in proportion to their size; this section shows whether it does."
)
HEADINGS = {"tic0": "W1 TIC 0", "tic1": "W1 TIC 1", "rg": "W1 Rg (Å)"}


def headline(result: Mapping) -> str:
    """The checks of calibration.json in words."""
    parts = []
    for key, who in (("null", "the null engine"), ("dynamics", "the engines that change only their dynamics")):
        counts = result.get(f"{key}_verdicts")
        if counts:
            separated = counts["separated"]
            parts.append(
                f"{who} came out within noise on {counts['within_noise']} of the {counts['determined']} W1 and KL "
                f"cells that could be decided ({counts['cells'] - counts['determined']} undetermined)"
                + (f"; separated on {', '.join(separated)} (a failed calibration)" if separated else "")
            )
        elif f"{key}_within_noise" in result:
            parts.append(
                f"{who} came out "
                + (
                    "within noise"
                    if result[f"{key}_within_noise"]
                    else "separated on some distribution (a failed calibration)"
                )
            )
    for change, label in (("temperature", "temperature"), ("contact", "native-contact")):
        key = f"strongest_{change}_separated"
        if key in result:
            parts.append(
                f"the strongest {label} perturbation came out "
                + ("separated" if result[key] else "within noise on some distribution")
            )
        strictly, ordered = result.get(f"{change}_monotone"), result.get(f"{change}_ordered")
        if strictly:
            good = [name for name, ok in strictly.items() if ok]
            parts.append(
                f"{label} divergence grows with the perturbation wherever it is resolved on {len(good)} of "
                f"{len(strictly)} distributions"
            )
        if ordered and not all(ordered.values()):
            parts.append(
                f"a larger {label} perturbation scores significantly below a smaller one on "
                + ", ".join(name for name, ok in ordered.items() if not ok)
            )
    if "fulltrained_closer" in result:
        closer = result["fulltrained_closer"]
        parts.append(
            f"the fully-trained CG model is closer than the under-trained on {closer['closer_on']} of {closer['of']}"
        )
    near = result.get("fulltrained_near_floor")
    if near and near.get("gap_left") is not None:
        parts.append(
            f"its force-matching loss has {near['gap_left']:.0%} of the way from its start to the noise floor left "
            + ("(near the floor" if near["near"] else "(NOT near the floor")
            + f": at most {near['bound']:.0%})"
        )
    for engine, training in result.get("training", {}).items():
        if not training.get("learned"):
            parts.append(f"{engine} {failure_to_learn({'learned': False, **training}, 'flag')}")
    agreement = result.get("agreement")
    if agreement:
        text = f"{agreement['agree']} of {agreement['rows']} verdicts agree with the known answer"
        if "could_disagree" in agreement:
            text += (
                f" ({agreement['could_disagree']} of them could disagree: the others are expected *either*; "
                f"{agreement['agree_of_those']} of those agree)"
            )
        parts.append(text)
    coverage = result.get("interval_coverage")
    if coverage and coverage.get("rate") is not None:
        text = (
            f"score and known answer at the engine's sample size agree within their noise (the 95 % interval of "
            f"their difference holds 0) in {coverage['covered']} of {coverage['cells']} resolved cells "
            f"({coverage['rate']:.0%})"
        )
        every = coverage.get("all_cells") or {}
        if every.get("rate") is not None:
            text += f" and {every['covered']} of {every['cells']} cells with a known answer ({every['rate']:.0%})"
        lean = (coverage.get("lean") or {}).get("resolved")
        if lean:
            text += f"; resolved scores above their answer {lean['above']}, below {lean['below']}"
        parts.append(text)
    equilibrated = result.get("groundtruth_equilibrated")
    if equilibrated and equilibrated.get("equilibrated") is not None:
        parts.append(
            "the ground truth's native- and hot-started runs agree (equilibrated)"
            if equilibrated["equilibrated"]
            else "the ground truth's native- and hot-started runs differ on "
            + ", ".join(
                equilibrated["separated"] + [f"mean {quantity} per run" for quantity in equilibrated.get("drifted", [])]
            )
            + " (NOT equilibrated: longer calibration.groundtruth.equilibration_ps)"
        )
    if result.get("user_engines"):
        parts.append(
            f"your engines ({', '.join(result['user_engines'])}) are scored beside them, with no known answer: "
            "read their verdicts against this resolution"
        )
    return "; ".join(parts)


def verdict_frame(table: pd.DataFrame, notes: Footnotes) -> pd.DataFrame:
    """One row per engine: each distribution's estimate cell, expected verdict and agreement."""
    rows = []
    for engine, group in headline_only(table).groupby("engine", sort=False):
        first = group.iloc[0]
        row = {
            "engine": engine,
            "kind": first["kind"],
            "temperature ×": f"{first['temperature_scale']:g}",
            "contacts ×": f"{first['contact_scale']:g}",
            "dynamics": dynamics_text(first),
        }
        for _, item in group.iterrows():
            estimate = Estimate(
                _number(item["value"]),
                low=_number(item["ci_low"]),
                high=_number(item["ci_high"]),
                floor=_number(item["floor"]),
                floor_low=_number(item["floor_low"]),
                floor_high=_number(item["floor_high"]),
                verdict=str(item["verdict"]),
            )
            expected = "" if pd.isna(item["expected"]) else str(item["expected"])
            agree = "" if not expected else ("✓" if str(item["agrees"]) == "True" else "✗")
            row[HEADINGS.get(item["distribution"], item["distribution"])] = estimate_cell(estimate, notes) + Markup(
                "<br>expected: {} {}"
            ).format(expected or "—", agree)
        rows.append(row)
    return pd.DataFrame(rows)


def headline_only(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the study marks as its headline (its ``headline`` column: W1 of TIC 0, TIC 1 and Rg); every row of a
    table written before the study checked every metric and distribution (they were those rows).

    Examples
    --------
    >>> headline_only(pd.DataFrame({"headline": [True, "False"], "value": [1, 2]}))["value"].tolist()
    [1]
    """
    if "headline" not in table or table["headline"].isna().all():
        return table
    return table[table["headline"].astype(str).str.lower() == "true"]


def dynamics_text(row) -> str:
    """An engine's change of dynamics in words ("" for none).

    Examples
    --------
    >>> dynamics_text({"friction_scale": 10.0, "timestep_scale": 1.0})
    'friction ×10'
    """
    parts = []
    for column, label in (("friction_scale", "friction"), ("timestep_scale", "timestep")):
        value = row.get(column)
        if value is not None and not pd.isna(value) and float(value) != 1.0:
            parts.append(f"{label} ×{float(value):g}")
    return ", ".join(parts)


def _number(value):
    return None if pd.isna(value) else float(value)


def read_table(path) -> pd.DataFrame:
    """``results/tables/calibration.csv`` with its text as written: the null engine's kind is the word ``null``,
    which pandas would otherwise read as a missing value (the blank kind the report once showed).

    Examples
    --------
    >>> import io
    >>> read_table(io.StringIO("engine,kind,value\\nreference,null,0.1\\nhot,perturbation,\\n"))["kind"].tolist()
    ['null', 'perturbation']
    """
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def calibration_html(table_path, summary_path, figures: Sequence, html_table, figure_html) -> Markup:
    """The section's HTML: the claim, the checks in words, the table and the figures."""
    table = read_table(table_path)
    result = json.loads(Path(summary_path).read_text())
    notes = Footnotes("c")
    body = Markup(
        "<h2>Calibration: does the benchmark tell a correct engine from wrong ones?</h2>\n<p>{}</p>\n"
        "<p><b>Result:</b> {}.</p>\n"
    ).format(CLAIM, headline(result))
    body += Markup('<div class="scroll">{}</div>').format(html_table(verdict_frame(table, notes)))
    body += notes.html()
    return body + Markup("").join(figure_html(f) for f in figures)
