"""OpenMM systems: implicit and explicit solvent, minimization, serialization, platform fallback."""

import logging

import numpy as np
import openmm
import pytest
from openmm import app, unit

from westbench.prepare.fixer import fix_structure
from westbench.simulation.integration import minimize
from westbench.simulation.systems import build_system, describe, write_system
from westbench.structures.peptide import write_extended_peptide

SMALL = {"box_shape": "dodecahedron", "padding_nm": 0.8, "minimize_max_iterations": 20}


@pytest.fixture(scope="module")
def chignolin(tmp_path_factory):
    from westbench.config import ProteinSpec

    path = tmp_path_factory.mktemp("chignolin") / "in.pdb"
    write_extended_peptide("GYDPETGTWG", path)
    spec = ProteinSpec("chignolin", "Chignolin", None, "GYDPETGTWG", None, None, "sequence", None)
    topology, positions, _ = fix_structure(path, spec, seed=3)
    return topology, positions


def test_implicit_system(chignolin):
    topology, positions = chignolin
    system, modeller, parameters = build_system("implicit", topology, positions, {})
    info = describe(system, modeller.topology, topology.getNumResidues())
    assert info["atoms"] == 138 and info["waters"] == 0 and info["box_vectors_nm"] is None
    assert info["protein_net_charge"] == pytest.approx(-2.0)  # Asp3, Glu5; termini cancel
    assert "CustomGBForce" in info["forces"] and parameters["nonbonded_method"] == "NoCutoff"
    # HBonds constraints and 1.5 amu hydrogens, as published.
    h = next(a.index for a in topology.atoms() if a.element.symbol == "H")
    assert system.getParticleMass(h).value_in_unit(unit.amu) == pytest.approx(1.5)
    assert system.getNumConstraints() == sum(1 for a in topology.atoms() if a.element.symbol == "H")


def test_explicit_system_neutral_at_ionic_strength(chignolin):
    topology, positions = chignolin
    system, modeller, parameters = build_system("explicit", topology, positions, SMALL, seed=11)
    info = describe(system, modeller.topology, topology.getNumResidues())
    assert info["net_charge"] == pytest.approx(0.0, abs=1e-4)
    assert info["ions"]["NA"] - info["ions"]["CL"] == 2  # neutralizes the -2 peptide
    expected_pairs = 0.15 / 55.4 * (info["waters"] + info["ions"]["NA"] + info["ions"]["CL"])
    assert abs(info["ions"]["CL"] - expected_pairs) <= 1.5
    assert "MonteCarloBarostat" in info["forces"] and parameters["ewald_error_tolerance"] == 5e-4
    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    assert nonbonded.getNonbondedMethod() == openmm.NonbondedForce.PME
    assert nonbonded.getCutoffDistance().value_in_unit(unit.nanometer) == pytest.approx(1.0)


def test_explicit_build_is_seeded(chignolin):
    topology, positions = chignolin
    ions = []
    for seed in (5, 5, 6):
        _, modeller, _ = build_system("explicit", topology, positions, SMALL, seed=seed)
        xyz = np.array(modeller.positions.value_in_unit(unit.nanometer))
        ions.append(xyz[[a.index for a in modeller.topology.atoms() if a.residue.name in ("NA", "CL")]])
    assert np.array_equal(ions[0], ions[1]) and not np.array_equal(ions[0], ions[2])


def test_minimize_and_serialize_roundtrip(chignolin, tmp_path):
    topology, positions = chignolin
    system, modeller, _ = build_system("implicit", topology, positions, {})
    state, record = minimize(system, modeller.positions, {"minimize_max_iterations": 50}, {"name": "CPU"}, threads=1)
    assert record["energy_after_kj_mol"] < record["energy_before_kj_mol"] and record["platform"] == "CPU"
    paths = [tmp_path / n for n in ("s.xml", "st.xml", "s.pdb")]
    write_system(system, state, modeller.topology, *paths)
    loaded = openmm.XmlSerializer.deserialize(paths[0].read_text())
    loaded_state = openmm.XmlSerializer.deserialize(paths[1].read_text())
    context = openmm.Context(loaded, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"))
    context.setState(loaded_state)
    energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    assert energy == pytest.approx(record["energy_after_kj_mol"], rel=1e-4)
    assert app.PDBFile(str(paths[2])).topology.getNumAtoms() == 138


def test_unavailable_platform_falls_back_with_a_log_line(chignolin, caplog):
    topology, positions = chignolin
    system, modeller, _ = build_system("implicit", topology, positions, {})
    with caplog.at_level(logging.WARNING, logger="westbench.simulation.platforms"):
        _, record = minimize(
            system, modeller.positions, {"minimize_max_iterations": 1}, {"name": "CUDA", "fallback": ["Reference"]}
        )
    assert record["platform"] == "Reference"
    assert "CUDA" in caplog.text and "falling back to Reference" in caplog.text
    assert np.isfinite(record["energy_after_kj_mol"])
