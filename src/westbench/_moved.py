"""Old names of moved modules, kept for the workflow's scripts only.

Snakemake reruns a rule whose ``script:`` file is newer than its outputs, and a checkout or merge that edits a
script writes it anew: changing a script's import line would rerun that rule's jobs (and everything after them)
on every finished run. So the scripts keep importing the modules that moved into folders by their old names
until a change that reruns them anyway; everything else uses the new names (``tests/unit/test_layers.py``
checks both). An old name is the module itself, not a copy: importing it imports the new module.

Examples
--------
>>> import westbench.frames, westbench.io.frames
>>> westbench.frames is westbench.io.frames
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: Old name -> new name of each moved module a script imports.
MOVED: dict[str, str] = {
    "westbench.features": "westbench.geometry.features",  # scripts/fit_tica.py
    "westbench.coverage_grid": "westbench.geometry.coverage_grid",  # scripts/we_export.py, external_import.py
    # scripts/external_import.py, fit_tica.py, protein_figures.py, we_export.py
    "westbench.frames": "westbench.io.frames",
    "westbench.atomic": "westbench.io.atomic",  # scripts/calibration_basis_states.py
}


class _OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name (after every other finder found nothing) and loads the module of its new name."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        return None  # a placeholder the import system replaces with what exec_module puts in sys.modules

    def exec_module(self, module):
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


def install() -> None:
    """Let the old names import (once per process; ``import westbench`` calls it)."""
    if not any(isinstance(finder, _OldNames) for finder in sys.meta_path):
        sys.meta_path.append(_OldNames())
