"""The six capabilities, the shared rubric and a task's opportunity matrix (``tasks/<task>/process.toml``).

The shared rubric (``rubric.toml`` beside this module) names FrontierChallenge's six capabilities of a
trajectory (:data:`CAPABILITIES`) and the items every task shares, each with three anchors (0, 1, 2). A task's
``process.toml`` is its row of the opportunity matrix and its own items::

    files = ["summary.json"]          # deliverables shown to the judge (default: rubric.toml's files)

    [opportunities]                   # the capabilities this task gives an opportunity for, each with why
    coherence = "summary.json's numbers must follow from rg.csv's rows"
    evidence_fidelity = "..."

    [[items]]                         # task-specific items, each of a capability listed above
    id = "weights-used"
    capability = "coherence"
    question = "..."
    anchors = ["0: ...", "1: ...", "2: ..."]

A capability not under ``[opportunities]`` has no opportunity in the task: its items are not asked and it is
excluded from the task's scorecard, never scored 0. Every problem is a :class:`ProcessError` naming the file
and the fix.

Examples
--------
>>> shared = shared_rubric()
>>> list(shared.capabilities) == list(CAPABILITIES), len(shared.items)
(True, 6)
>>> import tempfile
>>> task = Path(tempfile.mkdtemp())
>>> _ = (task / "process.toml").write_text('[opportunities]\\nrepair = "grompp fails until fixed"\\n'
...     '[[items]]\\nid = "errors-read"\\ncapability = "repair"\\nquestion = "Read the errors?"\\n'
...     'anchors = ["no", "some", "all"]\\n')
>>> matrix = task_process(task)
>>> matrix.covered, [item.id for item in matrix.items(shared)]
(('repair',), ['failures-repaired-and-rechecked', 'errors-read'])
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from westbench.errors import WestbenchError

SHARED_RUBRIC = Path(__file__).with_name("rubric.toml")
PROCESS_FILE = "process.toml"
#: FrontierChallenge's six capabilities, in the order every table shows them (the shared rubric must name these).
CAPABILITIES = ("coherence", "evidence_fidelity", "alternatives", "scope_failure", "tool_state", "repair")
ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class ProcessError(WestbenchError):
    """A process rubric or opportunity matrix that cannot be used."""


@dataclass(frozen=True)
class Item:
    """One 0/1/2-anchored item of a capability, shared or task-specific (``source``)."""

    id: str
    capability: str
    question: str
    anchors: tuple[str, str, str]
    source: str = "shared"

    def criterion(self, capabilities: Mapping[str, Mapping]) -> dict:
        """The item as the judge's criterion (kind ``anchored``): the capability, the question and its anchors.

        >>> item = Item("i", "repair", "Fixed?", ("no", "partly", "yes"))
        >>> print(item.criterion({"repair": {"title": "repair under verification", "description": "d"}})["question"])
        Capability: repair under verification (d)
        Item: Fixed?
        0 = no
        1 = partly
        2 = yes
        Answer with the anchor (0, 1 or 2) that fits the evidence best.
        """
        capability = capabilities[self.capability]
        lines = [
            f"Capability: {capability['title']} ({capability['description']})",
            f"Item: {self.question}",
            *(f"{score} = {anchor}" for score, anchor in enumerate(self.anchors)),
            "Answer with the anchor (0, 1 or 2) that fits the evidence best.",
        ]
        return {"id": self.id, "type": "anchored", "question": "\n".join(lines), "capability": self.capability}


@dataclass(frozen=True)
class SharedRubric:
    """The capabilities (key: title, description) and the shared items."""

    capabilities: dict
    items: tuple[Item, ...]
    version: int = 1


@dataclass(frozen=True)
class TaskProcess:
    """A task's opportunity matrix row (``opportunities``: capability to why) and its own items."""

    opportunities: dict
    task_items: tuple[Item, ...] = ()
    files: tuple[str, ...] | None = None
    path: Path | None = field(default=None, compare=False)

    @property
    def covered(self) -> tuple[str, ...]:
        """The capabilities with an opportunity, in :data:`CAPABILITIES` order."""
        return tuple(key for key in CAPABILITIES if key in self.opportunities)

    @property
    def coverage(self) -> float:
        """The share of the six capabilities with an opportunity."""
        return len(self.covered) / len(CAPABILITIES)

    def items(self, shared: SharedRubric) -> list[Item]:
        """Every item asked in this task: the shared items of covered capabilities, then the task's own."""
        return [item for item in shared.items if item.capability in self.opportunities] + list(self.task_items)


def _items(entries, where: Path, source: str) -> tuple[Item, ...]:
    items, seen = [], set()
    for entry in entries or []:
        if not isinstance(entry, dict):
            raise ProcessError(f"{where}: every [[items]] is a table with id, capability, question and anchors")
        item_id, capability = entry.get("id"), entry.get("capability")
        anchors = entry.get("anchors")
        if not isinstance(item_id, str) or not ID.fullmatch(item_id):
            raise ProcessError(f"{where}: item id {item_id!r} must be lowercase letters, digits and '-'")
        if item_id in seen:
            raise ProcessError(f"{where}: item id {item_id!r} is used twice; give each item its own id")
        seen.add(item_id)
        if capability not in CAPABILITIES:
            raise ProcessError(
                f"{where}: item {item_id!r} names capability {capability!r}; use one of {', '.join(CAPABILITIES)}"
            )
        if not isinstance(entry.get("question"), str) or not entry["question"].strip():
            raise ProcessError(f"{where}: item {item_id!r} needs a question")
        if not (
            isinstance(anchors, list) and len(anchors) == 3 and all(isinstance(a, str) and a.strip() for a in anchors)
        ):
            raise ProcessError(f"{where}: item {item_id!r} needs anchors = [three texts], for the scores 0, 1 and 2")
        unknown = set(entry) - {"id", "capability", "question", "anchors"}
        if unknown:
            raise ProcessError(f"{where}: item {item_id!r} has unknown keys {sorted(unknown)}")
        items.append(Item(item_id, capability, entry["question"].strip(), tuple(a.strip() for a in anchors), source))
    return tuple(items)


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(Path(path).read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProcessError(f"{path}: not valid TOML ({exc})") from None


def shared_rubric(path: str | Path = SHARED_RUBRIC) -> SharedRubric:
    """The shared rubric: its capabilities must be exactly :data:`CAPABILITIES`, each with a shared item."""
    path = Path(path)
    data = _read(path)
    capabilities = data.get("capabilities") or {}
    if list(capabilities) != list(CAPABILITIES):
        raise ProcessError(f"{path}: [capabilities] must be {', '.join(CAPABILITIES)} in that order")
    for key, value in capabilities.items():
        if not isinstance(value, dict) or not value.get("title") or not value.get("description"):
            raise ProcessError(f"{path}: [capabilities.{key}] needs a title and a description")
    items = _items(data.get("items"), path, "shared")
    lacking = [key for key in CAPABILITIES if not any(item.capability == key for item in items)]
    if lacking:
        raise ProcessError(f"{path}: capabilities without a shared item: {', '.join(lacking)}")
    return SharedRubric(dict(capabilities), items, int(data.get("version", 1)))


def task_process(task_dir: str | Path, shared: SharedRubric | None = None) -> TaskProcess | None:
    """A task's ``process.toml`` (module docstring), or None when the task has none (it is then not assessed).

    Raises :class:`ProcessError` for an unknown capability, an item of a capability without an opportunity,
    an item id the shared rubric uses, no opportunity at all, or an opportunity without its reason.
    """
    path = Path(task_dir) / PROCESS_FILE
    if not path.is_file():
        return None
    data = _read(path)
    unknown = set(data) - {"files", "opportunities", "items"}
    if unknown:
        raise ProcessError(f"{path}: unknown keys {sorted(unknown)} (files, [opportunities], [[items]])")
    opportunities = data.get("opportunities")
    if not isinstance(opportunities, dict) or not opportunities:
        raise ProcessError(f"{path}: [opportunities] must name at least one of {', '.join(CAPABILITIES)}, each = why")
    for key, why in opportunities.items():
        if key not in CAPABILITIES:
            raise ProcessError(f"{path}: [opportunities] names {key!r}; use one of {', '.join(CAPABILITIES)}")
        if not isinstance(why, str) or not why.strip():
            raise ProcessError(f"{path}: [opportunities] {key} must say why the task gives that opportunity")
    items = _items(data.get("items"), path, "task")
    shared_ids = {item.id for item in (shared or shared_rubric()).items}
    for item in items:
        if item.capability not in opportunities:
            raise ProcessError(
                f"{path}: item {item.id!r} is of {item.capability!r}, which has no opportunity here; "
                f"add it to [opportunities] or move the item"
            )
        if item.id in shared_ids:
            raise ProcessError(f"{path}: item id {item.id!r} is a shared item's; give the task's item its own id")
    files = data.get("files")
    if files is not None and not (isinstance(files, list) and all(isinstance(f, str) and f for f in files)):
        raise ProcessError(f"{path}: files must be a list of deliverable names")
    return TaskProcess(
        {key: opportunities[key].strip() for key in CAPABILITIES if key in opportunities},
        items,
        tuple(files) if files is not None else None,
        path,
    )
