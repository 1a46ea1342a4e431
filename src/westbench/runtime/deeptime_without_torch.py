"""deeptime, loaded without torch (:mod:`westbench.runtime.without_torch`): modules that use deeptime import this first.

Examples
--------
>>> import sys
>>> import westbench.runtime.deeptime_without_torch
>>> "deeptime" in sys.modules
True
"""

from westbench.runtime.without_torch import import_without_torch

import_without_torch("deeptime")
