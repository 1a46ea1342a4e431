"""Check the NaCl umbrella-sampling PMF with GROMACS itself: every window's pull settings (gmx dump), its pullx
recomputed from its own trajectory (zero-force mdrun -rerun of the xtc), the restraint's effect on the sampled
distance, and the PMF redone by gmx wham from the delivered run inputs and pull files."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from verifykit import load_json, main

OUT, INPUTS = "/app/output", "/app/inputs"
CENTERS = [round(0.25 + 0.05 * i, 6) for i in range(9)]
K = 10000.0
WHAM = ["-unit", "kJ", "-b", "2", "-zprof0", "0.6", "-temp", "300"]
RERUN_TOL_NM = 0.002   # pullx against the rerun of the window's own xtc (xtc precision 0.001 nm)
MEAN_TOL_NM = 0.05     # a window's mean distance (after 2 ps) against its centre
PMF_TOL = 0.5          # kJ/mol, pmf.xvg against gmx wham rerun here


def gmx(*args, cwd=None):
    result = subprocess.run(["gmx", "-quiet", *args], cwd=cwd, capture_output=True, text=True,
                            env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=200)
    return result.returncode, result.stdout + result.stderr


def xvg(path):
    rows = [list(map(float, l.split()[:2])) for l in open(path) if l.strip() and not l.startswith(("#", "@"))]
    return np.array(rows).reshape(-1, 2)


def dump_pull(tpr):
    code, text = gmx("dump", "-s", tpr)
    assert code == 0, text[-300:]
    found = {"nsteps": int(re.search(r"^\s*nsteps\s*=\s*(\d+)", text, re.M).group(1))}
    coord = text.split("pull-coord 0:")[1] if "pull-coord 0:" in text else ""
    for key in ("type", "geometry", "start", "init", "rate", "k"):
        value = re.search(rf"^\s*{key}\s*=\s*(\S+)", coord, re.M)
        found[key] = value.group(1) if value else None
    found["dim"] = [int(d) for d in re.findall(r"dim\[\d\]=(\d)", coord)[:3]]
    found["nstxout"] = int((re.search(r"pull-nstxout\s*=\s*(\d+)", text) or re.search("()", "0")).group(1) or 0)
    groups = re.findall(r"pull-group (\d+):\s*\n\s*atom \((\d+)\):\s*\n\s*atom\[0\]=(\d+)", text)
    found["groups"] = sorted((int(n), int(first)) for _, n, first in groups)
    return found


def verify(checks):
    atoms = open(f"{INPUTS}/conf.gro").read().splitlines()[2:-1]
    ions = sorted((1, i) for i, l in enumerate(atoms) if l[5:10].strip() in ("NA", "CL"))
    spec = {}
    with checks.check("pmf.json readable with the contracted keys"):
        spec = load_json(f"{OUT}/pmf.json")
        assert isinstance(spec.get("windows"), list) and {"contact_minimum_nm", "contact_minimum_kj_mol"} <= set(spec), f"keys {sorted(spec)}"
    with checks.check("pmf.xvg, histo.xvg, tpr-files.dat and pullx-files.dat present"):
        for name in ("pmf.xvg", "histo.xvg", "tpr-files.dat", "pullx-files.dat"):
            assert os.path.isfile(f"{OUT}/{name}"), f"{name} missing"
    windows = spec.get("windows") or []
    checks.require("pmf.json lists the 9 contracted windows (0.25-0.65 nm, 0.05 apart) in order",
                   [round(float(w.get("center_nm", -1)), 4) for w in windows] == [round(c, 4) for c in CENTERS],
                   f"centres {[w.get('center_nm') for w in windows]}")
    for i, center in enumerate(CENTERS):
        w = windows[i] if i < len(windows) else {}
        with checks.check(f"window {i}: tpr, pullx and xtc present"):
            for key in ("tpr", "pullx", "xtc"):
                assert os.path.isfile(os.path.join(OUT, str(w.get(key, "")))), f"{key} {w.get(key)} missing"
        with checks.check(f"window {i}: umbrella on the 3-D Na-Cl distance at {center} nm, k 10000, rate 0, 10 ps (gmx dump)"):
            pull = dump_pull(os.path.join(OUT, w["tpr"]))
            assert (pull["type"], pull["geometry"], pull["dim"]) == ("umbrella", "distance", [1, 1, 1]), f"{pull}"
            assert pull["groups"] == ions, f"pull groups {pull['groups']}; the ions are atoms {ions}"
            assert pull["start"] == "false" and abs(float(pull["init"]) - center) < 1e-4, f"start {pull['start']}, init {pull['init']}"
            assert float(pull["rate"]) == 0 and abs(float(pull["k"]) - K) < 1e-3 * K, f"rate {pull['rate']}, k {pull['k']}"
            assert pull["nsteps"] >= 5000 and pull["nstxout"] == 50, f"nsteps {pull['nsteps']}, pull-nstxout {pull['nstxout']}"
        with checks.check(f"window {i}: its pullx is what the pull code computes on its own trajectory (mdrun -rerun of the xtc)"):
            work = tempfile.mkdtemp()
            code, log = gmx("mdrun", "-s", os.path.join(OUT, w["tpr"]), "-rerun", os.path.join(OUT, w["xtc"]), "-deffnm", "re",
                            "-px", "re_pullx.xvg", "-pf", "re_pullf.xvg", "-nt", "1", cwd=work)
            assert code == 0, log[-300:]
            rerun, delivered = xvg(os.path.join(work, "re_pullx.xvg")), xvg(os.path.join(OUT, w["pullx"]))
            shutil.rmtree(work, ignore_errors=True)
            assert len(rerun) >= 20 and delivered[-1, 0] >= 10.0 - 1e-6, f"{len(rerun)} frames, pullx to {delivered[-1, 0]} ps"
            at = {round(t, 3): x for t, x in delivered}
            worst = max(abs(at.get(round(t, 3), np.inf) - x) for t, x in rerun)
            assert worst <= RERUN_TOL_NM, f"pullx differs from the rerun of its xtc by {worst:.4f} nm"
        with checks.check(f"window {i}: the restraint holds the sampled distance near {center} nm "
                          f"(mean after 2 ps within {MEAN_TOL_NM} nm)"):
            data = xvg(os.path.join(OUT, w["pullx"]))
            mean = float(data[data[:, 0] >= 2.0, 1].mean())
            assert abs(mean - center) <= MEAN_TOL_NM, f"mean {mean:.3f} nm"
    profile = None
    with checks.check(f"gmx wham on the delivered run inputs and pullx files reproduces pmf.xvg in kJ/mol (within {PMF_TOL})"):
        work = tempfile.mkdtemp()
        with open(os.path.join(work, "tpr.dat"), "w") as t, open(os.path.join(work, "pullx.dat"), "w") as p:
            for w in windows:
                t.write(os.path.join(OUT, w["tpr"]) + "\n")
                p.write(os.path.join(OUT, w["pullx"]) + "\n")
        code, log = gmx("wham", "-it", "tpr.dat", "-ix", "pullx.dat", "-o", "pmf.xvg", "-hist", "histo.xvg", *WHAM, cwd=work)
        assert code == 0, log[-300:]
        profile = xvg(os.path.join(work, "pmf.xvg"))
        delivered = xvg(f"{OUT}/pmf.xvg")
        assert len(delivered) == len(profile) and np.allclose(delivered[:, 0], profile[:, 0], atol=1e-4), "pmf.xvg's grid differs"
        worst = float(np.abs(delivered[:, 1] - profile[:, 1]).max())
        assert worst <= PMF_TOL, f"pmf.xvg differs from gmx wham's by up to {worst:.2f} kJ/mol"
    with checks.check("neighbouring windows' histograms overlap (gmx wham's histo.xvg)"):
        rows = np.array([list(map(float, l.split())) for l in open(f"{OUT}/histo.xvg") if l.strip() and not l.startswith(("#", "@"))])
        counts = rows[:, 1:]
        assert counts.shape[1] == len(CENTERS), f"{counts.shape[1]} histograms"
        for a in range(counts.shape[1] - 1):
            shared = np.minimum(counts[:, a] / counts[:, a].sum(), counts[:, a + 1] / counts[:, a + 1].sum()).sum()
            assert shared >= 0.01, f"windows {a} and {a + 1} overlap {shared:.3f}"
    with checks.check("pmf.json's contact minimum is the PMF's lowest point below 0.34 nm"):
        inside = profile[profile[:, 0] <= 0.34]
        x, g = inside[np.argmin(inside[:, 1])]
        assert abs(float(spec["contact_minimum_nm"]) - x) <= 0.005 and abs(float(spec["contact_minimum_kj_mol"]) - g) <= PMF_TOL, \
            f"pmf.json {spec['contact_minimum_nm']} nm, {spec['contact_minimum_kj_mol']} kJ/mol; " \
            f"the PMF's minimum {x:.3f} nm, {g:.2f}"

    with checks.check("the PMF has the contact ion pair's minimum at 0.26-0.31 nm "
                      "and a desolvation barrier >= 3 kJ/mol above it (0.32-0.42 nm)"):
        contact = profile[(profile[:, 0] >= 0.24) & (profile[:, 0] <= 0.34)]
        x, g = contact[np.argmin(contact[:, 1])]
        barrier = profile[(profile[:, 0] >= 0.32) & (profile[:, 0] <= 0.42), 1].max()
        assert 0.26 <= x <= 0.31 and barrier - g >= 3.0, f"minimum {g:.2f} kJ/mol at {x:.3f} nm, barrier {barrier:.2f} kJ/mol"


sys.exit(main(verify))
