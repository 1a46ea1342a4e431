"""Acquisition from each source, and the sequence checks."""

import pytest

from westbench.config import ProteinSpec
from westbench.errors import SequenceMismatchError, StructureError
from westbench.structures.acquire import acquire_structure, check_sequence

from ...conftest import CHIGNOLIN, rcsb_spec


def test_structures_dir_is_looked_in_first(shared_structures, tmp_path):
    record = acquire_structure(
        rcsb_spec("1uao", CHIGNOLIN),
        tmp_path / "s.pdb",
        structures_dir=shared_structures,
        cache_dir=tmp_path / "cache",
        download={"url_template": "http://127.0.0.1:9/{pdb_id}"},
    )
    assert record["origin"] == str(shared_structures / "1UAO.pdb")
    assert (tmp_path / "s.pdb").read_bytes() == (shared_structures / "1UAO.pdb").read_bytes()  # SEQRES kept
    assert record["observed_sequences"] == {"A": CHIGNOLIN} and record["complete"]


def test_file_source(shared_structures, tmp_path):
    spec = ProteinSpec(
        "cln025", "CLN025", None, "YYDPETGTWY", ("A",), None, "file", str(shared_structures / "5AWL.pdb")
    )
    record = acquire_structure(spec, tmp_path / "s.pdb")
    assert record["source"] == "file" and record["observed_sequences"] == {"A": "YYDPETGTWY"}


def test_file_source_missing_file(tmp_path):
    spec = ProteinSpec("p", "P", None, "AAA", None, None, "file", str(tmp_path / "gone.pdb"))
    with pytest.raises(StructureError, match=r"'p'.*gone.pdb does not exist.*`path`"):
        acquire_structure(spec, tmp_path / "s.pdb")


def test_sequence_mismatch_between_file_and_config(shared_structures, tmp_path):
    # 1L2Y is wild-type Trp-cage; the fast-folder variant 2JOF differs at the N-terminus.
    spec = rcsb_spec("1L2Y", "DAYAQWLKDGGPSSGRPPPS", protein_id="trpcage")
    with pytest.raises(SequenceMismatchError, match=r"'trpcage'.*1L2Y.pdb.*NLYIQW.*DAYAQW.*`sequence`"):
        acquire_structure(spec, tmp_path / "s.pdb", structures_dir=shared_structures, cache_dir=tmp_path / "c")


def test_structure_without_protein(shared_structures, tmp_path):
    spec = rcsb_spec("1LMB", "AAA", chains=("1",), protein_id="dna")
    with pytest.raises(StructureError, match=r"'dna'.*no protein residues"):
        acquire_structure(spec, tmp_path / "s.pdb", structures_dir=shared_structures, cache_dir=tmp_path / "c")


def test_missing_residues_pass_acquisition_but_must_fit_in_order():
    spec = ProteinSpec("p", "P", None, "ACDEFG", None, None, "sequence", None)
    check_sequence(spec, "f.pdb", {"A": "ACFG"})  # a gap PDBFixer will fill
    with pytest.raises(SequenceMismatchError):
        check_sequence(spec, "f.pdb", {"A": "AGC"})
    with pytest.raises(SequenceMismatchError, match="2 protein chain"):
        check_sequence(spec, "f.pdb", {"A": "AC", "B": "DE"})
