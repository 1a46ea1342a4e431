"""Import deeptime without torch.

deeptime's package init imports torch whenever it is installed, only to offer torch kernels
(``deeptime.kernels.TorchGaussianKernel``) that westbench never uses. That import is about 3 s of CPU in
each job that fits TICA or an MSM (16 jobs of the embedded default run, most of them metric suites), so
the modules that use deeptime import this module first: it loads deeptime while ``import torch`` fails as
if torch were not installed, then lets it succeed again, so a later ``import torch`` in the same process
works as usual. Where torch is already loaded (a CG job) deeptime sees it and nothing changes.

Examples
--------
>>> import sys
>>> import westbench.deeptime_without_torch
>>> "deeptime" in sys.modules
True
"""

import importlib.abc
import sys


class _HideTorch(importlib.abc.MetaPathFinder):
    """``import torch`` fails as if torch were not installed; sys.modules stays untouched (scipy and
    others look torch up there while deeptime loads)."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"{name} is hidden while deeptime loads", name=name)
        return None


_finder = None if "deeptime" in sys.modules or "torch" in sys.modules else _HideTorch()
if _finder is not None:
    sys.meta_path.insert(0, _finder)
try:
    import deeptime  # noqa: F401
finally:
    if _finder is not None:
        sys.meta_path.remove(_finder)
