"""Load the deliverables with mdtraj and OpenMM, recompute the analysis, check the report and provenance."""

import csv
import sys

import mdtraj
import numpy as np
import openmm
from openmm import app, unit
from verifykit import load_json, main, openmm_integrator_differences, openmm_system_differences

OUT = "/app/output"
NAMES = (
    "minimized.pdb has all hydrogens (Amber14 templates match)",
    "minimized structure has low energy and is a minimum (a second minimization gains <= 10 kJ/mol)",
    "trajectory.dcd holds 10 frames of that topology",
    "frames are physical (bonds intact)",
    "analysis.csv has the contracted columns",
    "RMSD matches the trajectory",
    "Rg matches the trajectory",
    "run.json records the settings",
    "report.md states the mean Rg",
    "the frames are dynamics: each moved from the last and from the minimized structure (RMSD >= 0.01 nm)",
    "trajectory.dcd was written every 100 steps of 2 fs (its header: 0.2 ps per frame)",
    "bonds to hydrogen are constrained and only those (bond lengths over the frames)",
    "integrator.xml is the dynamics' integrator: LangevinMiddleIntegrator, 300 K, 1/ps, 2 fs, seed 42",
    "system.xml is the task's system: amber14-all + GBn2, no cut-off, bonds to hydrogen constrained",
)


def dcd_header(path):
    """(steps between frames, timestep in ps) from a DCD file's header, as OpenMM's DCDReporter writes it."""
    import struct

    with open(path, "rb") as handle:
        head = handle.read(92)
    assert head[4:8] == b"CORD", "not a DCD file"
    interval = struct.unpack("<i", head[16:20])[0]
    delta_akma = struct.unpack("<f", head[44:48])[0]
    return interval, delta_akma * 0.04888821  # AKMA time unit in ps


def thermal_excess(system, start_positions, frames_nm, temperature_k):
    """Each frame's potential energy above the local minimum next to ``start_positions``, in units of n_dof kT.

    n_dof: 3N less the constraints and, with a CMMotionRemover, 3. Equipartition puts a harmonic sample at 300 K at
    0.5 (a Gamma distribution with n_dof / 2 degrees: a spread of 0.04 for Trp-cage, 0.05 for chignolin); frames
    written without dynamics (noise on the minimized structure that keeps bonds and moves 0.01 nm) sit above 1.5.
    """
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(start_positions)
    openmm.LocalEnergyMinimizer.minimize(context, 10.0, 0)
    energy = lambda: context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)  # noqa: E731
    minimum, excess = energy(), []
    for xyz in frames_nm:
        context.setPositions(np.asarray(xyz, dtype=float))
        excess.append(energy() - minimum)
    forces = [system.getForce(i) for i in range(system.getNumForces())]
    removed = 3 if any(isinstance(force, openmm.CMMotionRemover) for force in forces) else 0
    n_dof = 3 * system.getNumParticles() - system.getNumConstraints() - removed
    kt = unit.MOLAR_GAS_CONSTANT_R.value_in_unit(unit.kilojoule_per_mole / unit.kelvin) * temperature_k
    return np.array(excess) / (n_dof * kt)


def verify(checks):
    topology = trajectory = None
    with checks.check(NAMES[0]):
        pdb = app.PDBFile(f"{OUT}/minimized.pdb")
        forcefield = app.ForceField("amber14-all.xml", "implicit/gbn2.xml")
        system = forcefield.createSystem(pdb.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
        assert pdb.topology.getNumAtoms() == 138, f"{pdb.topology.getNumAtoms()} atoms, chignolin at pH 7 has 138"
        topology = pdb
    with checks.check(NAMES[1]):
        integrator = openmm.VerletIntegrator(0.001)
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(topology.positions)
        energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        assert energy < 0, f"potential energy {energy:.0f} kJ/mol: not minimized"
        # measured, not assumed: minimizing it again gains almost nothing (0-2 kJ/mol after the PDB's rounding for
        # the reference's minimum; 17.6 kJ/mol for the hydrogens-added structure left unminimized)
        openmm.LocalEnergyMinimizer.minimize(context, 10.0, 0)
        again = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        assert energy - again <= 10.0, f"minimizing it again lowers the energy by {energy - again:.1f} kJ/mol"
    with checks.check(NAMES[2]):
        trajectory = mdtraj.load(f"{OUT}/trajectory.dcd", top=f"{OUT}/minimized.pdb")
        assert trajectory.n_frames == 10, f"{trajectory.n_frames} frames"
    with checks.check(NAMES[3]):
        assert np.all(np.isfinite(trajectory.xyz)), "coordinates not finite"
        bonds = np.array([[b[0].index, b[1].index] for b in trajectory.topology.bonds])
        lengths = mdtraj.compute_distances(trajectory, bonds)
        assert lengths.max() < 0.2 and lengths.min() > 0.08, f"bond lengths {lengths.min():.3f}..{lengths.max():.3f} nm"
    with checks.check(NAMES[9]):
        start = mdtraj.load(f"{OUT}/minimized.pdb")
        steps = [float(mdtraj.rmsd(trajectory[i], trajectory[i - 1])[0]) for i in range(1, trajectory.n_frames)]
        steps.insert(0, float(mdtraj.rmsd(trajectory[0], start)[0]))
        still = [i for i, value in enumerate(steps) if value < 0.01]
        assert not still, (
            f"frames {still} barely differ from the frame before (RMSD {min(steps):.4f} nm): 0.2 ps of "
            "Langevin dynamics at 300 K moves the atoms more; was the MD run?"
        )
    with checks.check(
        "the frames are a thermal sample at 300 K: each lies 0.15-1.0"
        " n_dof kT above the minimum in potential energy (equipartition: 0.5)"
    ):
        # the frames' own physics under the task's System: frames that were not integrated (noise or hand-made moves
        # on the minimized structure) cost far more energy than 300 K gives; measured 0.29-0.51 on real runs
        excess = thermal_excess(system, topology.positions, trajectory.xyz, 300.0)
        outside = [i for i, value in enumerate(excess) if not 0.15 <= value <= 1.0]
        assert not outside, (
            f"frames {outside} lie {np.round(excess[outside], 2).tolist()} n_dof kT above the minimum (a 300 K sample: "
            "0.5, 0.15-1.0 allowed): not frames of dynamics at 300 K"
        )
    with checks.check(NAMES[10]):
        interval, dt_ps = dcd_header(f"{OUT}/trajectory.dcd")
        assert abs(dt_ps - 0.002) < 1e-6 and abs(interval * dt_ps - 0.2) < 1e-6, (
            f"the DCD records a {dt_ps * 1000:.3f} fs step and a frame every {interval} steps"
        )
    with checks.check(NAMES[11]):
        hydrogen = [
            (b[0].index, b[1].index)
            for b in trajectory.topology.bonds
            if (b[0].element.symbol == "H") != (b[1].element.symbol == "H")
        ]
        heavy = [
            (b[0].index, b[1].index)
            for b in trajectory.topology.bonds
            if b[0].element.symbol != "H" and b[1].element.symbol != "H"
        ]
        spread_h = np.ptp(mdtraj.compute_distances(trajectory, hydrogen), axis=0).max()
        spread_heavy = np.median(np.ptp(mdtraj.compute_distances(trajectory, heavy), axis=0))
        # constrained bonds keep their length to the DCD's float32 precision; free heavy-atom bonds vibrate by
        # about 0.01 nm over 10 frames at 300 K
        assert spread_h < 5e-4, f"bonds to hydrogen vary by up to {spread_h:.4f} nm: not constrained"
        assert spread_heavy > 2e-3, f"heavy-atom bonds vary by {spread_heavy:.4f} nm (median): constrained too"
    with checks.check(NAMES[12]):
        # read back from the run's own integrator, serialized: run.json restates the instruction whatever ran
        differences = openmm_integrator_differences(
            f"{OUT}/integrator.xml",
            "LangevinMiddleIntegrator",
            temperature=300.0,
            friction=1.0,
            stepSize=0.002,
            randomSeed=42,
        )
        assert not differences, "; ".join(differences)
    with checks.check(NAMES[13]):
        differences = openmm_system_differences(f"{OUT}/system.xml", system, topology.positions)
        assert not differences, "; ".join(differences)
    rows = None
    with checks.check(NAMES[4]):
        with open(f"{OUT}/analysis.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["frame", "time_ps", "rmsd_nm", "rg_nm"], f"header {reader.fieldnames}"
            rows = list(reader)
        assert [int(r["frame"]) for r in rows] == list(range(10)), "not 10 frames"
        assert np.allclose([float(r["time_ps"]) for r in rows], 0.2 * np.arange(1, 11), atol=1e-3), "times differ"
    ca = trajectory.topology.select("name CA") if trajectory is not None else None
    with checks.check(NAMES[5]):
        rmsd = mdtraj.rmsd(trajectory, mdtraj.load(f"{OUT}/minimized.pdb"), atom_indices=ca)
        assert np.allclose([float(r["rmsd_nm"]) for r in rows], rmsd, rtol=0.0, atol=6e-4), (
            "RMSD differs from the trajectory"
        )
    rg = None
    with checks.check(NAMES[6]):
        rg = mdtraj.compute_rg(trajectory.atom_slice(ca))
        assert np.allclose([float(r["rg_nm"]) for r in rows], rg, rtol=0.0, atol=6e-4), "Rg differs from the trajectory"
    with checks.check(NAMES[7]):
        run = load_json(f"{OUT}/run.json")
        assert (run["seed"], run["steps"], float(run["timestep_fs"]), float(run["temperature_k"])) == (
            42,
            1000,
            2.0,
            300.0,
        ), f"{run}"
        assert run["forcefield"] == ["amber14-all.xml", "implicit/gbn2.xml"] and run["openmm_version"], (
            "forcefield/version"
        )
    with checks.check(NAMES[8]):
        text = open(f"{OUT}/report.md").read()
        assert rg is not None and f"{rg.mean():.3f}" in text, (
            f"mean Rg {rg.mean():.3f} nm not in report.md" if rg is not None else "no Rg"
        )


sys.exit(main(verify))
