"""CSV and TSV tables: per numeric column unit swaps and a constant (reals) or index shifts (integers); the last or the
first row cut."""

from __future__ import annotations

import csv
import io
import math

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.numeric import INT_OPERATORS, float_operators, format_like, plausible_constant


def _number(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def csv_mutants(relative: str, text: str) -> list[Mutant]:
    """Per numeric column: unit swaps and a constant (reals), index shifts (integers); the last row dropped, and the
    first (an off-by-one selection: a per-frame table that skips frame 0)."""
    table = _read_table(relative, text)
    if table is None:
        return []
    delimiter, comments, header, data = table

    def write(new_rows) -> str:
        return _write_table(delimiter, comments, header, new_rows)

    mutants = []
    for column, name in enumerate(header):
        values = [_number(r[column]) if column < len(r) else None for r in data]
        if any(v is None for v in values):
            continue
        kind, operators = _column_operators(name, values)
        for operator, function in operators:
            new_rows = _mutated_rows(data, values, column, kind, function)
            if new_rows == [list(r) for r in data]:
                continue
            mutants.append(
                Mutant(
                    id=f"{operator}:{relative}:{name}",
                    operator=operator,
                    file=relative,
                    description=f"{OPERATORS[operator]}: {relative} column {name}",
                    level="output",
                    changes={relative: write(new_rows)},
                )
            )
    if len(data) > 1:
        for operator, rows in (("drop-row", data[:-1]), ("drop-first-row", data[1:])):
            mutants.append(
                Mutant(
                    id=f"{operator}:{relative}",
                    operator=operator,
                    file=relative,
                    description=f"{OPERATORS[operator]}: {relative}",
                    level="output",
                    changes={relative: write(rows)},
                )
            )
    return mutants


def _read_table(relative: str, text: str) -> tuple[str, list[str], list[str], list[list[str]]] | None:
    """The delimiter, comment lines, header and non-empty data rows; None for no header or no data."""
    delimiter = "\t" if relative.endswith(".tsv") else ","
    lines = text.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#")]
    rows = list(csv.reader(body, delimiter=delimiter))
    if len(rows) < 2 or not rows[0] or any(_number(cell) is not None for cell in rows[0]):
        return None
    header, data = rows[0], [r for r in rows[1:] if r]
    if not data:
        return None
    return delimiter, comments, header, data


def _write_table(delimiter: str, comments: list[str], header: list[str], rows) -> str:
    """The table written back: comment lines, header, ``rows``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return "".join(line + "\n" for line in comments) + buffer.getvalue()


def _column_operators(name: str, values: list) -> tuple[str, list]:
    """A numeric column's kind (int or float) and its operators (index shifts; unit swaps and a constant)."""
    kind = "int" if all(isinstance(v, int) for v in values) else "float"
    if kind == "int":
        return kind, list(INT_OPERATORS)
    mean = sum(values) / len(values)
    constant = plausible_constant(mean) if mean else None
    operators = [(op, f) for op, f in float_operators(name) if op != "constant"]
    if constant is not None:
        operators.append(("constant", lambda v, c=constant: c))
    return kind, operators


def _mutated_rows(data: list[list[str]], values: list, column: int, kind: str, function) -> list[list[str]]:
    """The data rows with ``column`` replaced by ``function`` of its values, written like the originals."""
    new_rows = []
    for row, value in zip(data, values):
        row = list(row)
        new = function(value)
        row[column] = str(int(new)) if kind == "int" else format_like(new, row[column])
        new_rows.append(row)
    return new_rows
