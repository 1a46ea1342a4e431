"""Shared fixtures: the repository, the shared reference structures, small specs."""

from pathlib import Path

import pytest

from westbench.config import ProteinSpec

REPO = Path(__file__).resolve().parents[1]
SHARED_STRUCTURES = REPO.parent / "shared" / "structures"
CHIGNOLIN = "GYDPETGTWG"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_structures() -> Path:
    """The raw RCSB files of the benchmark proteins (../shared/structures, never committed)."""
    if not (SHARED_STRUCTURES / "1UAO.pdb").is_file():
        pytest.fail(f"reference structures not found in {SHARED_STRUCTURES}: clone the project beside shared/")
    return SHARED_STRUCTURES


@pytest.fixture
def chignolin_spec() -> ProteinSpec:
    return ProteinSpec("chignolin", "Chignolin", "1UAO", CHIGNOLIN, None, None, "sequence", None)


def rcsb_spec(pdb_id: str, sequence: str, chains=None, residues=None, protein_id: str = "test") -> ProteinSpec:
    """A spec for source rcsb (tests read the files from the shared folder)."""
    return ProteinSpec(protein_id, protein_id, pdb_id, sequence, chains, residues, "rcsb", None)
