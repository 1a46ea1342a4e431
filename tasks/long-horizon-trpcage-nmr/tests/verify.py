"""Load the deliverables with OpenMM and mdtraj, recompute the analysis against the experimental model 1."""

import csv
import sys

import mdtraj
import numpy as np
import openmm
from openmm import app, unit
from verifykit import count_fraction, load_json, main, openmm_integrator_differences, openmm_system_differences

OUT = "/app/output"


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
    nmr_models = mdtraj.load("/app/inputs/1L2Y.pdb")
    nmr = nmr_models[0]
    pdb = None
    with checks.check("minimized.pdb: Trp-cage with Amber14 hydrogens (createSystem accepts it)"):
        pdb = app.PDBFile(f"{OUT}/minimized.pdb")
        system = app.ForceField("amber14-all.xml", "implicit/gbn2.xml").createSystem(
            pdb.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds
        )
        assert pdb.topology.getNumResidues() == 20, f"{pdb.topology.getNumResidues()} residues"
        assert sum(1 for a in pdb.topology.atoms() if a.element.symbol == "H") > 100, "hydrogens missing"
    minimized = None
    with checks.check("it is model 1, minimized (closest model, C-alpha RMSD < 0.1 nm, negative energy)"):
        minimized = mdtraj.load(f"{OUT}/minimized.pdb")
        ca, nmr_ca = minimized.topology.select("name CA"), nmr.topology.select("name CA")
        distances = [
            mdtraj.rmsd(minimized, nmr_models, frame=k, atom_indices=ca, ref_atom_indices=nmr_ca)[0]
            for k in range(nmr_models.n_frames)
        ]
        assert int(np.argmin(distances)) == 0 and distances[0] < 0.1, (
            f"RMSD to the models {np.round(distances, 3).tolist()}"
        )
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(pdb.positions)
        energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        assert energy < 0, f"potential energy {energy:.0f} kJ/mol"
    with checks.check(
        "integrator.xml is the dynamics' integrator: LangevinMiddleIntegrator, 300 K, 1/ps, 2 fs, seed 7"
    ):
        # read back from the run's own integrator, serialized: run.json restates the instruction whatever ran
        differences = openmm_integrator_differences(
            f"{OUT}/integrator.xml",
            "LangevinMiddleIntegrator",
            temperature=300.0,
            friction=1.0,
            stepSize=0.002,
            randomSeed=7,
        )
        assert not differences, "; ".join(differences)
    with checks.check(
        "initial_state.xml: the dynamics started at the minimized structure with velocities drawn at 300 K, seed 7"
    ):
        state = openmm.XmlSerializer.deserialize(open(f"{OUT}/initial_state.xml").read())
        assert isinstance(state, openmm.State), f"initial_state.xml holds a {type(state).__name__}, not a State"
        assert state.getTime().value_in_unit(unit.picosecond) == 0, "the state is not before the first step"
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        velocities = state.getVelocities(asNumpy=True).value_in_unit(unit.nanometer / unit.picosecond)
        assert positions.shape == (system.getNumParticles(), 3), f"{positions.shape[0]} atoms"
        moved = float(np.abs(positions - minimized.xyz[0]).max())
        assert moved < 1e-3, f"positions lie up to {moved:.3g} nm from minimized.pdb's"
        # the velocities drawn again at the stated temperature and seed, at the state's own positions (OpenMM draws
        # them alike on every platform: 6e-7 nm/ps between CPU and Reference); 1 K off moves the largest by about
        # 0.007 nm/ps (0.5 K: 0.004), another seed or an unseeded draw by about 5. In a context of the run's own
        # System and integrator (system.xml, integrator.xml: each compared with the task's by its own check), since a
        # State reports a leapfrog integrator's velocities shifted half a step by the forces: another force field
        # (OBC2: 0.07 nm/ps) or step (0.06) would otherwise fail here for a mistake made elsewhere.
        context = openmm.Context(
            openmm.XmlSerializer.deserialize(open(f"{OUT}/system.xml").read()),
            openmm.XmlSerializer.deserialize(open(f"{OUT}/integrator.xml").read()),
            openmm.Platform.getPlatformByName("Reference"),
        )
        context.setPositions(positions)
        context.setVelocitiesToTemperature(300 * unit.kelvin, 7)
        expected = context.getState(getVelocities=True).getVelocities(asNumpy=True)
        deviation = float(np.abs(velocities - expected.value_in_unit(unit.nanometer / unit.picosecond)).max())
        assert deviation < 1e-4, (
            f"the velocities differ from those drawn at 300 K with seed 7 by up to {deviation:.3g} nm/ps"
        )
    with checks.check("system.xml is the task's system: amber14-all + GBn2, no cut-off, bonds to hydrogen constrained"):
        differences = openmm_system_differences(f"{OUT}/system.xml", system, pdb.positions)
        assert not differences, "; ".join(differences)
    trajectory = None
    with checks.check("trajectory.dcd: 10 physical frames of that topology"):
        trajectory = mdtraj.load(f"{OUT}/trajectory.dcd", top=f"{OUT}/minimized.pdb")
        assert trajectory.n_frames == 10, f"{trajectory.n_frames} frames"
        bonds = np.array([[b[0].index, b[1].index] for b in trajectory.topology.bonds])
        lengths = mdtraj.compute_distances(trajectory, bonds)
        assert np.isfinite(lengths).all() and lengths.max() < 0.2 and lengths.min() > 0.08, "bonds broken"
    with checks.check("trajectory.dcd was written every 100 steps of 2 fs (its header: 0.2 ps per frame)"):
        interval, dt_ps = dcd_header(f"{OUT}/trajectory.dcd")
        assert abs(dt_ps - 0.002) < 1e-6 and interval == 100, (
            f"the DCD records a {dt_ps * 1000:.3f} fs step and a frame every {interval} steps"
        )
    with checks.check("bonds to hydrogen are constrained and only those (bond lengths over the frames)"):
        bonds = list(trajectory.topology.bonds)
        hydrogen = [(a.index, b.index) for a, b in bonds if (a.element.symbol == "H") != (b.element.symbol == "H")]
        heavy = [(a.index, b.index) for a, b in bonds if a.element.symbol != "H" and b.element.symbol != "H"]
        spread_h = np.ptp(mdtraj.compute_distances(trajectory, hydrogen), axis=0).max()
        spread_heavy = np.median(np.ptp(mdtraj.compute_distances(trajectory, heavy), axis=0))
        # constrained bonds keep their length to the DCD's float32 precision; free heavy-atom bonds vibrate by
        # about 0.01 nm over 10 frames at 300 K
        assert spread_h < 5e-4, f"bonds to hydrogen vary by up to {spread_h:.4f} nm: not constrained"
        assert spread_heavy > 2e-3, f"heavy-atom bonds vary by {spread_heavy:.4f} nm (median): constrained too"
    with checks.check(
        "the frames are dynamics: each moved from the last and from the minimized structure (RMSD >= 0.01 nm)"
    ):
        start = mdtraj.load(f"{OUT}/minimized.pdb")
        steps = [float(mdtraj.rmsd(trajectory[0], start)[0])] + [
            float(mdtraj.rmsd(trajectory[i], trajectory[i - 1])[0]) for i in range(1, trajectory.n_frames)
        ]
        assert min(steps) >= 0.01, f"a frame barely differs from the one before (RMSD {min(steps):.4f} nm)"
    with checks.check(
        "the frames are a thermal sample at 300 K: each lies 0.15-1.0"
        " n_dof kT above the minimum in potential energy (equipartition: 0.5)"
    ):
        # the frames' own physics under the task's System: frames that were not integrated (noise or hand-made moves
        # on the minimized structure) cost far more energy than 300 K gives; measured 0.29-0.51 on real runs
        excess = thermal_excess(system, pdb.positions, trajectory.xyz, 300.0)
        outside = [i for i, value in enumerate(excess) if not 0.15 <= value <= 1.0]
        assert not outside, (
            f"frames {outside} lie {np.round(excess[outside], 2).tolist()} n_dof kT above the minimum (a 300 K sample: "
            "0.5, 0.15-1.0 allowed): not frames of dynamics at 300 K"
        )
    rows = []
    with checks.check("analysis.csv has the contracted columns and times"):
        with open(f"{OUT}/analysis.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["frame", "time_ps", "ca_rmsd_nm", "helix_fraction"], (
                f"header {reader.fieldnames}"
            )
            rows = list(reader)
        assert [int(r["frame"]) for r in rows] == list(range(10)), "not 10 frames"
        assert np.allclose([float(r["time_ps"]) for r in rows], 0.2 * np.arange(1, 11), atol=1e-3), "times differ"
    rmsd = None
    with checks.check("C-alpha RMSD to the experimental model 1 matches the trajectory"):
        rmsd = mdtraj.rmsd(
            trajectory,
            nmr,
            atom_indices=trajectory.topology.select("name CA"),
            ref_atom_indices=nmr.topology.select("name CA"),
        )
        assert np.allclose([float(r["ca_rmsd_nm"]) for r in rows], rmsd, rtol=0.0, atol=6e-4), (
            "RMSD differs (reference must be the NMR model 1)"
        )
    with checks.check("helix fraction (simplified DSSP) matches the trajectory"):
        dssp = mdtraj.compute_dssp(trajectory, simplified=True)
        helical, residues = (dssp == "H").sum(axis=1), dssp.shape[1]
        got = [float(r["helix_fraction"]) for r in rows]
        # Each frame's helical residues counted (count_fraction: on the 1 / 20 lattice), exact on every frame but one,
        # which may be one residue off: a hydrogen bond at DSSP's threshold can read differently from float32 frames
        # than from the agent's float64 positions. A tolerance of 0.051 passed one residue off on every frame; a
        # denominator other than 20, or any systematic miscount, now fails.
        off = [i for i, (v, c) in enumerate(zip(got, helical)) if not count_fraction(v, int(c), residues)]
        assert len(off) <= 1 and all(
            count_fraction(got[i], (int(helical[i]) - 1, int(helical[i]) + 1), residues) for i in off
        ), f"helix fraction differs: {got} vs {[int(c) for c in helical]} of {residues} residues"
    with checks.check("run.json records the settings"):
        run = load_json(f"{OUT}/run.json")
        assert (run["model"], run["seed"], run["steps"], float(run["timestep_fs"]), float(run["temperature_k"])) == (
            1,
            7,
            1000,
            2.0,
            300.0,
        ), f"{run}"
        assert run["forcefield"] == ["amber14-all.xml", "implicit/gbn2.xml"], f"forcefield {run['forcefield']}"
    with checks.check("report.md states the mean C-alpha RMSD (3 decimals)"):
        assert rmsd is not None and f"{rmsd.mean():.3f}" in open(f"{OUT}/report.md").read(), (
            "mean RMSD not in report.md"
        )


sys.exit(main(verify))
