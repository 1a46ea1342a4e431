"""Prepared implicit-solvent systems for the engine tests: chignolin (from its sequence, extended)
and Trp-cage (1L2Y, folded), with the project's own preparation functions and few minimization steps."""

import pytest

from westbench.prepare import build_system, fix_structure, minimize, write_system
from westbench.structures.peptide import write_extended_peptide

from ...conftest import CHIGNOLIN, rcsb_spec


def prepare(pdb, spec, folder):
    topology, positions, _ = fix_structure(pdb, spec, seed=1)
    system, modeller, _ = build_system("implicit", topology, positions, {})
    state, _ = minimize(system, modeller.positions, {"minimize_max_iterations": 20})
    names = [folder / n for n in ("implicit.xml", "implicit_state.xml", "implicit.pdb")]
    write_system(system, state, modeller.topology, *names)
    return [str(n) for n in names]


@pytest.fixture(scope="session")
def chignolin_files(tmp_path_factory):
    from westbench.config import ProteinSpec

    folder = tmp_path_factory.mktemp("chignolin_implicit")
    write_extended_peptide(CHIGNOLIN, folder / "in.pdb")
    return prepare(folder / "in.pdb", ProteinSpec("chignolin", "c", None, CHIGNOLIN, None, None, "sequence", None),
                   folder)


@pytest.fixture(scope="session")
def trpcage_files(tmp_path_factory, shared_structures):
    folder = tmp_path_factory.mktemp("trpcage_implicit")
    return prepare(shared_structures / "1L2Y.pdb", rcsb_spec("1L2Y", "NLYIQWLKDGGPSSGRPPPS"), folder)
