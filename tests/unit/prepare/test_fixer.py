"""PDBFixer preparation: models, alternate locations, heterogens, chains, gaps, hydrogens."""

import pytest

from westbench.errors import SequenceMismatchError, StructureError
from westbench.prepare.fixer import fix_structure

from ...conftest import CHIGNOLIN, rcsb_spec


def _atom_lines(path):
    return [line for line in path.read_text().splitlines() if line.startswith(("ATOM", "HETATM"))]


def _names(topology):
    return [(a.residue.chain.id, a.residue.id, a.name) for a in topology.atoms()]


def test_first_model_only(shared_structures):
    # 1L2Y has 38 NMR models; only the first one is prepared.
    topology, positions, report = fix_structure(
        shared_structures / "1L2Y.pdb", rcsb_spec("1L2Y", "NLYIQWLKDGGPSSGRPPPS")
    )
    assert report["models_in_file"] == 38
    assert topology.getNumResidues() == 20 and len(positions) == topology.getNumAtoms()
    assert len(set(_names(topology))) == topology.getNumAtoms()


def test_one_alternate_location_is_kept(shared_structures, tmp_path):
    """Every heavy atom of residue 2 gets a B location shifted by 1 A: the A location must win."""
    lines = _atom_lines(shared_structures / "5AWL.pdb")
    out = []
    for line in lines:
        if line.startswith("ATOM") and line[22:26].strip() == "2":
            out.append(line[:16] + "A" + line[17:54] + " 0.60" + line[60:])
            shifted = f"{float(line[30:38]) + 1.0:8.3f}"
            out.append(line[:16] + "B" + line[17:30] + shifted + line[38:54] + " 0.40" + line[60:])
        else:
            out.append(line)
    path = tmp_path / "altloc.pdb"
    path.write_text("\n".join(out) + "\nEND\n")
    reference, ref_positions, _ = fix_structure(shared_structures / "5AWL.pdb", rcsb_spec("5AWL", "YYDPETGTWY"), seed=1)
    topology, positions, report = fix_structure(path, rcsb_spec("5AWL", "YYDPETGTWY"), seed=1)
    assert report["alternate_location_records_dropped"] > 0
    assert _names(topology) == _names(reference)  # no duplicated atoms
    ca = [i for i, a in enumerate(topology.atoms()) if a.residue.id == "2" and a.name == "CA"][0]
    assert abs(positions[ca].x - ref_positions[ca].x) < 1e-6


def test_waters_removed_and_hydrogens_added(shared_structures):
    topology, _, report = fix_structure(
        shared_structures / "1PGA.pdb", rcsb_spec("1PGA", "MTYKLILNGKTLKGETTTEAVDAATAEKVFKQYANDNGVDGEWTYDDATKTFTVTE")
    )
    assert report["removed_heterogens"] == {"HOH": 20}
    assert not any(r.name == "HOH" for r in topology.residues())
    assert report["added_hydrogens"] > 400


def test_dna_chains_dropped_and_residue_range_kept(shared_structures):
    sequence = "PLTQEQLEDARRLKAIYEKKKNELGLSQESVADKMGMGQSGVGALFNGINALNAYNAALLAKILKVSVEEFSPSIAREIY"
    topology, _, report = fix_structure(shared_structures / "1LMB.pdb", rcsb_spec("1LMB", sequence, ("4",), (6, 85)))
    assert sorted(report["removed_chains"]) == [" ", "1", "2", "3"]
    residues = list(topology.residues())
    assert (residues[0].id, residues[-1].id, len(residues)) == ("6", "85", 80)
    assert report["added_residues"] == 0  # trimmed ends are not rebuilt


def test_present_hydrogens_are_replaced_consistently(shared_structures):
    sequence = "TIDQWLLKNAKEDAIAELKKAGITSDFYFNAINKAKTVEEVNALKNEILKAHA"
    topology, _, report = fix_structure(shared_structures / "1PRB.pdb", rcsb_spec("1PRB", sequence))
    assert report["stripped_hydrogens"] > 0
    hydrogens = sum(1 for a in topology.atoms() if a.element.symbol == "H")
    assert hydrogens == report["added_hydrogens"]


def test_missing_interior_residue_is_rebuilt(shared_structures, tmp_path):
    text = (shared_structures / "1UAO.pdb").read_text().splitlines()
    kept = [l for l in text if not (l.startswith("ATOM") and l[22:26].strip() == "5")]
    path = tmp_path / "gap.pdb"
    path.write_text("\n".join(kept) + "\n")
    topology, _, report = fix_structure(path, rcsb_spec("1UAO", CHIGNOLIN))
    assert report["added_residues"] == 1 and report["sequence"] == CHIGNOLIN


def test_final_sequence_must_match(shared_structures, tmp_path):
    text = (shared_structures / "1UAO.pdb").read_text().splitlines()
    kept = [l for l in text if not l.startswith("SEQRES") and not (l.startswith("ATOM") and l[22:26].strip() == "5")]
    path = tmp_path / "gap_no_seqres.pdb"
    path.write_text("\n".join(kept) + "\n")
    with pytest.raises(SequenceMismatchError, match=r"'test'.*GYDPTGTWG.*GYDPETGTWG.*SEQRES"):
        fix_structure(path, rcsb_spec("1UAO", CHIGNOLIN))


def test_selection_without_protein(shared_structures):
    with pytest.raises(StructureError, match=r"'test'.*no protein residues"):
        fix_structure(shared_structures / "1LMB.pdb", rcsb_spec("1LMB", "AAA", chains=("1",)))
    with pytest.raises(StructureError, match=r"no chain Z"):
        fix_structure(shared_structures / "1UAO.pdb", rcsb_spec("1UAO", CHIGNOLIN, chains=("Z",)))


def test_seeded_preparation_is_reproducible(tmp_path, chignolin_spec):
    from westbench.structures.peptide import write_extended_peptide

    path = tmp_path / "p.pdb"
    write_extended_peptide(CHIGNOLIN, path)
    runs = [fix_structure(path, chignolin_spec, seed=7)[1] for _ in range(2)]
    assert all(a == b for a, b in zip(*runs))
