"""``contract.toml`` read and validated into a :class:`Contract`: every error names the file, the item and the fix."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from westbench.agents.mutation.catalogue import LEVELS
from westbench.agents.tasks import TaskError

CONTRACT = "contract.toml"
KINDS = ("file", "parameter", "unit", "plausibility", "convergence", "computed", "decision")
_ITEM_KEYS = {"id", "kind", "quote", "checks", "value", "range", "unit", "tolerance", "mutate", "file"}
_MUTATE_KEYS = {"key", "pattern", "values", "scale", "remove", "files", "level"}
_ID = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass(frozen=True)
class Item:
    """One requirement of a task's contract (see the module docstring)."""

    id: str
    kind: str
    quote: str
    checks: tuple[str, ...]
    value: object = None
    range: tuple[float, float] | None = None
    unit: str | None = None
    tolerance: str | None = None
    file: str | tuple[str, ...] | None = None
    mutate: dict = field(default_factory=dict)

    def files(self) -> list[str]:
        """The delivered files the item names (globs relative to the artifact folder, ``lambda_*/prod.tpr``)."""
        if self.file is None:
            return []
        return [self.file] if isinstance(self.file, str) else list(self.file)

    def stated_numbers(self) -> list[float]:
        """The numbers the item states (its value or range), which must appear in its quote."""
        numbers = list(self.range or ())
        if isinstance(self.value, (int, float)) and not isinstance(self.value, bool):
            numbers.append(self.value)
        return [float(n) for n in numbers]


@dataclass(frozen=True)
class Contract:
    """A task's contract: its items and the descriptive passages of its instruction."""

    path: Path
    items: tuple[Item, ...]
    descriptive: tuple[str, ...] = ()

    def item(self, item_id: str) -> Item:
        return next(item for item in self.items if item.id == item_id)


def _fail(path: Path, message: str):
    raise TaskError(f"{path}: {message}")


def _item(raw, index: int, path: Path) -> Item:
    """One ``[[item]]`` table validated into an :class:`Item` (``index`` from 0); the first error found fails."""
    where = f"item {index + 1}" + (f" ({raw.get('id')})" if isinstance(raw, dict) and raw.get("id") else "")
    if not isinstance(raw, dict):
        _fail(path, f"{where} must be a table ([[item]])")
    checks = _checks(raw, where, path)
    bounds = _bounds(raw.get("range"), where, path)
    file = raw.get("file")
    if file is not None and not (
        isinstance(file, str) or (isinstance(file, list) and file and all(isinstance(f, str) for f in file))
    ):
        _fail(path, f"{where}: file must be a glob or a list of globs of delivered files (relative to /app/output)")
    mutate = raw.get("mutate", {})
    _check_mutate(mutate, raw, bounds, where, path)
    return Item(
        id=raw["id"],
        kind=raw["kind"],
        quote=raw["quote"],
        checks=tuple(checks),
        value=raw.get("value"),
        range=bounds,
        unit=raw.get("unit"),
        tolerance=raw.get("tolerance"),
        file=file if isinstance(file, str) or file is None else tuple(file),
        mutate=dict(mutate),
    )


def _checks(raw: dict, where: str, path: Path) -> list[str]:
    """The item's keys, required keys, id, kind and quote validated; its checks as a list."""
    unknown = set(raw) - _ITEM_KEYS
    if unknown:
        _fail(path, f"{where} has unknown keys {sorted(unknown)}; allowed: {sorted(_ITEM_KEYS)}")
    for key in ("id", "kind", "quote", "checks"):
        if key not in raw:
            _fail(path, f"{where} lacks '{key}'")
    if not isinstance(raw["id"], str) or not _ID.match(raw["id"]):
        _fail(path, f"{where}: id must be letters, digits, '.', '_' or '-', got {raw['id']!r}")
    if raw["kind"] not in KINDS:
        _fail(path, f"{where}: kind must be one of {KINDS}, got {raw['kind']!r}")
    if not isinstance(raw["quote"], str) or not raw["quote"].strip():
        _fail(path, f"{where}: quote must be the passage of instruction.md stating the requirement")
    checks = raw["checks"]
    if isinstance(checks, str):
        checks = [checks]
    if not isinstance(checks, list) or not checks or not all(isinstance(c, str) and c for c in checks):
        _fail(path, f"{where}: checks must name at least one check of tests/verify.py")
    return checks


def _bounds(bounds, where: str, path: Path) -> tuple[float, float] | None:
    """The item's ``range`` as (low, high) floats (None when it has none)."""
    if bounds is None:
        return None
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
        or bounds[0] > bounds[1]
    ):
        _fail(path, f"{where}: range must be [low, high] with low <= high, got {bounds!r}")
    return (float(bounds[0]), float(bounds[1]))


def _check_mutate(mutate, raw: dict, bounds, where: str, path: Path) -> None:
    """Refuse a ``mutate`` table with unknown keys, bad patterns or level, or nothing to derive its values from."""
    if not isinstance(mutate, dict) or set(mutate) - _MUTATE_KEYS:
        _fail(path, f"{where}: mutate must be a table with keys among {sorted(_MUTATE_KEYS)}")
    if "pattern" in mutate:
        try:
            compiled = re.compile(mutate["pattern"], re.M)
        except re.error as exc:
            _fail(path, f"{where}: mutate.pattern is not a regular expression ({exc})")
        if compiled.groups < 1:
            _fail(path, f"{where}: mutate.pattern needs a group (the value to replace)")
    if "remove" in mutate:
        try:
            re.compile(mutate["remove"], re.M)
        except re.error as exc:
            _fail(path, f"{where}: mutate.remove is not a regular expression ({exc})")
    if mutate.get("level", "output") not in LEVELS:
        _fail(path, f"{where}: mutate.level must be one of {LEVELS}")
    if "values" in mutate and not (isinstance(mutate["values"], list) and mutate["values"]):
        _fail(path, f"{where}: mutate.values must be a non-empty list of the values to write")
    numeric_value = isinstance(raw.get("value"), (int, float)) and not isinstance(raw.get("value"), bool)
    if (
        mutate
        and not any(k in mutate for k in ("values", "remove"))
        and not ((bounds or numeric_value) and ("key" in mutate or "pattern" in mutate))
    ):
        _fail(path, f"{where}: mutate needs values, remove, or a value or range to derive out-of-contract values from")


def load_contract(task_path: str | Path) -> Contract | None:
    """The contract of a task folder (None when it has none); :class:`TaskError` names the file and the fix."""
    path = Path(task_path) / CONTRACT
    if not path.is_file():
        return None
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        _fail(path, f"not valid TOML: {exc}")
    unknown = set(raw) - {"item", "descriptive"}
    if unknown:
        _fail(path, f"unknown top-level keys {sorted(unknown)}: write [[item]] tables and a descriptive list")
    items = [_item(entry, i, path) for i, entry in enumerate(raw.get("item", []))]
    if not items:
        _fail(path, "no [[item]]: list every requirement instruction.md states")
    seen = set()
    for item in items:
        if item.id in seen:
            _fail(path, f"item id {item.id!r} appears twice")
        seen.add(item.id)
    descriptive = raw.get("descriptive", [])
    if not isinstance(descriptive, list) or not all(isinstance(d, str) for d in descriptive):
        _fail(path, "descriptive must be a list of quotes of instruction.md")
    return Contract(path=path, items=tuple(items), descriptive=tuple(descriptive))
