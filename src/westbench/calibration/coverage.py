"""How often the engines' scores agree with their known answers within their noise, and which way they lean.

Read from the study's table (:mod:`westbench.calibration.table_rows`: its ``covers``, ``expected``, ``value`` and
``predicted_at_size`` columns) into ``calibration.json``'s ``interval_coverage`` (:func:`interval_coverage`), which
the report's calibration section and the README's measured block quote.
"""

from __future__ import annotations

import pandas as pd

from westbench.metrics.noise_floor import SEPARATED

__all__ = ["interval_coverage"]


def interval_coverage(table: pd.DataFrame) -> dict:
    """How often an engine's score agrees with its known answer within their noise: the 95 % interval of the score
    minus the answer as a sample of the engine's size shows it (``predicted_at_size``; the ground truth resampled
    once for both) holds 0, and which way the scores lean.

    ``cells``, ``covered``, ``rate``: over the cells whose prediction is resolved (expected *separated*: clear of the
    noise); ``all_cells``: the same over every cell with a known answer, the null's and the cells near the floor
    included (the answer at the engine's size carries the excess a finite sample adds near 0, so these are held to
    it too). About 0.95 when the intervals are honest. ``lean``: over the resolved cells and over all of them, how
    many scores lie above and below the answer at the engine's size (about as many each way when nothing pulls
    them), and how many of the uncovered lie above and below; ``by_metric``: coverage and lean of W1 and KL apart
    (tables with a ``metric`` column).

    Examples
    --------
    >>> table = pd.DataFrame({"covers": [True, True, False, None, False],
    ...                       "expected": ["separated"] * 3 + ["", "either"],
    ...                       "value": [0.5, 0.3, 0.2, 0.1, 0.4], "predicted_at_size": [0.4, 0.4, 0.4, 0.1, 0.3]})
    >>> result = interval_coverage(table)
    >>> result["cells"], result["covered"], result["rate"], result["all_cells"]
    (3, 2, 0.667, {'cells': 4, 'covered': 2, 'rate': 0.5})
    >>> result["lean"]["resolved"]
    {'above': 1, 'below': 2, 'uncovered_above': 0, 'uncovered_below': 1}
    >>> result["lean"]["all_cells"]
    {'above': 2, 'below': 2, 'uncovered_above': 1, 'uncovered_below': 1}
    """
    if "covers" not in table:
        return {"cells": 0, "covered": 0, "rate": None, "all_cells": {"cells": 0, "covered": 0, "rate": None}}

    def rate(rows):
        known = rows["covers"].dropna().astype(bool)
        return {
            "cells": int(len(known)),
            "covered": int(known.sum()),
            "rate": round(float(known.mean()), 3) if len(known) else None,
        }

    def lean(rows):
        rows = rows[rows["covers"].notna()]
        answer = "predicted_at_size" if "predicted_at_size" in rows else "predicted"
        difference = rows["value"].astype(float) - rows[answer].astype(float)
        missed = ~rows["covers"].astype(bool)
        return {
            "above": int((difference > 0).sum()),
            "below": int((difference < 0).sum()),
            "uncovered_above": int((missed & (difference > 0)).sum()),
            "uncovered_below": int((missed & (difference < 0)).sum()),
        }

    resolved = table[table["expected"].astype(str) == SEPARATED]
    result = {**rate(resolved), "all_cells": rate(table)}
    if "value" in table and ("predicted_at_size" in table or "predicted" in table):
        result["lean"] = {"resolved": lean(resolved), "all_cells": lean(table)}
        if "metric" in table:  # W1 and KL apart: their estimators carry different excess
            result["by_metric"] = {
                metric: {"resolved": rate(resolved[resolved["metric"] == metric]), "all_cells": rate(rows)}
                | {"lean": lean(rows)}
                for metric, rows in table.groupby("metric", sort=True)
            }
    return result
