"""Reading structures and the sequence of a selection."""

import pytest

from westbench.errors import StructureError
from westbench.structures.inspect import read_structure, selected_sequences


def test_selection_by_chain_and_residue_range(shared_structures):
    topology = read_structure(shared_structures / "1LMB.pdb").topology
    every = selected_sequences(topology)
    assert list(every) == ["3", "4"]  # DNA chains 1-2 and waters hold no protein
    sel = selected_sequences(topology, chains=("4",), residues=(6, 10))
    assert sel == {"4": every["4"][5:10]}


def test_missing_chain_names_the_file_and_the_chains(shared_structures):
    topology = read_structure(shared_structures / "1UAO.pdb").topology
    with pytest.raises(StructureError, match=r"1UAO.*no chain B.*'A'"):
        selected_sequences(topology, chains=("B",), path=shared_structures / "1UAO.pdb")


def test_dna_only_selection_has_no_protein(shared_structures):
    topology = read_structure(shared_structures / "1LMB.pdb").topology
    with pytest.raises(StructureError, match="no protein residues"):
        selected_sequences(topology, chains=("1", "2"))


@pytest.mark.parametrize(
    "content, message",
    [
        ("this is not a structure file\n", "does not parse|no atoms"),
        ("ATOM      1  N   GLY A   1      xx.xxx  11.104   6.134  1.00  0.00           N\n", "does not parse"),
        ("", "does not parse|no atoms"),
    ],
)
def test_unparsable_files_are_reported(tmp_path, content, message):
    path = tmp_path / "broken.pdb"
    path.write_text(content)
    with pytest.raises(StructureError, match=message) as err:
        read_structure(path)
    assert "broken.pdb" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(StructureError, match="does not exist"):
        read_structure(tmp_path / "nothing.pdb")
