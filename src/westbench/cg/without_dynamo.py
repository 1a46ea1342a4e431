"""Import TorchMD-Net without torch's compiler stack.

TorchMD-Net's kernels mark their functions with ``torch.compiler.allow_in_graph``, which imports torch's whole
compiler stack (Dynamo, Inductor, sympy: 1.4 s of each CG training and CG WE job) only to tell ``torch.compile``
not to trace into them; westbench never compiles them (its GPU speed-up is CUDA graphs, which need no Dynamo).
:func:`import_without_dynamo` loads such a module while that decorator returns its function unchanged. Where
Dynamo is loaded already, the module is imported as it is.

Examples
--------
>>> from westbench.cg.without_dynamo import import_without_dynamo
>>> import_without_dynamo("westbench.cg.reference").__name__
'westbench.cg.reference'
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def import_without_dynamo(name: str) -> ModuleType:
    """The module ``name`` (``"torchmdnet.models.model"``), imported while ``torch.compiler.allow_in_graph`` is
    the identity, unless Dynamo is loaded already.

    Parameters
    ----------
    name : str
        A module whose import marks functions for ``torch.compile`` only.

    Returns
    -------
    module
        The imported module.
    """
    import torch.compiler

    if "torch._dynamo" in sys.modules:
        return importlib.import_module(name)
    marking = torch.compiler.allow_in_graph
    torch.compiler.allow_in_graph = lambda fn: fn
    try:
        return importlib.import_module(name)
    finally:
        torch.compiler.allow_in_graph = marking
