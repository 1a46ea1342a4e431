"""JSON deliverables: unit swaps and a constant on every real, index shifts on every integer, every boolean flipped."""

from __future__ import annotations

import json
import math
import re

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.numeric import INT_OPERATORS, float_operators


def _json_fields(data, path=""):
    """(path, getter kind) of every number and boolean leaf; a list of scalars or of objects is one field."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _json_fields(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list) and data:
        if all(isinstance(v, dict) for v in data):
            keys = dict.fromkeys(k for v in data for k in v)
            for key in keys:
                column = [v[key] for v in data if key in v]
                if column and all(isinstance(c, (bool, int, float)) for c in column):
                    yield f"{path}[*].{key}", column  # one field over every object of the list
                else:
                    yield from _json_fields(column, f"{path}[*].{key}")
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in data):
            yield path + "[*]", data
        elif all(isinstance(v, list) for v in data):
            yield from _json_fields([x for v in data for x in v], path + "[*]")
    elif isinstance(data, bool) or isinstance(data, (int, float)):
        yield path, data


def _kind(values) -> str | None:
    values = values if isinstance(values, list) else [values]
    if values and all(isinstance(v, bool) for v in values):
        return "bool"
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    if not all(math.isfinite(v) for v in values):
        return None
    return "int" if all(isinstance(v, int) for v in values) else "float"


def _map_json(data, path: str, function):
    """A copy of ``data`` with ``function`` applied to every leaf the field ``path`` names."""
    parts = re.findall(r"\[\*\]|[^.\[\]]+", path)

    def walk(node, rest):
        if not rest:
            if isinstance(node, list):
                return [walk(v, rest) for v in node]
            return function(node)
        head, tail = rest[0], rest[1:]
        if head == "[*]":
            return [walk(v, tail) for v in node] if isinstance(node, list) else walk(node, tail)
        if isinstance(node, list):  # a list of objects flattened into one field
            return [walk(v, rest) for v in node]
        if isinstance(node, dict) and head in node:
            return {**node, head: walk(node[head], tail)}
        return node

    return walk(data, parts)


def json_mutants(relative: str, text: str) -> list[Mutant]:
    """Unit swaps and constants on every real number, index shifts on every integer, flips of every boolean."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    mutants = []
    seen = set()
    for path, values in _json_fields(data):
        if path in seen:
            continue
        seen.add(path)
        kind = _kind(values)
        name = path.rsplit(".", 1)[-1]
        if kind == "bool":
            operators = [("negate", lambda v: not v)]
        elif kind == "int":
            operators = list(INT_OPERATORS)
        elif kind == "float":
            operators = float_operators(name)
        else:
            continue
        for operator, function in operators:
            changed = []

            def apply(v, function=function, changed=changed):
                if isinstance(v, bool) != (kind == "bool") or not isinstance(v, (int, float)):
                    return v
                new = function(v)
                if new is None or (kind != "bool" and math.isclose(new, v, rel_tol=1e-12, abs_tol=0)):
                    return v
                changed.append(1)
                return (int(new) if kind == "int" else float(new)) if kind != "bool" else new

            mutated = _map_json(data, path, apply)
            if not changed:
                continue
            mutants.append(
                Mutant(
                    id=f"{operator}:{relative}:{path}",
                    operator=operator,
                    file=relative,
                    description=f"{OPERATORS[operator]}: {relative} {path}",
                    level="output",
                    changes={relative: json.dumps(mutated, indent=1) + "\n"},
                )
            )
    return mutants
