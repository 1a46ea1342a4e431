"""The bottom line's forest plot: per distribution, every engine's W1 with its 95 % interval beside its noise floor.

One panel per distribution; engines top to bottom in their overall order (:mod:`westbench.report.bottom_line`);
a point at the estimate with its interval, coloured by verdict (:data:`COLORS`, the report's verdict colours);
a grey bar from 0 to the noise floor's upper bound at that engine's sample size (an interval wholly right of
it is *separated*); the engine's rank on that distribution beside its interval ("=1" for a tie).

Examples
--------
>>> import pandas as pd
>>> values = pd.DataFrame({"engine": ["a", "b"], "metric": "W1", "distribution": "tic0", "value": [0.2, 0.9],
...     "low": [0.1, 0.7], "high": [0.3, 1.1], "floor_high": [0.25, 0.25], "verdict": ["within noise", "separated"],
...     "rank": pd.array([1, 2], dtype="Int64")})
>>> png = forest_png(values, ["a", "b"], title="p")
>>> png[:4] == b"\\x89PNG"
True
"""

from __future__ import annotations

import io
import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.presentation.figure_layout import fit_titles
from westbench.report.bottom_line import LABELS, rank_label

#: Verdict colours, the same as the report's marks (html_report's CSS).
COLORS = {"separated": "#b00020", "within noise": "#2e7d32", "undetermined": "#777777", "": "#1f4e99"}
UNITS = {"rg": " (Å)", "bonds": " (Å)", "angles": " (°)", "dihedrals": " (°)"}
COLUMNS = 3


#: Short panel notes for a distribution whose values are left out of the ranking, by the start of the reason
#: (:func:`westbench.report.evidence.exclusion`), first match wins.
PANEL_NOTES = (
    ("the TICA is not well posed", "TICA not well posed: not ranked"),
    ("not distinguishable", "not resolved: not ranked"),
    ("pinned", "pinned by the bin floor"),
)


def panel_note(panel: pd.DataFrame) -> str:
    """The note a panel's title carries when every engine's value there is left out for one reason ("" else).

    Examples
    --------
    >>> panel_note(pd.DataFrame({"excluded": ["the TICA is not well posed (few pairs)"] * 2}))
    ' (TICA not well posed: not ranked)'
    >>> panel_note(pd.DataFrame({"excluded": ["", "not distinguishable at this resolution"]}))
    ''
    """
    reasons = [str(r) for r in panel.get("excluded", pd.Series(dtype=str))]
    for start, note in PANEL_NOTES:
        if reasons and all(r.startswith(start) for r in reasons):
            return f" ({note})"
    return ""


def forest_png(values: pd.DataFrame, engines: Sequence[str], title: str, metric: str = "W1") -> bytes:
    """The forest plot of ``metric`` as PNG bytes (``values``: one protein's rows of
    :func:`westbench.report.bottom_line.distribution_ranks`; ``engines``: top-to-bottom order)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = values[values["metric"] == metric]
    names = list(dict.fromkeys(rows["distribution"]))
    columns = min(COLUMNS, max(1, len(names)))
    lines = math.ceil(max(1, len(names)) / columns)
    height = 0.32 * len(engines) + 1.1
    figure, axes = plt.subplots(
        lines, columns, figsize=(3.7 * columns, height * lines + 0.5), squeeze=False, constrained_layout=True
    )
    y = {engine: i for i, engine in enumerate(reversed(list(engines)))}
    for axis, name in zip(axes.flat, names):
        _panel(
            axis,
            rows[rows["distribution"] == name],
            y,
            axis in axes[:, 0],
            f"{metric} {LABELS.get(name, name)}{UNITS.get(name, '')}",
        )
    for axis in list(axes.flat)[len(names) :]:
        axis.axis("off")
    figure.suptitle(title, fontsize=10)
    fit_titles(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


def _panel(axis, panel: pd.DataFrame, y: Mapping[str, int], first_column: bool, title: str) -> None:
    """One distribution's panel: each engine's point, interval, floor bar and rank; axes and title."""
    ranks = list(panel["rank"])
    for record in panel.to_dict("records"):
        if record["engine"] in y:
            _engine_point(axis, record, y[record["engine"]], ranks)
    axis.set_yticks(list(y.values()), list(y.keys()) if first_column else [], fontsize=8)
    axis.set_ylim(-0.7, len(y) - 0.3)
    reach = [x for x in (*panel["high"], *panel["value"], *panel["floor_high"]) if np.isfinite(x)]
    # room right of the longest bar for its rank label
    axis.set_xlim(0, 1.2 * max(reach) if reach and max(reach) > 0 else 1.0)
    axis.tick_params(axis="x", labelsize=7)
    why = panel_note(panel)
    axis.set_title(f"{title}{why}", fontsize=9)


def _engine_point(axis, record: Mapping, at: int, ranks: list) -> None:
    """One engine's row of a panel: its floor bar, then its estimate with the interval and rank, or not estimable."""
    if np.isfinite(record["floor_high"]):
        axis.barh(at, record["floor_high"], height=0.6, left=0, color="0.88", zorder=0)
    if not np.isfinite(record["value"]):
        axis.text(0, at, " not estimable", va="center", fontsize=7, color=COLORS["undetermined"])
        return
    color = COLORS.get(record["verdict"], COLORS[""])
    low = record["low"] if np.isfinite(record["low"]) else record["value"]
    high = record["high"] if np.isfinite(record["high"]) else record["value"]
    axis.errorbar(
        record["value"],
        at,
        xerr=[[max(record["value"] - low, 0)], [max(high - record["value"], 0)]],
        fmt="o",
        ms=4,
        color=color,
        capsize=2,
        zorder=2,
    )
    axis.annotate(
        rank_label(record["rank"], ranks).replace("not ranked", "–"),
        (high, at),
        xytext=(4, 0),
        textcoords="offset points",
        va="center",
        fontsize=7,
        color="0.3",
    )
