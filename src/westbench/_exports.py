"""Lazy public names of a package (PEP 562): ``from westbench.cg import CGEngine`` imports only what it names.

A package's ``__init__`` lists its public names (``__all__``) and the module each lives in; a name loads
its module on first use, so importing a package, or one of its modules, costs no more than before.

Examples
--------
>>> import types
>>> package = types.ModuleType("demo")
>>> package.__getattr__, package.__dir__ = lazy_exports("demo", {"sqrt": "math"}, modules=["json"])
>>> import sys; sys.modules["demo"] = package
>>> package.sqrt(4.0), package.json.__name__, "sqrt" in dir(package)
(2.0, 'json', True)
>>> del sys.modules["demo"]
"""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Iterable, Mapping


def lazy_exports(package: str, names: Mapping[str, str], modules: Iterable[str] = ()) -> tuple[Callable, Callable]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``names`` maps each public name to the module it is
    defined in; ``modules`` are modules (subpackages), each public under its last part."""
    exports = {**dict(names), **{module.rsplit(".", 1)[-1]: module for module in modules}}
    whole = {module.rsplit(".", 1)[-1] for module in modules}

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        value = loaded if name in whole else getattr(loaded, name)
        setattr(sys.modules[package], name, value)  # loaded once
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__


def resolve_all(package) -> None:
    """Load every public name of ``package`` (its ``__all__``): documentation tools read the module's namespace."""
    for name in getattr(package, "__all__", ()):
        getattr(package, name)
