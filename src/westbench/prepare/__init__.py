"""Prepare proteins for simulation: PDBFixer repairs, then OpenMM systems."""

from westbench.prepare.fixer import fix_structure
from westbench.prepare.systems import build_system, write_system

__all__ = ["fix_structure", "build_system", "minimize", "write_system"]
