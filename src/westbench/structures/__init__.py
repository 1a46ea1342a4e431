"""Acquire the starting structure of a protein: from the RCSB, a file, or its sequence."""

from westbench.structures.acquire import acquire_structure
from westbench.structures.inspect import read_structure, selected_sequences

__all__ = ["acquire_structure", "read_structure", "selected_sequences"]
