"""The report's bottom line: per protein, which engines the data rank, how sure that is, and what limits it.

Everything here is read from the W1 and KL tables of rule ``metric_tables`` (``results/tables/w1.csv``,
``kl.csv``: per distribution its value, 95 % interval, the noise floor's upper bound, the verdict and its
note; :mod:`westbench.presentation.verdicts` owns the vocabulary) and from each protein's count of ground-truth runs,
so it keeps working when the metric suite adds columns or calls more values *undetermined*.

The ranking rule (:data:`RULE`), one test: on one divergence of one distribution, engine A ranks above
engine B only where both verdicts are determined (*separated* or *within noise*) and A's interval lies
wholly below B's. Otherwise they tie. An undetermined value is never ranked. An engine's rank there is one
plus the number of engines ranked above it, so tied engines share a rank. Overall, A ranks above B when A
is above B on at least one divergence and below it on none; an engine's overall rank is one plus the
number of engines above it overall.

Examples
--------
>>> table = pd.DataFrame({"protein": ["p"] * 3, "engine": ["a", "b", "c"], "weighting": ["we"] * 3,
...     "tic0": [0.2, 0.9, 0.5], "tic0_ci_low": [0.1, 0.7, 0.15], "tic0_ci_high": [0.3, 1.1, 0.8],
...     "tic0_floor_high": [0.25, 0.25, 0.25], "tic0_verdict": ["within noise", "separated", "separated"],
...     "tic0_note": ["", "", ""]})
>>> values = long_form(table, "W1")
>>> ranked = distribution_ranks(values)
>>> ranked.set_index("engine")["rank"].to_dict()  # a below b; c overlaps both: a tie with each
{'a': 1, 'b': 2, 'c': 1}
>>> overall_ranks(ranked).set_index("engine")["rank"].to_dict()
{'a': 1, 'c': 1, 'b': 2}
>>> standing_sentence(overall_ranks(ranked))
'Overall: a and c share rank 1; b ranks 2 (below a).'
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import pandas as pd

from westbench.engines.kinds import GROUNDTRUTH
from westbench.presentation.verdicts import KEYS, VERDICTS, distributions_of

SEPARATED, WITHIN_NOISE, UNDETERMINED = VERDICTS
#: The verdicts that rank: both engines of a pair must have one of these.
DETERMINED = (SEPARATED, WITHIN_NOISE)
#: The ranking rule as the report states it.
RULE = (
    "Ranking rule: on one divergence (W1 or KL) of one distribution, engine A ranks above engine B only where "
    "both verdicts are determined (separated or within noise) and A's 95 % interval lies wholly below B's; "
    "otherwise they tie, and an undetermined value is not ranked. Overall, A ranks above B when it ranks above "
    "B on at least one divergence and below it on none; tied engines share a rank. Each comparison is one 95 % "
    "interval against another, one divergence at a time, with no correction for how many are compared: among many "
    "divergences a single one can separate two engines by chance, which is why the overall rank also asks that no "
    "divergence point the other way. Values the run cannot read never rank: those of an engine that failed a sanity "
    "check, TICs of a TICA that is not well posed, distributions its controls show it cannot resolve, and KL values "
    "pinned by the bin floor (westbench.report.evidence); a CG model that failed to learn is named with that flag."
)
#: Columns of the long form (:func:`long_form`).
LONG_COLUMNS = [
    "protein",
    "engine",
    "weighting",
    "metric",
    "distribution",
    "value",
    "low",
    "high",
    "floor_high",
    "verdict",
    "note",
    "excluded",  # why the value may not rank ("" when it may): westbench.report.evidence.exclusion
]


def long_form(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One row per (protein, engine, weighting, distribution) of a W1/KL table, ``metric`` its label.

    Missing fields are NaN (numbers) or "" (verdict, note); a table of the older format (no verdicts) gives
    every verdict "", which never ranks.
    """
    rows = []
    names = distributions_of(table)
    for record in table.to_dict("records"):
        for name in names:
            rows.append(
                {
                    **{key: record.get(key, "") for key in KEYS},
                    "metric": metric,
                    "distribution": name,
                    "value": _number(record.get(name)),
                    "low": _number(record.get(f"{name}_ci_low")),
                    "high": _number(record.get(f"{name}_ci_high")),
                    "floor_high": _number(record.get(f"{name}_floor_high")),
                    "verdict": _text(record.get(f"{name}_verdict")),
                    "note": _text(record.get(f"{name}_note")),
                    "excluded": "",
                }
            )
    return pd.DataFrame(rows, columns=LONG_COLUMNS)


def _number(value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def primary_rows(values: pd.DataFrame, weightings: Sequence[str]) -> pd.DataFrame:
    """Per protein and engine, the rows of its first weighting in ``weightings`` (then any other it has): the
    headline compares each engine once.

    Examples
    --------
    >>> values = pd.DataFrame({"protein": ["p"] * 3, "engine": ["a", "a", "b"], "weighting": ["msm", "we", "counts"]})
    >>> primary_rows(values, ["we", "msm"])[["engine", "weighting"]].values.tolist()
    [['a', 'we'], ['b', 'counts']]
    """
    order = {name: i for i, name in enumerate(weightings)}
    keep = []
    for _, group in values.groupby(["protein", "engine"], sort=False):
        present = sorted(group["weighting"].unique(), key=lambda w: (order.get(w, len(order)), str(w)))
        keep.append(group[group["weighting"] == present[0]])
    return pd.concat(keep, ignore_index=True) if keep else values.iloc[0:0]


def is_ranked(row) -> bool:
    """Whether a value can rank: a determined verdict, an estimate and both interval bounds, and nothing that
    excludes it (``excluded``: :func:`westbench.report.evidence.exclusion`)."""
    if row.get("excluded"):
        return False
    return row["verdict"] in DETERMINED and not any(math.isnan(row[c]) for c in ("value", "low", "high"))


def above(a: Mapping, b: Mapping) -> bool:
    """Whether ``a`` ranks above ``b`` on one divergence (:data:`RULE`).

    Examples
    --------
    >>> a = {"value": 0.2, "low": 0.1, "high": 0.3, "verdict": "within noise"}
    >>> b = {"value": 0.9, "low": 0.7, "high": 1.1, "verdict": "separated"}
    >>> above(a, b), above(b, a), above(a, {**b, "verdict": "undetermined"}), above(a, {**b, "low": 0.25})
    (True, False, False, False)
    """
    return is_ranked(a) and is_ranked(b) and a["high"] < b["low"]


def distribution_ranks(values: pd.DataFrame) -> pd.DataFrame:
    """``values`` (:func:`long_form`, one row per engine and divergence) with ``rank`` (Int64, NA where not
    ranked) per (protein, metric, distribution): one plus the number of engines ranked above."""
    values = values.copy()
    ranks = pd.Series(pd.NA, index=values.index, dtype="Int64")
    for _, group in values.groupby(["protein", "metric", "distribution"], sort=False):
        records = group.to_dict("records")
        for index, record in zip(group.index, records):
            if is_ranked(record):
                ranks[index] = 1 + sum(above(other, record) for other in records)
    values["rank"] = ranks
    return values


def overall_ranks(ranked: pd.DataFrame) -> pd.DataFrame:
    """Per protein and engine: the overall rank (:data:`RULE`), the engines it ranks above and below, and on how
    many divergences it is ranked. An engine ranked on no divergence gets no rank (NA).

    Rows are sorted by protein, then rank (unranked last), then engine order of the tables.
    """
    rows = []
    for protein, group in ranked.groupby("protein", sort=False):
        engines = list(dict.fromkeys(group["engine"]))
        by_engine = {e: group[group["engine"] == e].set_index(["metric", "distribution"]) for e in engines}
        wins = {e: set() for e in engines}  # engines e ranks above on some divergence
        for a in engines:
            for b in engines:
                if a == b:
                    continue
                shared = by_engine[a].index.intersection(by_engine[b].index)
                if any(above(by_engine[a].loc[key], by_engine[b].loc[key]) for key in shared):
                    wins[a].add(b)
        for e in engines:
            ranked_on = int(by_engine[e]["rank"].notna().sum())
            beaten_by = [b for b in engines if e in wins[b] and b not in wins[e]]
            better_than = [b for b in engines if b in wins[e] and e not in wins[b]]
            rows.append(
                {
                    "protein": protein,
                    "engine": e,
                    "rank": pd.NA if ranked_on == 0 else 1 + len(beaten_by),
                    "ranked_on": ranked_on,
                    "divergences": len(by_engine[e]),
                    "above": better_than,
                    "below": beaten_by,
                }
            )
    table = pd.DataFrame(rows, columns=["protein", "engine", "rank", "ranked_on", "divergences", "above", "below"])
    table["rank"] = table["rank"].astype("Int64")
    order = table.assign(_unranked=table["rank"].isna(), _rank=table["rank"].fillna(0), _i=range(len(table)))
    order = order.sort_values(["_unranked", "_rank", "_i"], kind="stable")
    protein_order = {p: i for i, p in enumerate(dict.fromkeys(table["protein"]))}
    order = order.sort_values("protein", key=lambda s: s.map(protein_order), kind="stable")
    return table.loc[order.index].reset_index(drop=True)


def rank_label(rank, ranks: Sequence) -> str:
    """A rank as the report writes it: "1", "=2" when shared, "not ranked" when NA.

    Examples
    --------
    >>> [rank_label(r, [1, 2, 2, pd.NA]) for r in (1, 2, pd.NA)]
    ['1', '=2', 'not ranked']
    """
    if pd.isna(rank):
        return "not ranked"
    shared = sum(1 for r in ranks if not pd.isna(r) and r == rank) > 1
    return f"={rank}" if shared else f"{rank}"


def standing_sentence(overall: pd.DataFrame, flags: Mapping[str, str] | None = None) -> str:
    """The protein's ranking in words (``overall``: one protein's rows of :func:`overall_ranks`); an engine with a
    flag (``flags``: a CG model that failed to learn) is named with it, in the same sentence, wherever it appears.

    Examples
    --------
    >>> overall = pd.DataFrame({"engine": ["a", "b", "c"], "rank": pd.array([1, 1, pd.NA], dtype="Int64"),
    ...                         "above": [[], [], []], "below": [[], [], []]})
    >>> standing_sentence(overall)
    'The data separate no two engines: a and b tie (this run cannot rank them); not ranked (no determined value): c.'
    >>> standing_sentence(overall, {"b": "failed to learn"})  # doctest: +ELLIPSIS
    'The data separate no two engines: a and b (failed to learn) tie ...'
    """
    flags = dict(flags or {})

    def _join(names):
        return join([f"{n} ({flags[n]})" if flags.get(n) else n for n in names])

    ranked = overall[overall["rank"].notna()]
    unranked = list(overall.loc[overall["rank"].isna(), "engine"])
    tail = f"; not ranked (no determined value): {_join(unranked)}." if unranked else "."
    if ranked.empty:
        return "No engine has a determined value on any divergence: this run cannot rank them" + (
            f" ({_join(unranked)})." if unranked else "."
        )
    if not any(len(a) for a in ranked["above"]):
        if len(ranked) == 1:
            return f"Only {_join(list(ranked['engine']))} has determined values: nothing to rank it against" + tail
        return (
            f"The data separate no two engines: {_join(list(ranked['engine']))} tie (this run cannot rank them)" + tail
        )
    parts = []
    for rank, group in ranked.groupby("rank", sort=True):
        names = list(group["engine"])
        text = f"{_join(names)} {'share' if len(names) > 1 else 'ranks'} {'rank ' if len(names) > 1 else ''}{rank}"
        below = sorted({b for bs in group["below"] for b in bs}, key=list(overall["engine"]).index)
        if below:
            text += f" (below {_join(below)})"
        parts.append(text)
    return "Overall: " + "; ".join(parts) + tail


def join(names: Sequence[str]) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


LABELS = {"tic0": "TIC 0", "tic1": "TIC 1", "tic2": "TIC 2", "tic3": "TIC 3", "rg": "Rg", "tic01": "TIC 0/1"}


def label(metric: str, distribution: str) -> str:
    """``W1(TIC 0)``: a divergence's name in sentences."""
    return f"{metric}({LABELS.get(distribution, distribution)})"


def model_rows(values: pd.DataFrame) -> pd.DataFrame:
    """The engines that are ranked: every engine but the ground truth scored against itself."""
    return values[values["engine"] != GROUNDTRUTH]
