"""The verdict vocabulary of the metric suite and the columns of its W1/KL tables, shared by the metric
stage (``westbench.metrics.tables`` writes the tables) and the report stage (which reads them).

A W1 or KL value is *separated* from the noise floor when its interval's lower bound lies above the
floor's upper bound, *within noise* otherwise, and *undetermined* when the interval or the floor could
not be estimated. A W1/KL table (``results/tables/w1.csv``, ``kl.csv``) has the :data:`KEYS`, one value
column per distribution, then per distribution ``<distribution>_<field>`` for each of :data:`FIELDS`.

Examples
--------
>>> import pandas as pd
>>> table = pd.DataFrame({"protein": ["p"], "engine": ["e"], "weighting": ["we"], "tic0": [0.4],
...                       "tic0_verdict": ["separated"], "tic0_note": [""]})
>>> distributions_of(table), verdict_summary(table)["separated"].tolist()
(['tic0'], [1])
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

DISTRIBUTIONS = ("tic0", "tic1", "tic2", "tic3", "rg", "bonds", "angles", "dihedrals", "tic01")
KEYS = ["protein", "engine", "weighting"]
#: Columns carried per distribution after its value: ``<distribution>_<field>``, in this order.
FIELDS = ("ci_low", "ci_high", "bias", "floor", "floor_low", "floor_high", "verdict", "note")
#: Text fields (the others are numbers).
TEXT_FIELDS = ("verdict", "note")
#: Columns of a W1/KL table that describe the row's engine, not a distribution: ``sanity_failed``, the engine's
#: failed sanity checks (";"-joined, "" when none; :mod:`westbench.geometry.sanity`), the table's last column.
ENGINE_FIELDS = ("sanity_failed",)
#: The verdicts of the metric suite, in the order the summary counts them.
VERDICTS = ("separated", "within noise", "undetermined")


def distributions_of(table: pd.DataFrame) -> list[str]:
    """The distribution columns of a divergence table (its value columns), in order.

    Examples
    --------
    >>> distributions_of(pd.DataFrame(columns=["protein", "engine", "weighting", "sanity_failed", "tic0", "tic0_ci_low",
    ...                                        "rg"]))
    ['tic0', 'rg']
    """
    suffixes = tuple(f"_{part}" for part in FIELDS)
    return [c for c in table.columns if c not in KEYS and c not in ENGINE_FIELDS and not str(c).endswith(suffixes)]


def verdict_summary(table: pd.DataFrame, by: Sequence[str] = tuple(KEYS)) -> pd.DataFrame:
    """How many distributions of each row (or group ``by``) are separated, within noise, or undetermined.

    Values without a verdict (tables from the older tidy format) are counted under ``no verdict``.

    Examples
    --------
    >>> table = pd.DataFrame({"protein": ["p", "p"], "engine": ["a", "b"], "weighting": ["we", "we"],
    ...                       "tic0": [0.5, 0.1], "tic0_verdict": ["separated", "within noise"],
    ...                       "rg": [None, 0.2], "rg_verdict": ["undetermined", "separated"]})
    >>> verdict_summary(table).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'protein': 'p', 'engine': 'a', 'weighting': 'we', 'separated': 1, 'within noise': 0, 'undetermined': 1,
      'no verdict': 0},
     {'protein': 'p', 'engine': 'b', 'weighting': 'we', 'separated': 1, 'within noise': 1, 'undetermined': 0,
      'no verdict': 0}]
    >>> verdict_summary(table, by=["engine"])["separated"].tolist()
    [1, 1]
    """
    by = list(by)
    names = distributions_of(table)
    records = []
    for _, row in table.iterrows():
        counts = dict.fromkeys((*VERDICTS, "no verdict"), 0)
        for name in names:
            verdict = row.get(f"{name}_verdict", "")
            verdict = "" if pd.isna(verdict) else str(verdict)
            if verdict in VERDICTS:
                counts[verdict] += 1
            elif pd.notna(row[name]):
                counts["no verdict"] += 1
        records.append({**{key: row[key] for key in by}, **counts})
    summary = pd.DataFrame(records, columns=[*by, *VERDICTS, "no verdict"])
    if by != [key for key in KEYS if key in table.columns]:
        summary = summary.groupby(by, sort=False, as_index=False).sum()
    return summary.astype({name: int for name in (*VERDICTS, "no verdict")})
