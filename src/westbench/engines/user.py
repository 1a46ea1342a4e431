"""A user's engine class as one ``we.engines`` entry: import it, check it against the contract, build its spec.

A ``we.engines`` item is either a built-in engine's name (``implicit``, ``explicit``, ``cg_<name>``) or a
mapping naming any class that meets the engine contract (:mod:`westbench.engines.base`)::

    we:
      engines:
        - implicit
        - name: mine                       # the engine's name in every path, table and figure
          class: "my_engines.elastic:ElasticNetwork"
          python_path: byo                  # folder (relative to the working directory) holding my_engines/
          work: torch                       # resourced like the CG engines (openmm: like implicit/explicit)
          system: implicit                  # the prepared system whose files the placeholders name
          options: {basis_pdb: "{basis_pdb}", spring_kj_mol_nm2: 500.0}

String values of ``options`` (at any depth) may hold placeholders, replaced per protein by absolute
paths: ``{protein}`` (the protein id), ``{system_xml}``, ``{state_xml}``, ``{topology_pdb}`` (the
prepared OpenMM system of ``system``, its minimized state and its PDB) and ``{basis_pdb}`` (the
prepared implicit-solvent structure whose C-alpha atoms the CG engines start from). The class is
imported when the workflow is parsed (:func:`check_engine_entry`), so a wrong name, a missing module,
a class that does not meet the contract or options its constructor does not take are a
:class:`~westbench.errors.ConfigError` naming the entry and the fix before any job runs.

Examples
--------
>>> entry = {"name": "toy", "class": "westbench.engines.double_well:DoubleWell", "options": {"barrier": 1.0}}
>>> check_engine_entry(entry, 0).__name__
'DoubleWell'
>>> check_engine_entry({**entry, "options": {"height": 1.0}}, 0)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
westbench.errors.ConfigError: we.engines[0] (toy): westbench.engines.double_well:DoubleWell() does not take
option(s) height (it takes barrier, dt, start_x). Fix: correct the entry's `options`.
>>> fill_placeholders({"a": ["{protein}.pdb", 3], "b": "{x}"}, {"protein": "p"})
{'a': ['p.pdb', 3], 'b': '{x}'}
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from typing import Mapping

from westbench.errors import ConfigError

#: What an engine must provide (westbench.engines.base.Engine's abstract methods).
CONTRACT = ("basis_state", "beads", "propagate")
#: Placeholders of a user engine's string options, replaced per protein by :func:`placeholders`
#: (``basis_states``: the calibration study's ensemble of starts, for an engine of ``calibration.engines``).
PLACEHOLDERS = ("protein", "system_xml", "state_xml", "topology_pdb", "basis_pdb", "basis_states")


def is_user_entry(item) -> bool:
    """A ``we.engines`` item naming a class (a mapping) rather than a built-in engine (a string)."""
    return isinstance(item, Mapping)


def engine_name(item) -> str:
    """The engine's name of a ``we.engines`` item: the string itself, or the mapping's ``name``."""
    return item["name"] if is_user_entry(item) else item


def import_module_from(name: str, folder=None):
    """Import module ``name`` (``package.module``), its top-level package looked up in ``folder`` first.

    ``folder``: absolute or relative to the working directory; None imports from the environment's path.
    ``sys.path`` is left as it is: the top-level package (or module) is loaded from ``folder`` and its
    submodules through the package, so the user's code uses relative imports (``from . import helpers``)
    for its other modules.
    """
    if not folder:
        return importlib.import_module(name)
    top = name.partition(".")[0]
    folder = os.path.abspath(folder)
    loaded = sys.modules.get(top)
    origin = getattr(loaded, "__file__", None) or ""
    if loaded is None or not os.path.abspath(origin).startswith(folder + os.sep):
        spec = importlib.machinery.PathFinder.find_spec(top, [folder])
        if spec is None:
            raise ModuleNotFoundError(f"No module named {top!r} in {folder}", name=top)
        module = importlib.util.module_from_spec(spec)
        sys.modules[top] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(top, None)
            raise
    return importlib.import_module(name)


def import_class(spec: str, python_path=None):
    """The class named ``module:Class``, its module imported from ``python_path`` (:func:`import_module_from`)."""
    module_name, _, class_name = spec.partition(":")
    return getattr(import_module_from(module_name, python_path), class_name)


def contract_problems(cls) -> list[str]:
    """What a class lacks of the engine contract (empty when it meets it)."""
    if not inspect.isclass(cls):
        return [f"it is a {type(cls).__name__}, not a class"]
    missing = [name for name in CONTRACT if not callable(getattr(cls, name, None))]
    problems = [f"it has no method {', '.join(missing)}"] if missing else []
    abstract = sorted(getattr(cls, "__abstractmethods__", ()))
    if abstract:
        problems.append(f"it leaves abstract method(s) {', '.join(abstract)} unimplemented")
    return problems


def check_engine_entry(entry: Mapping, index: int, section: str = "we.engines"):
    """Import a user engine entry's class and check it against the contract and its options; return the class.

    Raises
    ------
    ConfigError
        Naming the entry (``<section>[<index>] (<name>)``: ``we.engines`` or ``calibration.engines``), what is
        wrong and the fix.
    """
    where = f"{section}[{index}] ({entry['name']})"
    spec, python_path = entry["class"], entry.get("python_path")
    searched = (
        f"python_path {python_path!r} (resolved to {os.path.abspath(python_path)})" if python_path else "no python_path"
    )
    try:
        cls = import_class(spec, python_path)
    except ModuleNotFoundError as exc:
        raise ConfigError(
            f"{where}: class {spec!r} cannot be imported: {exc} ({searched}). Fix: set the entry's "
            "`python_path` to the folder holding the module's top-level package (relative to the working directory), "
            "install the module in the workflow's environment, or correct `class` "
            '("package.module:Class").'
        ) from None
    except AttributeError:
        raise ConfigError(
            f"{where}: module {spec.partition(':')[0]!r} has no {spec.partition(':')[2]!r} "
            f'({searched}). Fix: correct `class` ("package.module:Class").'
        ) from None
    except Exception as exc:  # the user's module raised while being imported
        raise ConfigError(
            f"{where}: importing {spec!r} raised {type(exc).__name__}: {exc}. Fix: make the module "
            'importable on its own (python -c "import ...").'
        ) from None
    problems = contract_problems(cls)
    if problems:
        raise ConfigError(
            f"{where}: {spec} does not meet the engine contract: {'; '.join(problems)}. Fix: subclass "
            "westbench.engines.base.Engine and implement basis_state(), beads(state) and "
            "propagate(starts, n_steps, save_every, seeds) (docs/engines.md, the engine contract)."
        )
    options = dict(entry.get("options") or {})
    signature = inspect.signature(cls)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    named = [name for name, p in signature.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [key for key in options if key not in named]
    if unknown and not takes_any:
        raise ConfigError(
            f"{where}: {spec}() does not take option(s) {', '.join(unknown)} (it takes "
            f"{', '.join(named) or 'no options'}). Fix: correct the entry's `options`."
        )
    required = [
        name
        for name, p in signature.parameters.items()
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name not in options
    ]
    if required:
        raise ConfigError(
            f"{where}: {spec}() needs option(s) {', '.join(required)}. Fix: add them to the "
            f"entry's `options` (placeholders: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})."
        )
    return cls


def fill_placeholders(value, values: Mapping[str, str]):
    """``value`` with every ``{name}`` of ``values`` replaced in its strings, at any depth; other braces stay."""
    if isinstance(value, str):
        for key, text in values.items():
            value = value.replace("{" + key + "}", str(text))
        return value
    if isinstance(value, Mapping):
        return {key: fill_placeholders(item, values) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [fill_placeholders(item, values) for item in value]
    return value


def placeholders(protein: str, inputs: Mapping) -> dict:
    """The placeholder values of one WE job: the protein id and the absolute paths of its prepared files."""
    files = {
        "system_xml": "system",
        "state_xml": "state",
        "topology_pdb": "topology",
        "basis_pdb": "basis",
        "basis_states": "basis_states",
    }
    given = dict(inputs.items())  # a mapping, or Snakemake's named input list (whose `in` tests values)
    return {"protein": protein, **{name: os.path.abspath(given[key]) for name, key in files.items() if key in given}}


def user_engine_spec(entry: Mapping, protein: str, inputs: Mapping, block_size: int) -> dict:
    """The west.cfg engine entry of a user engine: its class, its options with placeholders filled, its
    ``python_path`` made absolute (WESTPA runs in the run folder) and ``block_size`` rounded up to whole
    batches when the class packs walkers in batches (``batch_walkers``)."""
    cls = import_class(entry["class"], entry.get("python_path"))
    batch = getattr(cls, "batch_walkers", None)  # a class attribute; a property is decided per instance
    batch = batch if isinstance(batch, int) and batch > 0 else None
    block = int(block_size) if not batch else batch * -(-int(block_size) // batch)
    spec = {
        "class": entry["class"],
        "block_size": max(1, block),
        "options": fill_placeholders(dict(entry.get("options") or {}), placeholders(protein, inputs)),
    }
    if entry.get("python_path"):
        spec["python_path"] = os.path.abspath(entry["python_path"])
    return spec
