"""Rerun the agent's topology in GROMACS and compare term by term with the input System in OpenMM."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

import numpy as np
from verifykit import gmx as run_gmx
from verifykit import gmx_error, load_json, main

MDP = "integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = Cut-off\nrcoulomb = 1.5\nrvdw = 1.5\n"
TERMS = {
    "bond": ("HarmonicBondForce", ("Bond",)),
    "angle": ("HarmonicAngleForce", ("Angle",)),
    "torsion": ("PeriodicTorsionForce", ("Proper Dih.", "Per. Imp. Dih.", "Improper Dih.")),
}


ONE_4PI_EPS0 = 138.935456  # kJ mol^-1 nm e^-2, OpenMM's Coulomb constant


def exceptions_energy(system, xyz):
    """The energy (kJ/mol) of the System's non-bonded exceptions (its scaled 1-4 pairs; the excluded 1-2 and 1-3
    pairs carry zero) at ``xyz`` (nm): Coulomb and Lennard-Jones, no cutoff, as OpenMM computes them."""
    import openmm

    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    total = 0.0
    for k in range(nonbonded.getNumExceptions()):
        i, j, qq, sigma, epsilon = nonbonded.getExceptionParameters(k)
        qq, sigma, epsilon = qq._value, sigma._value, epsilon._value
        if qq == 0 and epsilon == 0:
            continue
        r = float(np.linalg.norm(np.asarray(xyz[i]) - np.asarray(xyz[j])))
        total += ONE_4PI_EPS0 * qq / r + 4 * epsilon * ((sigma / r) ** 12 - (sigma / r) ** 6)
    return total


# verifykit.gmx with this verifier's time limit per command
gmx = partial(run_gmx, timeout=120)


def verify(checks):
    import openmm

    work = tempfile.mkdtemp()
    shutil.copytree("/app/output", os.path.join(work, "out"))
    out = os.path.join(work, "out")
    open(os.path.join(out, "rerun.mdp"), "w").write(MDP)
    code, log = gmx(
        "grompp", "-f", "rerun.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "rerun.tpr", "-maxwarn", "1", cwd=out
    )
    checks.require(
        "grompp accepts topol.top + conf.gro (self-contained)",
        code == 0,
        gmx_error(log),
    )
    system = openmm.XmlSerializer.deserialize(open("/app/inputs/system.xml").read())
    xyz = None
    with checks.check("conf.gro: the System's atoms in order, cubic 5 nm box"):
        lines = open(f"{out}/conf.gro").read().splitlines()
        n = int(lines[1])
        assert n == system.getNumParticles(), f"{n} atoms, the System has {system.getNumParticles()}"
        pdb_names = [l[12:16].strip() for l in open("/app/inputs/peptide.pdb") if l.startswith(("ATOM", "HETATM"))]
        assert [l[10:15].strip() for l in lines[2 : 2 + n]] == pdb_names, "atom order differs from peptide.pdb"
        xyz = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + n]])
        box = [float(v) for v in lines[2 + n].split()]
        assert len(box) == 3 and all(abs(b - 5.0) < 1e-3 for b in box), f"box {box}"
    with checks.check(
        "topol.top's charges, masses and Lennard-Jones parameters are the System's (ParmEd reads it back)"
    ):
        import parmed

        parmed.gromacs.GROMACS_TOPDIR = "/usr/share/gromacs/top"
        structure = parmed.load_file(f"{out}/topol.top", xyz=f"{out}/conf.gro")
        nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
        params = [nonbonded.getParticleParameters(i) for i in range(system.getNumParticles())]
        assert len(structure.atoms) == len(params), f"{len(structure.atoms)} atoms in topol.top"
        q = np.array([p[0]._value for p in params])
        sigma, epsilon = np.array([p[1]._value for p in params]), np.array([p[2]._value for p in params])
        mass = np.array([system.getParticleMass(i)._value for i in range(system.getNumParticles())])
        got_q = np.array([a.charge for a in structure.atoms])
        got_mass = np.array([a.mass for a in structure.atoms])
        got_sigma = np.array([a.atom_type.sigma / 10 for a in structure.atoms])  # angstrom -> nm
        got_epsilon = np.array([a.atom_type.epsilon * 4.184 for a in structure.atoms])  # kcal/mol -> kJ/mol
        assert np.allclose(got_q, q, atol=1e-4), f"charges differ by up to {np.abs(got_q - q).max():.4f} e"
        # masses as the topology prints them (ParmEd writes 14.01 for 14.0067): 0.01 amu
        assert np.allclose(got_mass, mass, atol=1e-2), f"masses differ by up to {np.abs(got_mass - mass).max():.4f}"
        lj = epsilon > 0  # sigma means nothing where epsilon is zero
        assert np.allclose(got_epsilon, epsilon, rtol=1e-4, atol=1e-6), "Lennard-Jones epsilon differs"
        assert np.allclose(got_sigma[lj], sigma[lj], rtol=1e-4), "Lennard-Jones sigma differs"
    reference = {}
    if code == 0:
        gmx("mdrun", "-s", "rerun.tpr", "-rerun", "conf.gro", "-deffnm", "rerun", "-nt", "1", cwd=out)
        gmx(
            "energy",
            "-f",
            "rerun.edr",
            "-o",
            "rerun.xvg",
            cwd=out,
            stdin="Bond\nAngle\nProper-Dih.\nPer.-Imp.-Dih.\nImproper-Dih.\nLJ-14\nCoulomb-14\n\n",
        )
        text = open(f"{out}/rerun.xvg").read() if os.path.exists(f"{out}/rerun.xvg") else ""
        if text:
            row = dict(
                zip(
                    re.findall(r'^@ s\d+ legend "(.*)"', text, re.M),
                    np.loadtxt(f"{out}/rerun.xvg", comments=("#", "@"), ndmin=2)[0, 1:],
                )
            )
            reference = {key: sum(row.get(name, 0.0) for name in names) for key, (_, names) in TERMS.items()}
            if "LJ-14" in row and "Coulomb-14" in row:
                reference["1-4"] = row["LJ-14"] + row["Coulomb-14"]
    computed = {}
    if xyz is not None:
        groups = {}
        for i, force in enumerate(system.getForces()):
            force.setForceGroup(i)
            groups[type(force).__name__] = i
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(xyz)
        computed = {
            key: context.getState(getEnergy=True, groups={groups[name]}).getPotentialEnergy()._value
            for key, (name, _) in TERMS.items()
        }
        computed["1-4"] = exceptions_energy(system, xyz)
    for key in TERMS:
        with checks.check(f"GROMACS {key} energy equals OpenMM's at conf.gro"):
            assert key in reference and key in computed, "no rerun or no coordinates"
            assert abs(reference[key] - computed[key]) <= max(0.05, 5e-4 * abs(computed[key])), (
                f"GROMACS {reference[key]:.3f}, OpenMM {computed[key]:.3f} kJ/mol"
            )
    with checks.check("GROMACS 1-4 energy (LJ-14 + Coulomb-14) equals OpenMM's exceptions at conf.gro"):
        # the scaled 1-4 pairs are the part of the non-bonded force field that per-atom charges and Lennard-Jones
        # parameters do not fix: fudgeQQ 1 for Amber's 1/1.2, or fudgeLJ 1 with unscaled pair parameters, changes them
        # by 20 % or more; the same tolerance as the bonded terms
        assert "1-4" in reference and "1-4" in computed, "no rerun or no coordinates"
        assert abs(reference["1-4"] - computed["1-4"]) <= max(0.05, 5e-4 * abs(computed["1-4"])), (
            f"GROMACS {reference['1-4']:.3f}, OpenMM {computed['1-4']:.3f} kJ/mol"
        )
    with checks.check("energies.json reports both sides"):
        report = load_json("/app/output/energies.json")
        for key in TERMS:
            assert abs(float(report["gromacs"][key]) - reference[key]) <= max(0.02, 2e-4 * abs(reference[key])), (
                f"gromacs {key}"
            )
            assert abs(float(report["openmm"][key]) - computed[key]) <= max(0.02, 2e-4 * abs(computed[key])), (
                f"openmm {key}"
            )
    with checks.check("the GROMACS numbers come from GROMACS, not copied from OpenMM"):
        # GROMACS (mixed precision) and OpenMM differ in the last digits of a faithful conversion; a gmx rerun
        # reproduces GROMACS's own digits. A term resolved (>= 1e-4 kJ/mol apart) must be reported nearer GROMACS's.
        report = load_json("/app/output/energies.json")
        assert reference and computed, "no rerun or no coordinates"
        resolved = [key for key in TERMS if abs(reference[key] - computed[key]) >= 1e-4]
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
