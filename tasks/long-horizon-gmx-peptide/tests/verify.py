"""Check the whole loop with gmx itself: rebuild from the topology, read the run input, rerun the analyses."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

import numpy as np
from verifykit import close, gmx_error, load_json, main, topology_includes
from verifykit import gmx as run_gmx

OUT = "/app/output"
WATER_IONS = ("SOL", "NA", "CL", "HOH")
GEN_T_TOL_K = 2  # the generated velocities' temperature (K), against gen-temp 300
RERUN_TOL = 200  # kJ/mol: each nvt.xtc frame's Potential, rerun under nvt.tpr, against nvt.edr's
REDO_TOL_NM = 0.001  # nm: RMS over every atom between nvt.xtc's 0.2-ps frame and 100 steps of nvt.tpr run again
EM_MDP = "integrator = steep\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = PME\nrcoulomb = 1.0\nrvdw = 1.0\n"


# verifykit.gmx with this verifier's working folder and time limit per command
gmx = partial(run_gmx, cwd="/tmp", timeout=240)


def xvg(path):
    return np.loadtxt(path, comments=("#", "@"), ndmin=2)


def gro_frame(path):
    """Coordinates (nm) and box matrix (rows: the box vectors) of a one-frame .gro file."""
    lines = open(path).read().splitlines()
    rows = lines[2 : 2 + int(lines[1])]
    x = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in rows])
    v = [float(f) for f in lines[2 + len(rows)].split()] + [0.0] * 6
    box = np.array([[v[0], v[3], v[4]], [v[5], v[1], v[6]], [v[7], v[8], v[2]]])
    return x, box


def rms_displacement(a, b, box):
    """RMS over atoms of the displacement a - b, each taken to its nearest periodic image (small displacements)."""
    fractions = (a - b) @ np.linalg.inv(box)
    shifts = (fractions - np.round(fractions)) @ box
    return float(np.sqrt((shifts**2).sum(axis=1).mean()))


def hydrogen_masses(dump):
    """The masses (amu) of every hydrogen (atomnumber 1) in a ``gmx dump -s`` of a run input."""
    return [
        float(m)
        for m, number in re.findall(r"atom\[\s*\d+\]=\{[^}]*?\bm=\s*(\S+),[^}]*?atomnumber=\s*(-?\d+)\}", dump)
        if number == "1"
    ]


def verify(checks):
    work = tempfile.mkdtemp()
    copy = os.path.join(work, "out")
    shutil.copytree(OUT, copy)
    open(os.path.join(copy, "check.mdp"), "w").write(EM_MDP)
    with checks.check("topol.top + em.gro rebuild with grompp -maxwarn 0 (complete, neutral)"):
        code, log = gmx(
            "grompp", "-f", "check.mdp", "-c", "em.gro", "-p", "topol.top", "-o", "check.tpr", "-maxwarn", "0", cwd=copy
        )
        assert code == 0, gmx_error(log)
    with checks.check("AMBER99SB-ILDN + TIP3P, dodecahedron box, neutralizing ions only"):
        text = open(f"{OUT}/topol.top").read()
        assert "amber99sb-ildn.ff/forcefield.itp" in text and "amber99sb-ildn.ff/tip3p.itp" in text, (
            "force field or water model"
        )
        lines = open(f"{OUT}/em.gro").read().splitlines()
        box = [float(x) for x in lines[-1].split()]
        assert len(box) == 9 and abs(box[1] - box[0]) < 1e-3 and box[2] < box[0], (
            f"box {box} is not a rhombic dodecahedron"
        )
        names = [l[5:10].strip() for l in lines[2 : 2 + int(lines[1])]]
        result = load_json(f"{OUT}/analysis.json")
        assert (names.count("NA"), names.count("CL")) == (2, 0), (
            f"{names.count('NA')} NA, {names.count('CL')} CL (neutralize -2 only)"
        )
        assert (result["sodium"], result["chloride"]) == (2, 0), "analysis.json ion counts"
    with checks.check("em.gro is minimized: maximum force below 1000 kJ mol^-1 nm^-1 (a zero-step minimization)"):
        code, log = gmx("mdrun", "-s", "check.tpr", "-deffnm", "fmax", "-nt", "1", cwd=copy)
        text = open(os.path.join(copy, "fmax.log")).read() if code == 0 else log
        found = re.search(r"Maximum force\s*=\s*([-\d.eE+]+)", text)
        assert found, "no maximum force in the zero-step minimization's log: " + log[-200:]
        assert float(found.group(1)) < 1000.0, f"maximum force {float(found.group(1)):.0f} kJ mol^-1 nm^-1 in em.gro"
    with checks.check("at least 0.8 nm between the peptide and the box (the dodecahedron's edge, measured)"):
        lines = open(f"{OUT}/em.gro").read().splitlines()
        rows = lines[2 : 2 + int(lines[1])]
        peptide = np.array(
            [[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in rows if l[5:10].strip() not in WATER_IONS]
        )
        diameter = max(np.linalg.norm(peptide - p, axis=1).max() for p in peptide)
        edge = float(lines[-1].split()[0])
        # editconf -d makes a triclinic box's edge the solute's diameter plus twice the distance; 0.05 nm covers
        # the minimization's small changes of the diameter and GRO rounding
        assert edge >= diameter + 2 * 0.8 - 0.05, f"box edge {edge:.3f} nm for a peptide {diameter:.3f} nm across"
    code, dump = gmx("dump", "-s", f"{OUT}/nvt.tpr")
    value = lambda key: (re.search(r"^\s*%s\s*=\s*(\S+)" % re.escape(key), dump, re.M) or [None, None])[1]
    with checks.check("nvt.tpr: md, 2 fs x 1000, V-rescale 300 K, h-bond constraints, PME 1.0 nm"):
        assert code == 0, "nvt.tpr unreadable"
        assert value("integrator") == "md" and value("dt") == "0.002" and value("nsteps") == "1000", (
            f"{value('integrator')} dt {value('dt')} nsteps {value('nsteps')}"
        )
        assert (value("tcoupl") or "").lower() == "v-rescale" and (value("pcoupl") or "").lower() == "no", "coupling"
        ref_t = re.search(r"ref-t:\s*([\d.\s]+)\n", dump).group(1).split()
        assert len(ref_t) == 2 and all(float(t) == 300 for t in ref_t), f"ref-t {ref_t} (Protein, Non-Protein)"
        assert re.search(r"^\s+Constraint:\s*\n\s+nr:\s*[1-9]", dump, re.M), "no constraints"
        assert value("coulombtype") == "PME" and value("rcoulomb") == "1" and value("rvdw") == "1", "electrostatics"
    with checks.check(
        "nvt.tpr: tau-t 0.1 ps for the groups Protein and Non-Protein, bonds to hydrogen constrained only"
    ):
        tau_t = re.search(r"tau-t:\s*([\d.\s]+)\n", dump).group(1).split()
        assert len(tau_t) == 2 and all(float(t) == 0.1 for t in tau_t), f"tau-t {tau_t}"
        groups = re.search(r"grp\[T-Coupling\s*\] nr=\d+, name=\[([^\]]*)\]", dump)
        assert groups and [g.lower() for g in groups.group(1).split()] == ["protein", "non-protein"], (
            f"coupling groups {groups.group(1) if groups else '?'}"
        )
        lines = open(f"{OUT}/em.gro").read().splitlines()
        hydrogens = sum(
            1
            for l in lines[2 : 2 + int(lines[1])]
            if l[5:10].strip() not in WATER_IONS and l[10:15].strip().startswith("H")
        )
        found = re.search(r"^\s+Constraint:\s*\n\s+nr:\s*(\d+)", dump, re.M)
        constraints = int(found.group(1)) // 3 if found else 0
        assert constraints == hydrogens, f"{constraints} constraints, the peptide has {hydrogens} bonds to hydrogen"
    with checks.check(
        f"velocities generated at 300 K: nvt.tpr's starting velocities (gmx traj -ot) within {GEN_T_TOL_K} K"
    ):
        # grompp scales generated velocities to gen-temp exactly (299.99 K for 300 on this system, 3 N degrees of
        # freedom, the centre of mass removed); gen-temp 310 gives 309.99 K, no generated velocities none at all
        code, log = gmx("editconf", "-f", f"{OUT}/nvt.tpr", "-o", f"{work}/start.gro")
        assert code == 0, gmx_error(log)
        code, log = gmx(
            "traj", "-s", f"{OUT}/nvt.tpr", "-f", f"{work}/start.gro", "-ot", f"{work}/start_t.xvg", stdin="System\n"
        )
        assert code == 0, gmx_error(log)
        start_t = xvg(f"{work}/start_t.xvg")
        assert start_t.size, "nvt.tpr holds no velocities: none were generated"
        assert abs(start_t[0, 1] - 300) <= GEN_T_TOL_K, f"nvt.tpr's velocities are at {start_t[0, 1]:.1f} K"
    with checks.check("nvt.edr: energies every 0.1 ps over the 2 ps (21 frames)"):
        code, log = gmx("energy", "-f", f"{OUT}/nvt.edr", "-o", f"{work}/spacing.xvg", stdin="Temperature\n\n")
        times = xvg(f"{work}/spacing.xvg")[:, 0]
        assert len(times) == 21 and np.allclose(np.diff(times), 0.1, atol=1e-6), (
            f"{len(times)} energy frames, {np.diff(times).min() if len(times) > 1 else 0:g} ps apart"
        )
    with checks.check("standard masses (no hydrogen mass repartitioning): every hydrogen 1.008 amu in nvt.tpr"):
        masses = hydrogen_masses(dump)
        assert masses, "no hydrogens found in nvt.tpr"
        assert max(abs(m - 1.008) for m in masses) < 0.01, f"hydrogen masses {min(masses):.3f}-{max(masses):.3f} amu"
    with checks.check("NVT started from em.gro (coordinates of nvt.tpr)"):
        lines = open(f"{OUT}/em.gro").read().splitlines()
        em = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + int(lines[1])]])
        x = np.array(
            re.findall(r"^\s+x\[\s*\d+\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}", dump, re.M)[: len(em)],
            dtype=float,
        )
        assert x.shape == em.shape and np.abs(x - em).max() < 2e-3, "nvt.tpr does not start from em.gro"
    with checks.check("nvt.xtc: 11 frames, 0-2 ps (gmx check)"):
        code, log = gmx("check", "-f", f"{OUT}/nvt.xtc")
        frames = re.search(r"^Coords\s+(\d+)", log, re.M)
        assert code == 0 and frames and int(frames.group(1)) == 11, (
            f"gmx check: {frames.group(0) if frames else log[-200:]}"
        )
    # The trajectory is the run's: every frame of nvt.xtc, rerun under nvt.tpr, has the Potential nvt.edr recorded at
    # its time. The xtc keeps 0.001 nm, so an honest rerun is a little off: at most 76 kJ/mol a frame (of -1.2e5) over
    # 66 frames of 6 reference runs. Smallest mistake excluded: the frames of another run of the same nvt.tpr (288 to
    # 1387 kJ/mol off at the worst frame of each pair measured); em.gro repeated 11 times is 1.2e4-1.7e4 off.
    with checks.check(
        f"nvt.xtc is the run's: each frame rerun under nvt.tpr has nvt.edr's Potential ({RERUN_TOL} kJ/mol)"
    ):
        rerun = os.path.join(work, "rerun")
        os.mkdir(rerun)
        code, log = gmx(
            "mdrun", "-rerun", f"{OUT}/nvt.xtc", "-s", f"{OUT}/nvt.tpr", "-deffnm", "rr", "-nt", "1", cwd=rerun
        )
        assert code == 0, gmx_error(log)
        gmx("energy", "-f", "rr.edr", "-o", "rr.xvg", stdin="Potential\n\n", cwd=rerun)
        gmx("energy", "-f", f"{OUT}/nvt.edr", "-o", "run.xvg", stdin="Potential\n\n", cwd=rerun)
        frames, run = xvg(f"{rerun}/rr.xvg"), xvg(f"{rerun}/run.xvg")
        recorded = {round(t, 3): e for t, e in run}
        missing = [t for t in frames[:, 0] if round(t, 3) not in recorded]
        assert not missing, f"nvt.edr has no energies at {missing} ps, where nvt.xtc has frames"
        off = np.array([abs(e - recorded[round(t, 3)]) for t, e in frames])
        assert off.max() <= RERUN_TOL, (
            f"nvt.xtc's frame at {frames[off.argmax(), 0]:g} ps has a Potential {off.max():.0f} kJ/mol from nvt.edr's "
            "at that time: not the trajectory of this run"
        )
    # ... and it is the run of this nvt.tpr, not of another one of the same system: 100 steps of nvt.tpr run again
    # (its seeds and velocities are in the file) reproduce the 0.2-ps frame. Measured in the task image: 2.1e-4 nm
    # RMS over every atom for reruns on 1 to 4 threads (the xtc's 0.001 nm rounding); another velocity seed 0.11 nm;
    # Berendsen in place of V-rescale from the same start and seed 1.6e-3 nm. An xtc and edr of another run pass the
    # rerun check above (they agree with each other); they fail here.
    with checks.check(
        f"nvt.xtc is nvt.tpr's run: 100 steps of nvt.tpr run again reproduce its 0.2-ps frame (RMS {REDO_TOL_NM} nm)"
    ):
        redo = os.path.join(work, "redo")
        os.mkdir(redo)
        code, log = gmx("mdrun", "-s", f"{OUT}/nvt.tpr", "-nsteps", "100", "-deffnm", "redo", "-nt", "1", cwd=redo)
        assert code == 0, gmx_error(log)
        for name, trajectory in (("delivered", f"{OUT}/nvt.xtc"), ("redone", "redo.xtc")):
            code, log = gmx(
                "trjconv", "-s", f"{OUT}/nvt.tpr", "-f", trajectory, "-o", f"{name}.gro", "-dump", "0.2",
                stdin="System\n", cwd=redo,
            )  # fmt: skip
            assert code == 0, gmx_error(log)
        delivered, box = gro_frame(f"{redo}/delivered.gro")
        redone, _ = gro_frame(f"{redo}/redone.gro")
        assert delivered.shape == redone.shape, f"{len(delivered)} atoms in nvt.xtc, {len(redone)} in nvt.tpr"
        off = rms_displacement(delivered, redone, box)
        assert off <= REDO_TOL_NM, (
            f"nvt.xtc's 0.2-ps frame is {off:.4f} nm (RMS) from 100 steps of nvt.tpr run again: the trajectory of "
            "another run than this nvt.tpr's"
        )
    result = {}
    with checks.check("analysis.json readable"):
        result = load_json(f"{OUT}/analysis.json")
    with checks.check("RMSD recomputed with gmx rms"):
        code, log = gmx(
            "rms",
            "-s",
            f"{OUT}/nvt.tpr",
            "-f",
            f"{OUT}/nvt.xtc",
            "-o",
            f"{work}/rmsd.xvg",
            "-tu",
            "ps",
            stdin="Backbone\nBackbone\n",
        )
        rmsd = xvg(f"{work}/rmsd.xvg")
        assert result["n_frames"] == len(rmsd) == 11, f"n_frames {result['n_frames']}"
        # the mean may be rounded to 3 decimals (5e-4 nm); 1 % (7.7e-4 nm on a reproduction's 0.0769 nm) was wider
        assert close(result["mean_rmsd_nm"], rmsd[:, 1].mean(), rel=1e-3, abs_=5e-4), (
            f"{result['mean_rmsd_nm']} vs {rmsd[:, 1].mean():.4f}"
        )
    with checks.check("Rg recomputed with gmx gyrate, and in report.md (3 decimals)"):
        code, log = gmx(
            "gyrate", "-s", f"{OUT}/nvt.tpr", "-f", f"{OUT}/nvt.xtc", "-o", f"{work}/gyrate.xvg", stdin="Protein\n"
        )
        rg = xvg(f"{work}/gyrate.xvg")[:, 1].mean()
        assert close(result["mean_rg_nm"], rg, rel=1e-3, abs_=5e-4), f"{result['mean_rg_nm']} vs {rg:.4f}"
        assert f"{rg:.3f}" in open(f"{OUT}/report.md").read(), f"report.md does not give the mean Rg {rg:.3f} nm"
    # The same gmx on the same nvt.tpr and nvt.xtc prints the same numbers: each file admits its printed digits
    # (gmx rms: 7 decimals; gmx gyrate: 6 significant digits, %g) and nothing else. The smallest real mistakes are a
    # group's: Protein-H for Protein (2.7e-4 nm in the mean, about 7e-4 nm a frame), a C-alpha fit for Backbone.
    with checks.check("rmsd.xvg and gyrate.xvg are gmx rms's and gmx gyrate's output for the run (printed digits)"):
        for name, recomputed, atol in (
            ("rmsd.xvg", f"{work}/rmsd.xvg", 1e-6),
            ("gyrate.xvg", f"{work}/gyrate.xvg", 1e-5),
        ):
            got, want = xvg(f"{OUT}/{name}"), xvg(recomputed)
            assert got.shape[0] == want.shape[0], f"{name}: {got.shape[0]} frames, the run has {want.shape[0]}"
            off = np.abs(got[:, 1] - want[:, 1])
            assert np.all(off <= atol), (
                f"{name} differs from gmx's recomputation by up to {off.max():.2g} nm (printed digits: {atol:g} nm): "
                "another group or option than the instruction's"
            )
    with checks.check("every file topol.top includes, in every #ifdef branch, is delivered or part of GROMACS"):
        includes = topology_includes(f"{OUT}/topol.top")
        assert not includes["missing"], "not found: " + "; ".join(includes["missing"])
    with checks.check("temperature: matches nvt.edr and near 300 K"):
        code, log = gmx("energy", "-f", f"{OUT}/nvt.edr", "-o", f"{work}/t.xvg", stdin="Temperature\n\n")
        temperature = xvg(f"{work}/t.xvg")
        assert abs(temperature[-1, 0] - 2.0) < 1e-3, f"nvt.edr ends at {temperature[-1, 0]} ps"
        # gmx energy's average: the frames' mean, or the average it prints over every step with energies, within
        # rounding (0.05 K; 2e-3 relative let the constant 300 pass whenever a run's mean fell within 0.6 K of it)
        printed = re.search(r"^Temperature\s+(-?[\d.]+(?:[eE][-+]?\d+)?)", log, re.M)
        candidates = [temperature[:, 1].mean()] + ([float(printed.group(1))] if printed else [])
        assert any(abs(float(result["mean_temperature_k"]) - c) <= 0.05 for c in candidates), (
            f"{result['mean_temperature_k']} vs {temperature[:, 1].mean():.2f} (frames) and "
            f"{printed.group(1) if printed else 'no printed average'}"
        )
        assert 280 <= temperature[:, 1].mean() <= 320, f"mean temperature {temperature[:, 1].mean():.1f} K"


sys.exit(main(verify))
