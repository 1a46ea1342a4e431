"""Prepared implicit-solvent systems for engine and WE tests: chignolin (from its sequence, extended)
and Trp-cage (1L2Y, folded), with the project's own preparation functions and few minimization steps."""

from westbench.prepare import fix_structure
from westbench.simulation.integration import minimize
from westbench.simulation.systems import build_system, write_system
from westbench.structures.peptide import write_extended_peptide

from ...conftest import CHIGNOLIN, rcsb_spec


def prepare(pdb, spec, folder):
    """Fix, build (implicit solvent), minimize briefly and write; returns the engine's three files."""
    topology, positions, _ = fix_structure(pdb, spec, seed=1)
    system, modeller, _ = build_system("implicit", topology, positions, {})
    state, _ = minimize(system, modeller.positions, {"minimize_max_iterations": 20})
    names = [folder / n for n in ("implicit.xml", "implicit_state.xml", "implicit.pdb")]
    write_system(system, state, modeller.topology, *names)
    return [str(n) for n in names]


def prepare_chignolin(folder):
    from westbench.config import ProteinSpec

    write_extended_peptide(CHIGNOLIN, folder / "in.pdb")
    return prepare(
        folder / "in.pdb", ProteinSpec("chignolin", "c", None, CHIGNOLIN, None, None, "sequence", None), folder
    )


def prepare_trpcage(folder, structures):
    return prepare(structures / "1L2Y.pdb", rcsb_spec("1L2Y", "NLYIQWLKDGGPSSGRPPPS"), folder)
