"""A task's contract: every requirement its instruction states, each mapped to the verifier check enforcing it.

``tasks/<task>/contract.toml`` sits beside ``instruction.md``. Each ``[[item]]`` is one requirement:

* ``id``: unique in the task (letters, digits, ``.``, ``_``, ``-``);
* ``kind``: one of :data:`KINDS`: a deliverable ``file``, a run ``parameter`` (with its allowed value or
  range), a ``unit``, a ``plausibility`` bound, a ``convergence`` criterion, a number that must be
  ``computed`` (recomputed by the verifier, never taken on trust) or a ``decision`` (refuse, diagnose);
* ``quote``: the passage of ``instruction.md`` that states it (whitespace, backticks and ``**`` ignored);
* ``checks``: the names of the verifier checks (``checks.check(name)``/``checks.require(name, ...)`` in
  ``tests/verify.py``; an f-string's name as written, ``"{name} passes gmx check"``, or as it reads for one
  value, ``"em.tpr passes gmx check"``) that enforce it;
* ``value`` or ``range = [low, high]`` (optional, in the quote's units, so every number appears in the
  quote), ``unit`` (optional), ``tolerance`` (the item's resolution, required where a number decides it:
  ``"<window>: <why>; smallest mistake <the mistake and its size>"``, the smallest plausible mistake lying
  outside the window);
* ``file`` (``file`` items): the delivered files it names, a glob or a list of globs relative to the artifact
  folder (``"lambda_*/prod.tpr"``); the mutation harness mutates these files only (a log or checkpoint the
  reference also leaves there is no deliverable);
* ``[item.mutate]`` (optional): how the mutation harness (:mod:`westbench.agents.mutation`) breaks the
  requirement in the reference solution: ``key`` (a ``key = value`` run-input line, as in an mdp file)
  or ``pattern`` (a regular expression whose group 1 is the value), ``values`` (the out-of-contract
  values written there; default: derived from ``range`` and ``scale``), ``scale`` (the file's value per
  stated unit, e.g. 0.001 for fs stated and ps written), ``remove`` (a regular expression of lines to
  delete: a required step left out), ``files`` (glob patterns, relative to the task folder, of the
  files edited; default ``solution/*``) and ``level`` (``output``: the oracle's delivered files are
  edited and only the verifier reruns; ``solution``: the reference solution is edited and rerun;
  default ``solution`` when a solution file holds the key or pattern, else ``output``).

``descriptive`` (a list of quotes) names the passages that state facts about the inputs rather than
requirements, so that :func:`contract_problems` can require every number the instruction states to lie
in an item's or a descriptive quote: a requirement nobody mapped is a failing test, not a silent gap.

Two modules: :mod:`~westbench.agents.contract.loading` (``contract.toml`` read and validated) and
:mod:`~westbench.agents.contract.problems` (the contract against the instruction and the verifier).

Examples
--------
>>> import tempfile, pathlib
>>> task = pathlib.Path(tempfile.mkdtemp())
>>> _ = (task / "instruction.md").write_text("Run 5 ps with a **2 fs** timestep; write `/app/output/a.json`.")
>>> (task / "tests").mkdir(); (task / "solution").mkdir()
>>> _ = (task / "solution" / "solve.sh").write_text("cat > md.mdp <<EOF\\ndt = 0.002\\nEOF\\n")
>>> _ = (task / "tests" / "verify.py").write_text(
...     'with checks.check("a.json readable"): pass\\nchecks.require(f"dt {dt} fs", True)\\n')
>>> _ = (task / "contract.toml").write_text('''
... [[item]]
... id = "timestep"
... kind = "parameter"
... quote = "with a 2 fs timestep"
... checks = ["dt {dt} fs"]
... value = 2
... unit = "fs"
... tolerance = "exact: dt read back; smallest mistake a neighbouring step (1 or 4 fs)"
... mutate = {key = "dt", scale = 0.001, values = ["0.004"]}
... [[item]]
... id = "a.json"
... kind = "file"
... quote = "write /app/output/a.json"
... checks = ["a.json readable"]
... ''')
>>> contract = load_contract(task)
>>> [item.id for item in contract.items], contract.items[0].mutate["values"]
(['timestep', 'a.json'], ['0.004'])
>>> print(*contract_problems(task))  # doctest: +NORMALIZE_WHITESPACE
instruction.md states 5 in '...Run 5 ps with a 2 fs timestep; write /app/out...' but no item or descriptive
quote covers it
"""

from westbench.agents.contract.loading import CONTRACT, KINDS, Contract, Item, load_contract
from westbench.agents.contract.problems import check_names, contract_problems, names_check, normalize, numbers_in

__all__ = [
    "CONTRACT",
    "Contract",
    "Item",
    "KINDS",
    "check_names",
    "contract_problems",
    "load_contract",
    "names_check",
    "normalize",
    "numbers_in",
]
