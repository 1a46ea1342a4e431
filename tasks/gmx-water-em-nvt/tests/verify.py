"""Read the agent's run inputs and energy files with gmx dump / gmx check / gmx energy."""

import os
import re
import sys
from functools import partial

import numpy as np
from verifykit import close, load_json, main
from verifykit import gmx as run_gmx

OUT = "/app/output"


# verifykit.gmx with this verifier's working folder and time limit per command
gmx = partial(run_gmx, cwd="/tmp", timeout=120)


def dump_value(dump, key):
    match = re.search(r"^\s*%s\s*=\s*(\S+)" % re.escape(key), dump, re.M | re.I)
    return match.group(1) if match else None


def energy(edr, terms, averages=None):
    """Time and the given terms from gmx energy's xvg, as an array (frames, 1 + terms) in the order asked; with a
    dict ``averages``, also each term's average as gmx energy prints it (over every step with energies)."""
    xvg = f"/tmp/{os.path.basename(edr)}.xvg"
    code, log = gmx("energy", "-f", edr, "-o", xvg, stdin="\n".join(terms) + "\n\n")
    assert code == 0, log[-400:]
    legends = re.findall(r'^@ s\d+ legend "(.*)"', open(xvg).read(), re.M)  # gmx orders columns by term, not by request
    data = np.loadtxt(xvg, comments=("#", "@"), ndmin=2)
    if averages is not None:
        for term in terms:
            found = re.search(rf"^{re.escape(term)}\s+(-?[\d.]+(?:[eE][-+]?\d+)?)", log, re.M)
            if found:
                averages[term] = float(found.group(1))
    return data[:, [0] + [1 + legends.index(t) for t in terms]]


def as_gmx_energy_reports(value, frames_mean, printed, tolerance):
    """``value`` is the average gmx energy reports: the mean over nvt.edr's frames or the average gmx energy prints
    (over every step with energies), within ``tolerance`` (rounding; the two may differ by more, and 1e-3 of a
    -2e4 kJ/mol potential let a one-figure constant pass)."""
    candidates = [frames_mean] + ([printed] if printed is not None else [])
    return any(abs(float(value) - c) <= tolerance for c in candidates)


def hydrogen_masses(dump):
    """The masses (amu) of every hydrogen (atomnumber 1) in a ``gmx dump -s`` of a run input."""
    return [
        float(m)
        for m, number in re.findall(r"atom\[\s*\d+\]=\{[^}]*?\bm=\s*(\S+),[^}]*?atomnumber=\s*(-?\d+)\}", dump)
        if number == "1"
    ]


def verify(checks):
    for name in ("em.tpr", "nvt.tpr"):
        with checks.check(f"{name} passes gmx check"):
            code, log = gmx("check", "-s1", f"{OUT}/{name}")
            assert code == 0 and os.path.isfile(f"{OUT}/{name}"), log[-300:]
    code, em_dump = gmx("dump", "-s", f"{OUT}/em.tpr")
    code2, dump = gmx("dump", "-s", f"{OUT}/nvt.tpr")
    checks.require(
        "em.tpr is a steepest-descent minimization to Fmax < 1000",
        code == 0
        and dump_value(em_dump, "integrator") == "steep"
        and float(dump_value(em_dump, "emtol") or 1e9) <= 1000,
        f"integrator {dump_value(em_dump, 'integrator')}, emtol {dump_value(em_dump, 'emtol')}",
    )
    with checks.check("nvt.tpr: md, 2 fs, 5 ps, V-rescale 300 K (0.1 ps), no pressure coupling"):
        assert code2 == 0, "nvt.tpr unreadable"
        assert dump_value(dump, "integrator") == "md", f"integrator {dump_value(dump, 'integrator')}"
        dt, nsteps = float(dump_value(dump, "dt")), int(dump_value(dump, "nsteps"))
        assert abs(dt - 0.002) < 1e-9 and abs(dt * nsteps - 5.0) < 1e-6, f"dt {dt} ps, nsteps {nsteps}"
        assert dump_value(dump, "tcoupl").lower() == "v-rescale", f"tcoupl {dump_value(dump, 'tcoupl')}"
        assert dump_value(dump, "pcoupl").lower() == "no", f"pcoupl {dump_value(dump, 'pcoupl')}"
        ref_t = re.search(r"ref-t:\s*([\d.\s]+)", dump).group(1).split()
        tau_t = re.search(r"tau-t:\s*([\d.\s]+)", dump).group(1).split()
        assert len(ref_t) == 1 and float(ref_t[0]) == 300.0 and float(tau_t[0]) == 0.1, (
            f"ref-t {ref_t}, tau-t {tau_t} (one group)"
        )
    with checks.check("standard masses (no hydrogen mass repartitioning): every hydrogen 1.008 amu in nvt.tpr"):
        masses = hydrogen_masses(dump)
        assert masses, "no hydrogens found in nvt.tpr"
        assert max(abs(m - 1.008) for m in masses) < 0.01, f"hydrogen masses {min(masses):.3f}-{max(masses):.3f} amu"
    with checks.check("nvt.tpr: PME with 1.0 nm cutoffs"):
        assert dump_value(dump, "coulombtype") == "PME", f"coulombtype {dump_value(dump, 'coulombtype')}"
        assert float(dump_value(dump, "rcoulomb")) == 1.0 and float(dump_value(dump, "rvdw")) == 1.0, "cutoffs"
    with checks.check("NVT started from the minimized coordinates"):
        lines = open(f"{OUT}/em.gro").read().splitlines()
        em_xyz = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + int(lines[1])]])
        xs = re.findall(r"^\s+x\[\s*\d+\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}", dump, re.M)
        tpr_xyz = np.array(xs[: len(em_xyz)], dtype=float)
        assert tpr_xyz.shape == em_xyz.shape and np.abs(tpr_xyz - em_xyz).max() < 2e-3, (
            "nvt.tpr coordinates are not em.gro's"
        )
    with checks.check("nvt.tpr's velocities are grompp's, generated at 300 K with seed 2024 (replayed)"):
        # grompp draws the velocities from the seed, the temperature and the masses alone (the coordinates and the
        # other settings do not enter): a replay with gen-temp 300 and gen-seed 2024 must give nvt.tpr's own
        assert code2 == 0, f"{OUT}/nvt.tpr unreadable: " + dump[-200:]
        work = "/tmp/genvel"
        os.makedirs(work, exist_ok=True)
        with open(f"{work}/genvel.mdp", "w") as handle:
            handle.write("integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = PME\nrcoulomb = 1.0\n"
                         "rvdw = 1.0\ngen-vel = yes\ngen-temp = 300\ngen-seed = 2024\n")  # fmt: skip
        code, log = gmx("grompp", "-f", "genvel.mdp", "-c", "/app/inputs/water.gro", "-p", "/app/inputs/topol.top",
                        "-o", "genvel.tpr", "-maxwarn", "5", cwd=work)  # fmt: skip
        assert code == 0, log[-300:]
        code, replay = gmx("dump", "-s", f"{work}/genvel.tpr")
        pattern = r"^\s+v\[\s*\d+\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}"
        want = np.array(re.findall(pattern, replay, re.M), dtype=float)
        got = np.array(re.findall(pattern, dump, re.M), dtype=float)
        assert code == 0 and len(want), "no velocities in the replayed run input"
        assert got.shape == want.shape, f"nvt.tpr has {len(got)} velocities, the replay {len(want)}"
        deviation = np.abs(got - want).max()
        assert deviation <= 1e-4, (
            f"nvt.tpr's velocities differ from gen-temp 300 / gen-seed 2024's by up to {deviation:.3g} nm/ps "
            "(another seed or temperature, or not generated)"
        )
    with checks.check("nvt.gro is the run's final frame: nvt.tpr's atoms in its box, moved from the start"):
        lines = open(f"{OUT}/nvt.gro").read().splitlines()
        n = int(lines[1])
        final = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + n]])
        box = np.array([float(x) for x in lines[2 + n].split()[:3]])
        rows = re.findall(r"^\s*box\[\s*(\d)\]=\{([^}]*)\}", dump, re.M)[:3]
        tpr_box = np.array([float(row.split(",")[int(k)]) for k, row in rows])  # the diagonal
        start = np.array(
            re.findall(r"^\s+x\[\s*\d+\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}", dump, re.M)[:n], dtype=float
        )
        assert final.shape == start.shape, f"{n} atoms, nvt.tpr has {len(start)}"
        assert np.allclose(box, tpr_box, atol=1e-3), f"box {box} nm, nvt.tpr's {tpr_box} (NVT keeps it)"
        wrapped = final - start - box * np.round((final - start) / box)
        moved = np.sqrt((wrapped**2).sum(axis=1))
        # 5 ps of water at 300 K moves a molecule by ~0.5 nm (diffusion 2.3e-5 cm^2/s); GRO rounding is 0.001 nm
        assert 0.05 <= np.median(moved) <= 1.5, f"median displacement {np.median(moved):.3f} nm over the 5 ps"
    with checks.check(
        "em.gro is minimized: its maximum force is below 1000 kJ mol^-1 nm^-1 (a zero-step minimization)"
    ):
        work = "/tmp/fmax"
        os.makedirs(work, exist_ok=True)
        with open(f"{work}/fmax.mdp", "w") as handle:
            handle.write("integrator = steep\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = PME\n"
                         "rcoulomb = 1.0\nrvdw = 1.0\n")  # fmt: skip
        code, log = gmx("grompp", "-f", "fmax.mdp", "-c", f"{OUT}/em.gro", "-p", "/app/inputs/topol.top",
                        "-o", "fmax.tpr", cwd=work)  # fmt: skip
        assert code == 0, log[-300:]
        code, log = gmx("mdrun", "-s", "fmax.tpr", "-deffnm", "fmax", "-nt", "1", cwd=work)
        found = re.search(r"Maximum force\s*=\s*([-\d.eE+]+)", open(f"{work}/fmax.log").read() if code == 0 else "")
        assert found, "no maximum force in the zero-step minimization's log: " + log[-200:]
        assert float(found.group(1)) < 1000.0, f"maximum force {float(found.group(1)):.0f} kJ mol^-1 nm^-1 in em.gro"
    result = {}
    with checks.check("energy.json readable"):
        result = load_json(f"{OUT}/energy.json")
    with checks.check("minimization converged and its final potential matches em.edr"):
        em = energy(f"{OUT}/em.edr", ["Potential"])
        assert close(result["em_final_potential_kj_mol"], em[-1, 1], rel=1e-4), (
            f"{result['em_final_potential_kj_mol']} != {em[-1, 1]}"
        )
        assert em[-1, 1] < em[0, 1], "the potential did not go down"
    with checks.check("NVT averages match nvt.edr (gmx energy)"):
        printed = {}
        nvt = energy(f"{OUT}/nvt.edr", ["Temperature", "Potential"], printed)
        spacing = np.diff(nvt[:, 0])
        assert nvt.shape[0] == 51 and np.allclose(spacing, 0.1, atol=1e-6), (
            f"{nvt.shape[0]} energy frames {spacing.min() if len(spacing) else 0:g}-"
            f"{spacing.max() if len(spacing) else 0:g} ps apart (expected every 0.1 ps over 5 ps: 51)"
        )
        assert abs(nvt[-1, 0] - 5.0) < 1e-3, f"nvt.edr ends at {nvt[-1, 0]} ps"
        assert as_gmx_energy_reports(
            result["nvt_mean_temperature_k"], nvt[:, 1].mean(), printed.get("Temperature"), 0.05
        ), f"{result['nvt_mean_temperature_k']}: not {nvt[:, 1].mean():.3f} nor {printed.get('Temperature')}"
        assert as_gmx_energy_reports(
            result["nvt_mean_potential_kj_mol"], nvt[:, 2].mean(), printed.get("Potential"), 0.5
        ), f"{result['nvt_mean_potential_kj_mol']}: not {nvt[:, 2].mean():.1f} nor {printed.get('Potential')}"
    with checks.check("the thermostat holds 300 K (mean of the second half within 285-315 K)"):
        nvt = energy(f"{OUT}/nvt.edr", ["Temperature"])
        second = nvt[len(nvt) // 2 :, 1].mean()
        assert 285 <= second <= 315, f"mean temperature {second:.1f} K"


sys.exit(main(verify))
