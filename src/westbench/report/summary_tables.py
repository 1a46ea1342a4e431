"""The report's cross-engine tables: W1 and KL per engine with intervals (from the metric tables' CSV
files, :mod:`westbench.report.divergence_tables`), the verdict summary, the caveats (every number not estimated
and why) and the KL bin sensitivity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from markupsafe import Markup

from westbench.engines.kinds import GROUNDTRUTH
from westbench.presentation.verdicts import KEYS, verdict_summary
from westbench.report.captions import Captions
from westbench.report.cells import LEGEND, missing
from westbench.report.divergence_tables import divergence_html, read_divergence_table, text
from westbench.report.evidence import ProteinEvidence, tica_short
from westbench.report.html_tables import html_table, split_columns

CAVEAT_COLUMNS = ["protein", "engine", "key", "reason"]


def verdict_table(w1: pd.DataFrame, kl: pd.DataFrame) -> pd.DataFrame | None:
    """Per protein, engine and weighting: how many W1 and KL values are separated, within noise or
    undetermined; None when no table has verdicts (the older format).

    Examples
    --------
    >>> w1 = pd.DataFrame({"engine": ["a", "b"], "tic0": [0.5, 0.1], "tic0_verdict": ["separated", "within noise"]})
    >>> kl = pd.DataFrame({"engine": ["b"], "tic0": [None], "tic0_verdict": ["undetermined"]})
    >>> verdict_table(w1, kl).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'engine': 'a', 'W1 separated': 1, 'W1 within noise': 0, 'W1 undetermined': 0, 'KL separated': None,
      'KL within noise': None, 'KL undetermined': None},
     {'engine': 'b', 'W1 separated': 0, 'W1 within noise': 1, 'W1 undetermined': 0, 'KL separated': 0,
      'KL within noise': 0, 'KL undetermined': 1}]
    >>> verdict_table(w1.drop(columns="tic0_verdict"), kl.iloc[0:0]) is None
    True
    """
    parts = []
    for label, table in (("W1", w1), ("KL", kl)):
        by = [key for key in KEYS if key in table]
        summary = verdict_summary(table, by=by)
        if summary.drop(columns=[*by, "no verdict"]).to_numpy().sum() == 0:
            continue
        summary = summary.drop(columns="no verdict") if not summary["no verdict"].any() else summary
        parts.append(summary.rename(columns={c: f"{label} {c}" for c in summary.columns if c not in by}))
    if not parts:
        return None
    merged = parts[0]
    for part in parts[1:]:
        on = [key for key in KEYS if key in merged and key in part]
        rows = pd.concat([merged[on], part[on]]).drop_duplicates()  # every row once, in the tables' order
        merged = rows.merge(merged, on=on, how="left").merge(part, on=on, how="left")
    counts = [c for c in merged.columns if c not in KEYS]
    return merged.astype({c: "Int64" for c in counts})


def reach_html(coverage: pd.DataFrame, per_threshold: list[str]) -> Markup:
    """The compute-to-threshold columns of the coverage table, split to fit; rows and columns that are empty
    everywhere are left out, and when nothing is left a sentence says why instead of an empty table.

    Examples
    --------
    >>> table = pd.DataFrame({"protein": ["p"], "engine": ["a"], "coverage": [0.12],
    ...                       "segments_to_50%": [None], "cpu_seconds_to_50%": [None]})
    >>> str(reach_html(table, ["segments_to_50%", "cpu_seconds_to_50%"]))  # doctest: +ELLIPSIS
    '<p>No engine reached any coverage threshold (50 %): the highest coverage was 0.12 (p / a)...'
    """
    keys = [key for key in ("protein", "engine") if key in coverage]
    values = coverage[per_threshold].apply(pd.to_numeric, errors="coerce")
    filled = [c for c in per_threshold if (values[c].fillna(0) != 0).any()]
    if not filled:
        thresholds = sorted({c.rsplit("_to_", 1)[1].rstrip("%") for c in per_threshold if "_to_" in c}, key=float)
        if not thresholds:
            return Markup("<p>No coverage thresholds are configured (metrics.coverage_thresholds).</p>")
        if "coverage" in coverage and coverage["coverage"].notna().any():
            best = coverage.loc[pd.to_numeric(coverage["coverage"], errors="coerce").idxmax()]
            where = " / ".join(str(best[k]) for k in keys)
            highest = f": the highest coverage was {float(best['coverage']):.2g} ({where})"
        else:
            highest = ""
        return Markup(
            "<p>No engine reached any coverage threshold ({} %){}, so there is no compute to report. "
            "Longer or more WE runs reach them (we.max_iterations, we.replicas).</p>"
        ).format(", ".join(thresholds), highest)
    frame = coverage[keys + filled][values[filled].notna().any(axis=1)]
    left_out = [c for c in per_threshold if c not in filled]
    note = Markup("")
    if left_out:
        note = Markup(
            "<p>Left out, as no engine has a value there (never reached, or 0 seconds on this platform): {}. "
            "Engines that reached no threshold are left out too.</p>"
        ).format(", ".join(left_out))
    return note + Markup("").join(html_table(part) for part in split_columns(frame, keys))


def caveats(metrics: Sequence[tuple[str, str, object]]) -> pd.DataFrame:
    """Every ``not_estimable`` entry of every ``metrics.json`` (protein, engine, key, reason), and a row for
    each run that dropped frames with non-finite coordinates (``nonfinite_frames_dropped`` > 0).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "metrics.json")
    >>> _ = open(path, "w").write(json.dumps({"not_estimable": {"msm": "one grid cell"},
    ...                                       "nonfinite_frames_dropped": 2}))
    >>> caveats([("p", "explicit", path)]).values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['p', 'explicit', 'msm', 'one grid cell'],
     ['p', 'explicit', 'nonfinite_frames_dropped', '2 frames with non-finite coordinates dropped before scoring']]
    """
    rows = []
    for protein, engine, path in metrics:
        record = json.loads(Path(path).read_text())
        for key, reason in (record.get("not_estimable") or {}).items():
            rows.append([protein, engine, key, text(reason) or "no reason recorded"])
        dropped = record.get("nonfinite_frames_dropped") or 0
        if dropped > 0:
            rows.append(
                [
                    protein,
                    engine,
                    "nonfinite_frames_dropped",
                    f"{dropped} frame{'s' if dropped != 1 else ''} with non-finite coordinates dropped before scoring",
                ]
            )
    return pd.DataFrame(rows, columns=CAVEAT_COLUMNS)


def kl_sensitivity(metrics: Sequence[tuple[str, str, object]]) -> str:
    """One sentence: the KL of TIC 0/1 of the first model engine at several bin counts
    (``metrics``: (protein, engine, metrics.json) records)."""
    for protein, engine, path in metrics:
        example = json.loads(Path(path).read_text()).get("kl_tic01_by_bins")
        if engine != GROUNDTRUTH and example and example.get("values"):
            values = ", ".join(
                f"{bins} bins: {'not estimable' if missing(value) else f'{value:.3g}'}"
                for bins, value in example["values"].items()
            )
            return (
                f"Binning sensitivity, once: KL(TIC 0/1) of {protein} / {engine} "
                f"({example['weighting']} weights) is {values}."
            )
    return ""


def table_sections(
    tables: Mapping[str, object],
    settings: Mapping,
    metrics: Sequence[tuple[str, str, object]],
    captions: Captions,
    evidence: Mapping[str, ProteinEvidence] | None = None,
) -> tuple[dict, dict]:
    """The report's tables ({heading: DataFrame or HTML}) and their notes, from the CSVs of rule
    ``metric_tables`` (``w1``, ``kl``, ``coverage``) and the ground-truth throughput (``throughput``).

    A note is the caption the rules declare for that CSV (``report/tables/*.rst``), plus what only this
    page shows: how a cell reads and, for KL, the binning-sensitivity example. When the tables carry
    verdicts, a first table counts them per protein, engine and weighting. ``evidence`` (per protein,
    :func:`westbench.report.evidence.read_evidence`) marks what the divergence tables cannot read as a score.
    """
    verdicts = "Verdicts against the noise floor"
    w1, kl = "Wasserstein-1 (W1)", "KL(ground truth || model)"
    coverage = "Coverage of the ground truth's TIC 0/1 plane and compute spent"
    reach = "Compute to reach each coverage threshold, and speed-up against the reference engine"
    throughput = "Ground-truth throughput"
    full = pd.read_csv(tables["coverage"])
    per_threshold = [c for c in full.columns if "_to_" in c]
    w1_table, kl_table = read_divergence_table(tables["w1"]), read_divergence_table(tables["kl"])
    # Split so that each table fits a 1,400 px window: totals, then the per-threshold compute.
    frames = {
        w1: divergence_html(w1_table, "w1", evidence=evidence),
        kl: divergence_html(kl_table, "kl", units=False, evidence=evidence),
        coverage: full.drop(columns=per_threshold),
        reach: reach_html(full, per_threshold),
        throughput: pd.read_csv(tables["throughput"]),
    }
    summary = verdict_table(w1_table, kl_table)
    if summary is not None:
        frames = {verdicts: summary, **frames}
    reading = _reading(settings["bootstrap"])
    name = {role: Path(path).stem for role, path in tables.items()}  # a table's caption: its file's name
    tica = _tica_caveats(evidence)
    notes = {
        w1: _note(captions, name["w1"], reading, tica),
        kl: _note(captions, name["kl"], kl_sensitivity(metrics), reading, tica),
        coverage: _note(captions, name["coverage"]),
        reach: Markup("<p>The per-threshold columns of the coverage table above (same CSV).</p>"),
        throughput: _note(captions, name["throughput"]),
    }
    if summary is not None:
        notes[verdicts] = Markup(
            "<p>Per protein, engine and weighting: how many of the W1 and KL values "
            "(one per distribution, the tables below) are separated from the ground truth's "
            "noise floor (the interval's lower bound above the floor's upper bound), within "
            "it, or undetermined (the interval or the floor not estimable).</p>"
        )
    return frames, notes


def _reading(bootstrap: int) -> Markup:
    """How a divergence table's cell reads (with ``bootstrap`` replicates; without, that nothing is called)."""
    if bootstrap:
        return (
            Markup(
                "Each cell: the estimate [95 % BCa interval] ({} bootstrap replicates over independent "
                "units, widened for few units), its verdict and, under it, the noise floor's upper bound (hover "
                "for its median and range); the bias where it exceeds half the interval. Full precision, the bias "
                "and the floor's median and range are in the CSV. "
            ).format(bootstrap)
            + LEGEND
            + Markup(
                " <i>not distinguishable</i> under a within-noise verdict: the run's controls separated no known-bad "
                "engine on that distribution, so within noise reads <i>not distinguishable at this resolution</i> "
                "(What this run could detect). <i>pinned by the bin floor</i>: a KL that is no score, shown instead "
                "of its value (hover for it)."
            )
        )
    return Markup("metrics.bootstrap is 0: no intervals, so no value is called separated or within noise.")


def _note(captions: Captions, caption: str, *more) -> Markup:
    """A table's note: its caption, then the non-empty ``more`` in one paragraph."""
    extra = Markup(" ").join(text for text in more if text)  # plain text is escaped, Markup kept
    return captions.html(caption) + (Markup("<p>{}</p>").format(extra) if extra else Markup(""))


def _tica_caveats(evidence: Mapping[str, ProteinEvidence] | None) -> Markup:
    """One sentence per protein whose TICA is not well posed: its TIC columns give no rank."""
    return Markup(" ").join(
        Markup("TIC columns of {}: its TICA is not well posed ({}), so no rank comes from them (Caveats).").format(
            protein, tica_short(found.tica_caveat)
        )
        for protein, found in (evidence or {}).items()
        if found.tica_caveat
    )
