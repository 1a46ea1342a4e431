"""Import deeptime and POT without torch.

deeptime's package init imports torch whenever it is installed, only to offer torch kernels
(``deeptime.kernels.TorchGaussianKernel``), and POT's backend module imports it to offer a torch backend:
westbench uses neither, and the import is 2-3 s of CPU in each job that fits TICA or an MSM or computes a
transport distance (every metric suite, macrostate and TICA job of the embedded default run). So westbench
imports them through :func:`import_without_torch`: the library loads while ``import torch`` fails as if torch
were not installed, then ``import torch`` works again, so a later import of torch in the same process works
as usual. Where torch is already loaded (a CG job) the library sees it and nothing changes.

Examples
--------
>>> import sys
>>> from westbench.runtime.without_torch import import_without_torch
>>> ot = import_without_torch("ot")
>>> ot is sys.modules["ot"]
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from types import ModuleType


class _HideTorch(importlib.abc.MetaPathFinder):
    """``import torch`` fails as if torch were not installed; sys.modules stays untouched (scipy and
    others look torch up there while these libraries load)."""

    def __init__(self, loading: str):
        self.loading = loading

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"{name} is hidden while {self.loading} loads", name=name)
        return None


def import_without_torch(name: str) -> ModuleType:
    """The module ``name`` (``"deeptime"``, ``"ot"``), imported while torch is hidden unless one of them is loaded.

    Parameters
    ----------
    name : str
        A top-level module that imports torch only for features westbench does not use.

    Returns
    -------
    module
        The imported module (the one already in ``sys.modules`` if it was loaded before).
    """
    if name in sys.modules or "torch" in sys.modules:
        return importlib.import_module(name)
    finder = _HideTorch(name)
    sys.meta_path.insert(0, finder)
    try:
        return importlib.import_module(name)
    finally:
        sys.meta_path.remove(finder)
