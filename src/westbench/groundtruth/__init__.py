"""Ground truth: starting points, explicit-solvent production runs, their frames."""
