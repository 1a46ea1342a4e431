"""Prepare proteins for simulation: PDBFixer repairs (the OpenMM systems are built by the shared
:mod:`westbench.simulation.systems`, which the ground truth also uses for each start)."""

from westbench.prepare.fixer import fix_structure
from westbench.prepare.records import preparation_table, write_preparation_table, write_summary

__all__ = ["fix_structure", "write_summary", "preparation_table", "write_preparation_table"]
