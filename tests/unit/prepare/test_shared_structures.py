"""All eleven reference structures in ../shared/structures prepare without error."""

import numpy as np
import openmm
import pytest
import yaml
from openmm import unit

from westbench.config import protein_spec, validate_config
from westbench.prepare.fixer import fix_structure
from westbench.prepare.systems import build_system, describe

from ...conftest import REPO, rcsb_spec

PAPER = validate_config(yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
# The paper config covers nine files; the wild-type chignolin and Trp-cage entries complete the set.
SPECS = {protein_spec(PAPER, p["id"]).pdb_id: protein_spec(PAPER, p["id"]) for p in PAPER["proteins"]}
SPECS["1UAO"] = rcsb_spec("1UAO", "GYDPETGTWG", ("A",))
SPECS["1L2Y"] = rcsb_spec("1L2Y", "NLYIQWLKDGGPSSGRPPPS", ("A",))

# Net charge at pH 7 from the sequence: K, R +1; D, E -1; His neutral; free termini cancel.
def _expected_charge(sequence):
    return sum(sequence.count(a) for a in "KR") - sum(sequence.count(a) for a in "DE")


def test_all_eleven_files_are_covered(shared_structures):
    assert sorted(SPECS) == sorted(p.stem for p in shared_structures.glob("*.pdb"))


@pytest.mark.slow
@pytest.mark.parametrize("pdb_id", sorted(SPECS))
def test_prepares_with_sensible_counts(pdb_id, shared_structures):
    spec = SPECS[pdb_id]
    topology, positions, report = fix_structure(shared_structures / f"{pdb_id}.pdb", spec)
    residues = len(spec.sequence.replace("/", ""))
    assert report["sequence"] == spec.sequence and topology.getNumResidues() == residues
    # About 15-20 atoms per residue with hydrogens.
    assert 10 * residues < topology.getNumAtoms() < 22 * residues

    implicit, modeller, _ = build_system("implicit", topology, positions, {})
    info = describe(implicit, modeller.topology, residues)
    assert info["protein_net_charge"] == pytest.approx(_expected_charge(spec.sequence), abs=1e-4)
    context = openmm.Context(implicit, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"))
    context.setPositions(positions)
    assert np.isfinite(context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole))

    explicit, solvated, _ = build_system("explicit", topology, positions, {"box_shape": "dodecahedron"})
    boxed = describe(explicit, solvated.topology, residues)
    assert boxed["net_charge"] == pytest.approx(0.0, abs=1e-4) and boxed["waters"] > 300
    assert min(boxed["ions"].values()) >= 1
