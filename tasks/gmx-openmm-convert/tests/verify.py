"""Evaluate the agent's System with OpenMM and compare with the verifier's own gmx rerun and ParmEd reading."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from verifykit import load_json, main

TERMS = {
    "bond": ("HarmonicBondForce", ("Bond",)),
    "angle": ("HarmonicAngleForce", ("Angle",)),
    "torsion": ("PeriodicTorsionForce", ("Proper Dih.", "Per. Imp. Dih.")),
}
MDP = "integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = Cut-off\nrcoulomb = 1.5\nrvdw = 1.5\n"


def gromacs_terms():
    work = tempfile.mkdtemp()
    for name in ("topol.top", "posre.itp", "conf.gro"):
        shutil.copy(f"/app/inputs/{name}", work)
    open(os.path.join(work, "rerun.mdp"), "w").write(MDP)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for command in (
        ["grompp", "-f", "rerun.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "rerun.tpr", "-maxwarn", "1"],
        ["mdrun", "-s", "rerun.tpr", "-rerun", "conf.gro", "-deffnm", "rerun", "-nt", "1"],
    ):
        subprocess.run(["gmx", "-quiet", *command], cwd=work, env=env, capture_output=True, check=True, timeout=120)
    subprocess.run(
        ["gmx", "-quiet", "energy", "-f", "rerun.edr", "-o", "rerun.xvg"],
        input="Bond\nAngle\nProper-Dih.\nPer.-Imp.-Dih.\nLJ-14\nCoulomb-14\n\n",
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    text = open(os.path.join(work, "rerun.xvg")).read()
    row = dict(
        zip(
            re.findall(r'^@ s\d+ legend "(.*)"', text, re.M),
            np.loadtxt(os.path.join(work, "rerun.xvg"), comments=("#", "@"), ndmin=2)[0, 1:],
        )
    )
    terms = {key: sum(row.get(name, 0.0) for name in names) for key, (_, names) in TERMS.items()}
    return {**terms, "pairs": row.get("LJ-14", 0.0) + row.get("Coulomb-14", 0.0)}


def exception_energy(system, positions):
    """The energy of a System's NonbondedForce exceptions alone (the 1-4 pairs): every particle's charge and
    Lennard-Jones depth set to zero, the exceptions kept as they are."""
    import copy

    import openmm

    system = copy.deepcopy(system)
    index = next(i for i, f in enumerate(system.getForces()) if isinstance(f, openmm.NonbondedForce))
    for i, force in enumerate(system.getForces()):
        force.setForceGroup(min(i, 31))
    force = system.getForce(index)
    for i in range(force.getNumParticles()):
        _, sigma, _ = force.getParticleParameters(i)
        force.setParticleParameters(i, 0.0, sigma, 0.0)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)
    return context.getState(getEnergy=True, groups={min(index, 31)}).getPotentialEnergy()._value


def verify(checks):
    import openmm
    import parmed

    reference = gromacs_terms()
    lines = open("/app/inputs/conf.gro").read().splitlines()
    n_atoms = int(lines[1])
    positions = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + n_atoms]])
    parmed.gromacs.GROMACS_TOPDIR = "/usr/share/gromacs/top"
    structure = parmed.load_file("/app/inputs/topol.top", xyz="/app/inputs/conf.gro")
    system = None
    with checks.check("system.xml deserializes to an OpenMM System with conf.gro's atoms"):
        system = openmm.XmlSerializer.deserialize(open("/app/output/system.xml").read())
        assert system.getNumParticles() == n_atoms, f"{system.getNumParticles()} particles, conf.gro has {n_atoms}"
    if system is None:
        # the same list of checks as with a System, each failed
        for name in (
            "no constraints, no cutoff",
            "charges and masses are the topology's",
            "Lennard-Jones parameters are the topology's (sigma and epsilon of every atom)",
            *(f"{key} energy of the System equals GROMACS's ({reference[key]:.3f} kJ/mol)" for key in TERMS),
            "1-4 pair interactions of the System equal GROMACS's (LJ-14 + Coulomb-14, scaled as the topology says)",
            "energies.json reports both sides",
            "the GROMACS numbers come from GROMACS, not copied from OpenMM",
        ):
            checks.require(name, False, "no system: /app/output/system.xml missing or unreadable")
        return
    with checks.check("no constraints, no cutoff"):
        assert system.getNumConstraints() == 0, f"{system.getNumConstraints()} constraints"
        nonbonded = [f for f in system.getForces() if isinstance(f, openmm.NonbondedForce)]
        assert len(nonbonded) == 1 and nonbonded[0].getNonbondedMethod() == openmm.NonbondedForce.NoCutoff, (
            "NonbondedForce is not NoCutoff"
        )
    with checks.check("charges and masses are the topology's"):
        nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
        charges = np.array([nonbonded.getParticleParameters(i)[0]._value for i in range(n_atoms)])
        masses = np.array([system.getParticleMass(i)._value for i in range(n_atoms)])
        assert np.allclose(charges, [a.charge for a in structure.atoms], atol=1e-4), "charges differ"
        assert np.allclose(masses, [a.mass for a in structure.atoms], atol=1e-3), "masses differ"
    with checks.check("Lennard-Jones parameters are the topology's (sigma and epsilon of every atom)"):
        nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
        params = [nonbonded.getParticleParameters(i) for i in range(n_atoms)]
        sigma, epsilon = np.array([p[1]._value for p in params]), np.array([p[2]._value for p in params])
        want_sigma = np.array([a.atom_type.sigma / 10 for a in structure.atoms])  # angstrom -> nm
        want_epsilon = np.array([a.atom_type.epsilon * 4.184 for a in structure.atoms])  # kcal/mol -> kJ/mol
        assert np.allclose(epsilon, want_epsilon, rtol=1e-4, atol=1e-6), "Lennard-Jones epsilon differs"
        lj = want_epsilon > 0  # sigma means nothing where epsilon is zero
        assert np.allclose(sigma[lj], want_sigma[lj], rtol=1e-4), "Lennard-Jones sigma differs"
    forces = {}
    for i, force in enumerate(system.getForces()):
        force.setForceGroup(min(i, 31))
        forces.setdefault(type(force).__name__, set()).add(min(i, 31))
    context, context_error = None, ""
    try:  # an invalid System (an index out of range, an impossible angle) fails the energy checks, not the verifier
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(positions)
    except Exception as exc:  # noqa: BLE001
        context_error = f"OpenMM refuses the System: {type(exc).__name__}: {exc}"
    computed = {}
    for key, (force_name, _) in TERMS.items():
        with checks.check(f"{key} energy of the System equals GROMACS's ({reference[key]:.3f} kJ/mol)"):
            assert force_name in forces, f"no {force_name}"
            assert context is not None, context_error
            computed[key] = context.getState(getEnergy=True, groups=forces[force_name]).getPotentialEnergy()._value
            assert abs(computed[key] - reference[key]) <= max(0.02, 2e-4 * abs(reference[key])), (
                f"OpenMM {computed[key]:.4f} kJ/mol"
            )
    with checks.check(
        "1-4 pair interactions of the System equal GROMACS's (LJ-14 + Coulomb-14, scaled as the topology says)"
    ):
        pairs = exception_energy(system, positions)
        assert abs(pairs - reference["pairs"]) <= max(0.02, 2e-4 * abs(reference["pairs"])), (
            f"OpenMM's exceptions {pairs:.3f} kJ/mol, GROMACS's 1-4 pairs {reference['pairs']:.3f}"
        )
    with checks.check("energies.json reports both sides"):
        report = load_json("/app/output/energies.json")
        for key in TERMS:
            assert abs(float(report["gromacs"][key]) - reference[key]) <= max(0.02, 2e-4 * abs(reference[key])), (
                f"gromacs {key} {report['gromacs'][key]}"
            )
            assert abs(float(report["openmm"][key]) - computed.get(key, np.nan)) <= 0.01, (
                f"openmm {key} {report['openmm'][key]}"
            )
    with checks.check("the GROMACS numbers come from GROMACS, not copied from OpenMM"):
        # GROMACS (mixed precision) and OpenMM differ in the last digits of a faithful conversion; a gmx rerun
        # reproduces GROMACS's own digits. A term resolved (>= 1e-4 kJ/mol apart) must be reported nearer GROMACS's.
        report = load_json("/app/output/energies.json")
        resolved = [key for key in TERMS if key in computed and abs(reference[key] - computed[key]) >= 1e-4]
        nearer = [
            key
            for key in resolved
            if abs(float(report["gromacs"][key]) - reference[key]) < abs(float(report["gromacs"][key]) - computed[key])
        ]
        assert not resolved or nearer, (
            "every GROMACS value reported is OpenMM's ("
            + ", ".join(
                f"{k}: GROMACS {reference[k]:.6f}, OpenMM {computed[k]:.6f}, reported {float(report['gromacs'][k]):.6f}"
                for k in resolved
            )
            + ")"
        )


sys.exit(main(verify))
