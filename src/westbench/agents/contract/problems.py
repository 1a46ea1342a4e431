"""Where a contract disagrees with its task: a quote or a number the instruction does not state, a check the verifier
does not have, a mutation matching no file; the check names a verifier gives, read from its source."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

from westbench.agents.contract.loading import CONTRACT, Item, load_contract
from westbench.agents.mutation import contract_target_files, key_pattern

# A number as the instruction states it: not part of a word, a file name or a version (amber14, we_export.h5).
# (Nor an exponent of a unit, mol^-1.)
_NUMBER = re.compile(r"(?<![\w.^])(?<!\^[-\u2212])[-+\u2212]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w]|\.\d)")


#: Kinds of requirement a number decides. Each states its resolution in ``tolerance``: the window, why it is that
#: wide, and the smallest plausible mistake it must catch (one frame, a neighbouring value, a unit), which must lie
#: outside it (issue 52: windows of one frame, or a liquid's density range, passed real mistakes).
NUMERIC = ("computed", "parameter", "plausibility", "convergence", "unit")
SMALLEST = "smallest mistake"


def normalize(text: str) -> str:
    """Instruction text as a quote is compared with it: no markdown emphasis or code marks, single spaces.

    >>> normalize("a **2 fs**  `dt`\\n value"), normalize("Steps:\\n1. Pick\\n2. Write")
    ('a 2 fs dt value', 'Steps: Pick Write')
    """
    text = re.sub(r"(?m)^[ \t]*\d+\.[ \t]+", "", text)  # ordered-list markers are not stated numbers
    return re.sub(r"\s+", " ", text.replace("**", "").replace("`", "").replace("\u2212", "-")).strip()


def numbers_in(text: str) -> list[float]:
    """The numbers a passage states (not those inside words, file names or versions).

    >>> numbers_in("2.5 nm box, amber14-all.xml, 0-based, we_export.h5, 1e-4 nm, -0.5, kJ mol^-1, 285-315 K")
    [2.5, 0.0, 0.0001, -0.5, 285.0, 315.0]
    """
    return [float(match.replace("\u2212", "-")) for match in _NUMBER.findall(text)]


def _number_in(value: float, numbers: list[float]) -> bool:
    return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-12) for n in numbers)


def check_names(verify_py: str | Path) -> set[str]:
    """The names a verifier gives its checks: the first argument of every ``.check(...)``/``.require(...)`` call
    (a literal, or an f-string as written) and every string of a module-level tuple or list (a ``NAMES`` table) or
    of a literal a ``for`` loop runs over.

    An f-string's name keeps its placeholders' source (``f"{name} passes"`` gives ``"{name} passes"``).

    >>> import tempfile
    >>> path = tempfile.mkstemp(suffix=".py")[1]
    >>> _ = open(path, "w").write('NAMES = ("a", "b")\\nn = "x"\\nchecks.require(f"{n} has {len(a):d} rows", True)\\n')
    >>> sorted(check_names(path))
    ['a', 'b', '{n} has {len(a):d} rows']
    """
    tree = ast.parse(Path(verify_py).read_text())

    def template(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if not isinstance(node, ast.JoinedStr):
            return None
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                conversion = {-1: "", 115: "!s", 114: "!r", 97: "!a"}[value.conversion]
                spec = ":" + template(value.format_spec) if value.format_spec is not None else ""
                parts.append("{" + ast.unparse(value.value) + conversion + spec + "}")
        return "".join(parts)

    names = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("check", "require")
            and node.args
        ):
            name = template(node.args[0])
            if name is not None:
                names.add(name)
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.Tuple, ast.List)):
            names.update(n for n in map(template, node.value.elts) if n is not None)
    for node in ast.walk(tree):  # for key, tolerance, name in (("rmsd", 0.01, "RMSD (0.01 A)"), ...): check(name)
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)):
            names.update(n for n in map(template, ast.walk(node.iter)) if n is not None)
    return names


def names_check(name: str, names) -> bool:
    """Whether ``name`` is one of a verifier's check ``names``, an f-string's placeholders standing for any text.

    >>> names_check("MBAR error within 25 %", {"{method} error within 25 %"}), names_check("x", {"y"})
    (True, False)
    """
    if name in names:
        return True
    for template in names:
        if "{" not in template:
            continue
        parts = re.split(r"\{[^{}]*\}", template)
        if re.fullmatch(".+?".join(map(re.escape, parts)), name, re.S):
            return True
    return False


def contract_problems(task_path: str | Path) -> list[str]:
    """Where a task's contract and its instruction or verifier disagree; empty when every item is stated and checked.

    * every item's quote is a passage of instruction.md, and its value and range appear in the quote;
    * every check an item names is a check name of tests/verify.py;
    * every number instruction.md states lies in an item's quote or a descriptive quote;
    * a mutation's ``key``/``pattern``/``remove`` matches a file it edits;
    * every numeric requirement (:data:`NUMERIC`, whether or not its quote states the number: a recomputed value
      or an error within 25 % is decided by a window too) states its resolution (:data:`SMALLEST`).
    """
    task_path = Path(task_path)
    contract = load_contract(task_path)
    if contract is None:
        return [f"{task_path / CONTRACT} is missing: list every requirement of instruction.md with its check"]
    instruction = normalize((task_path / "instruction.md").read_text())
    verify = task_path / "tests" / "verify.py"
    names = check_names(verify) if verify.is_file() else set()
    problems = []
    covered = []
    for quote in contract.descriptive:
        if normalize(quote) not in instruction:
            problems.append(f"descriptive quote not in instruction.md: {quote!r}")
        covered.append(normalize(quote))
    for item in contract.items:
        quote = normalize(item.quote)
        covered.append(quote)
        if quote not in instruction:
            problems.append(f"item {item.id}: its quote is not in instruction.md: {item.quote!r}")
        stated = numbers_in(quote)
        for number in item.stated_numbers():
            if not _number_in(number, stated):
                problems.append(f"item {item.id}: {number:g} is not stated in its quote {item.quote!r}")
        for check in item.checks:
            if not names_check(check, names):
                problems.append(f"item {item.id}: no check named {check!r} in tests/verify.py")
        if item.kind in NUMERIC and SMALLEST not in (item.tolerance or "").lower():
            problems.append(
                f"item {item.id} ({item.kind}): a requirement decided by a number or a read-back setting without its "
                "resolution: add tolerance = "
                f'"<window>: <why>; {SMALLEST} <the smallest plausible mistake and its size>"'
            )
        if item.mutate:
            problems += _mutation_problems(task_path, item)
    spans = [
        (match.start(), match.start() + len(quote))
        for quote in covered
        if quote
        for match in re.finditer(re.escape(quote), instruction)
    ]
    for match in _NUMBER.finditer(instruction):
        if not any(start <= match.start() and match.end() <= end for start, end in spans):
            context = instruction[max(0, match.start() - 40) : match.end() + 40]
            problems.append(
                f"instruction.md states {match.group()} in '...{context}...' but no item or descriptive quote covers it"
            )
    return problems


def _mutation_problems(task_path: Path, item: Item) -> list[str]:
    mutate = item.mutate
    files = contract_target_files(task_path, item)
    texts = {str(p.relative_to(task_path)): p.read_text(errors="replace") for p in files}
    problems = []
    pattern = mutate.get("pattern") or (key_pattern(mutate["key"]) if "key" in mutate else None)
    if mutate.get("level") == "output":
        return problems  # matched against the oracle's delivered files, checked when the harness runs
    if pattern and not any(re.search(pattern, text, re.M) for text in texts.values()):
        problems.append(f"item {item.id}: mutate pattern {pattern!r} matches none of {sorted(texts) or 'no files'}")
    if "remove" in mutate and not any(re.search(mutate["remove"], text, re.M) for text in texts.values()):
        problems.append(f"item {item.id}: mutate.remove {mutate['remove']!r} matches none of {sorted(texts)}")
    return problems
