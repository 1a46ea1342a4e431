"""The offline peptide builder: backbone geometry, and PDBFixer completes it."""

import numpy as np
import pytest

from westbench.errors import StructureError
from westbench.prepare.fixer import fix_structure
from westbench.structures.peptide import BOND, extended_backbone, write_extended_peptide


def test_extended_backbone_geometry():
    coords = extended_backbone("GYDPETGTWG")
    n, ca, c, o = (coords[:, i] for i in range(4))
    assert np.allclose(np.linalg.norm(ca - n, axis=1), BOND["N-CA"])
    assert np.allclose(np.linalg.norm(c - ca, axis=1), BOND["CA-C"])
    assert np.allclose(np.linalg.norm(n[1:] - c[:-1], axis=1), BOND["C-N"])
    assert np.allclose(np.linalg.norm(o - c, axis=1), BOND["C-O"])
    # A fully extended chain: consecutive C-alphas 3.8 A apart, end to end about 3.3-3.8 A per residue.
    assert np.allclose(np.linalg.norm(np.diff(ca, axis=0), axis=1), 3.80, atol=0.02)
    assert np.linalg.norm(ca[-1] - ca[0]) > 3.2 * 9


def test_built_peptide_prepares_to_the_known_atom_count(tmp_path, chignolin_spec):
    path = tmp_path / "chignolin.pdb"
    write_extended_peptide(chignolin_spec.sequence, path)
    topology, _, report = fix_structure(path, chignolin_spec)
    assert topology.getNumAtoms() == 138  # chignolin built from its sequence with hydrogens (PDBFixer, amber14)
    assert report["sequence"] == chignolin_spec.sequence


def test_unknown_letters_are_refused(tmp_path):
    with pytest.raises(StructureError, match="unknown one-letter codes"):
        write_extended_peptide("GYBX", tmp_path / "bad.pdb")
