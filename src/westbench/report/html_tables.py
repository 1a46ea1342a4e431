"""The one HTML table renderer every section of the report uses (:func:`html_table`), with the name the report
gives each engine (:func:`engine_name`) and the split of a wide table into page-wide parts (:func:`split_columns`)."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from westbench.engines.kinds import GROUNDTRUTH
from westbench.report.cells import value_cell

#: The one name the report gives each engine id where the id alone would not say what it is.
ENGINE_NAMES = {GROUNDTRUTH: "ground truth"}
#: Value columns per table beside the key columns: a divergence cell is about 150 px wide, so that a split
#: table fits the page's 1,200 px with its keys (tests/workflow/test_report_browser.py measures it).
COLUMNS_PER_TABLE = 5


def engine_name(engine: str) -> str:
    """The name the report shows for an engine id (the id itself but for :data:`ENGINE_NAMES`).

    Examples
    --------
    >>> engine_name("groundtruth"), engine_name("implicit")
    ('ground truth', 'implicit')
    """
    return ENGINE_NAMES.get(engine, engine)


def split_columns(frame: pd.DataFrame, keys: list[str], per_table: int = COLUMNS_PER_TABLE) -> list[pd.DataFrame]:
    """``frame`` as tables of its ``keys`` and at most ``per_table`` of its other columns each (one table when it
    has no more), so that each fits the page.

    Examples
    --------
    >>> frame = pd.DataFrame({"engine": ["a"], **{f"c{i}": [i] for i in range(7)}})
    >>> [list(part.columns) for part in split_columns(frame, ["engine"], 4)]
    [['engine', 'c0', 'c1', 'c2', 'c3'], ['engine', 'c4', 'c5', 'c6']]
    """
    values = [c for c in frame.columns if c not in keys]
    if len(values) <= per_table:
        return [frame]
    parts = -(-len(values) // per_table)
    size = -(-len(values) // parts)  # balanced: 9 columns in 5 and 4, not 5 and 4 by chance
    return [frame[[*keys, *values[i : i + size]]] for i in range(0, len(values), size)]


def html_table(frame: pd.DataFrame, digits: int = 4) -> Markup:
    """A DataFrame as an HTML table: text escaped, :class:`~markupsafe.Markup` cells kept as they are (the
    formatted divergences), numbers to ``digits`` significant digits, missing values as empty cells; an
    ``engine`` column shows each engine by its one name (:func:`engine_name`).

    Examples
    --------
    >>> html = html_table(pd.DataFrame({"a": ["<b>"], "x": [0.123456], "n": [None]}))
    >>> "<td>&lt;b&gt;</td><td>0.1235</td><td></td>" in html, "<th>a</th><th>x</th><th>n</th>" in html
    (True, True)
    >>> "<td>ground truth</td>" in html_table(pd.DataFrame({"engine": ["groundtruth"]}))
    True
    """
    if "engine" in frame.columns:
        frame = frame.assign(engine=[v if isinstance(v, Markup) else engine_name(v) for v in frame["engine"]])
    head = Markup("").join(Markup("<th>{}</th>").format(column) for column in frame.columns)
    rows = Markup("").join(
        Markup("<tr>{}</tr>\n").format(
            Markup("").join(
                Markup("<td>{}</td>").format(value if isinstance(value, Markup) else value_cell(value, digits=digits))
                for value in row
            )
        )
        for row in frame.itertuples(index=False, name=None)
    )
    return Markup("<table>\n<thead><tr>{}</tr></thead>\n<tbody>\n{}</tbody>\n</table>").format(head, rows)
