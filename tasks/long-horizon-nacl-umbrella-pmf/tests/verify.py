"""Check the NaCl umbrella-sampling PMF with GROMACS itself: every window's pull settings (gmx dump), its pullx
recomputed from its own trajectory (zero-force mdrun -rerun of the xtc), the restraint's effect on the sampled
distance, and the PMF redone by gmx wham from the delivered run inputs and pull files."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

import numpy as np
from verifykit import gmx as run_gmx
from verifykit import load_json, main

OUT, INPUTS = "/app/output", "/app/inputs"
CENTERS = [round(0.25 + 0.05 * i, 6) for i in range(9)]
K = 10000.0
WHAM = ["-unit", "kJ", "-b", "2", "-zprof0", "0.6", "-temp", "300"]
# Which numbers here depend on the trajectory (and so on the CPU: the same seed gives another trajectory on another
# machine), and how each tolerance is made to hold for any trajectory of the contracted protocol:
# * pullx against the rerun of its own xtc: not statistical. The xtc rounds each coordinate to 0.001 nm, so the
#   distance differs by at most sqrt(3) x 0.001 = 0.0017 nm from the full-precision one the pull code wrote.
# * a window's mean distance against its centre: the umbrella (k 10000) balances a mean force of k x 0.05 nm =
#   500 kJ/mol/nm there, several times the steepest slope of the ion pair's PMF in 0.25-0.65 nm; the mean's
#   statistical error (a block estimate, shown in the reason) is ~0.003 nm.
# * the windows' overlap: estimated from each window's sampled mean and spread (gmx wham's histo.xvg) and required
#   not to be significantly below 1 % (3 block standard errors of the windows' separation), not the sum of
#   bin-wise minima of 200-bin histograms of ~80 samples, which is mostly counting noise.
# * the PMF's contact minimum and desolvation barrier: from gmx wham rerun here on the delivered files at the
#   resolution the windows carry (PHYS_BINS bins, ~0.01 nm, below the umbrella's width sqrt(kT/k) = 0.016 nm),
#   with gmx wham's own bootstrap error (new trajectories from each window's histogram and autocorrelation time,
#   a fixed seed); each bound holds within Z standard errors.
# * pmf.json's contact minimum: its value must be the profile's (the same gmx wham on the same files), not a
#   position that a near-tie of two grid points could move.
RERUN_TOL_NM = 0.002  # pullx against the rerun of the window's own xtc (the bound above, 0.0017 nm)
MEAN_TOL_NM = 0.05  # a window's mean distance (after 2 ps) against its centre
# kJ/mol, pmf.xvg against gmx wham rerun here on the same files: deterministic (the same on 1 or 2 threads), printed
# to 7 digits; -temp 298 for 300 moves a test profile by 0.05 kJ/mol, -temp 310 by 0.27 and -zprof0 0.5 by 0.07,
# all of which a tolerance of 0.5 passed
PMF_TOL = 0.01
POSITION_TOL = 0.5  # kJ/mol: the profile at pmf.json's contact-minimum position (a rounded grid point) above its lowest
OVERLAP_MIN = 0.01  # neighbouring windows' overlap (fitted distributions), within Z standard errors
PHYS_BINS = 50  # gmx wham -bins for the PMF's shape (~0.01 nm over the windows' range)
N_BOOTSTRAP, BS_SEED = 50, 2026
Z = 3.0  # standard errors a statistical bound may be missed by
KT = 0.0083144626 * 300  # kJ/mol


# verifykit.gmx with this verifier's time limit per command
gmx = partial(run_gmx, timeout=200)


def xvg(path):
    rows = [list(map(float, l.split()[:2])) for l in open(path) if l.strip() and not l.startswith(("#", "@"))]
    return np.array(rows).reshape(-1, 2)


def block_se(values, blocks=8):
    """Standard error of the mean of a correlated series from the spread of its block means."""
    means = [b.mean() for b in np.array_split(np.asarray(values, float), blocks) if len(b)]
    return float(np.std(means, ddof=1) / np.sqrt(len(means))) if len(means) > 1 else float("inf")


def overlap(mean_a, sd_a, mean_b, sd_b):
    """Overlap (integral of the smaller density) of two normal distributions."""
    lo, hi = min(mean_a - 8 * sd_a, mean_b - 8 * sd_b), max(mean_a + 8 * sd_a, mean_b + 8 * sd_b)
    x = np.linspace(lo, hi, 4001)
    pdf = lambda m, s: np.exp(-0.5 * ((x - m) / s) ** 2) / (s * np.sqrt(2 * np.pi))
    return float(np.minimum(pdf(mean_a, sd_a), pdf(mean_b, sd_b)).sum() * (x[1] - x[0]))


def histogram_moments(path):
    """Mean and standard deviation of every histogram in a gmx wham histo.xvg (bin centre in column 0)."""
    rows = np.array([list(map(float, l.split())) for l in open(path) if l.strip() and not l.startswith(("#", "@"))])
    x, counts = rows[:, 0], rows[:, 1:]
    weights = counts / counts.sum(axis=0)
    means = (weights * x[:, None]).sum(axis=0)
    sds = np.sqrt((weights * (x[:, None] - means) ** 2).sum(axis=0))
    return means, sds, counts.sum(axis=0)


def contact_and_barrier(profile):
    """(position of the lowest point at 0.24-0.34 nm, highest point at 0.32-0.42 nm minus it) of a PMF."""
    contact = profile[(profile[:, 0] >= 0.24) & (profile[:, 0] <= 0.34)]
    x, g = contact[np.argmin(contact[:, 1])]
    barrier = profile[(profile[:, 0] >= 0.32) & (profile[:, 0] <= 0.42), 1].max()
    return float(x), float(barrier - g)


def xvg_sets(path):
    """The data sets of an xvg that separates them with '&' (gmx wham -bsprof)."""
    sets, current = [], []
    for line in open(path):
        if line.startswith("&"):
            sets.append(current)
            current = []
        elif line.strip() and not line.startswith(("#", "@")):
            current.append(list(map(float, line.split()[:2])))
    sets.append(current)
    return [np.array(s) for s in sets if len(s)]


# md.mdp's settings as gmx dump prints them (key: value of the tpr's inputrec)
MD_SETTINGS = {
    "integrator": "sd",
    "dt": "0.002",
    "nsteps": "5000",
    "nstxout-compressed": "250",
    "coulombtype": "PME",
    "rcoulomb": "1",
    "rvdw": "1",
    "DispCorr": "EnerPres",
    "ref-t": "300",
    "tau-t": "1",
}
# A minimization under the window's 10000 kJ mol^-1 nm^-2 umbrella moves the ions part of the way from conf.gro's
# 0.5 nm towards its centre (the reference: 0.302, 0.378, 0.403, ..., 0.510, 0.538 nm for centres 0.25-0.65):
# the starts rise with the centres and span 0.24 nm. Unminimized, every window starts at 0.500; minimized without
# the umbrella, at one common distance.
START_SPAN_NM = 0.1


def tpr_ion_distance(tpr, ions):
    """The Na-Cl distance (nm, minimum image) in a run input's starting coordinates."""
    code, text = gmx("dump", "-s", tpr)
    assert code == 0, text[-300:]
    xs = re.findall(r"^\s+x\[\s*(\d+)\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}", text, re.M)
    position = {int(i): np.array([float(a), float(b), float(c)]) for i, a, b, c in xs}
    rows = re.findall(r"^\s*box\[\s*(\d)\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}", text, re.M)
    box = np.array([float(row[1 + int(row[0])]) for row in rows[:3]])  # the diagonal (a cubic box)
    delta = position[ions[0]] - position[ions[1]]
    if box.size == 3 and np.all(box > 0):
        delta -= box * np.round(delta / box)
    return float(np.linalg.norm(delta))


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
        assert isinstance(spec.get("windows"), list) and {"contact_minimum_nm", "contact_minimum_kj_mol"} <= set(
            spec
        ), f"keys {sorted(spec)}"
    with checks.check("pmf.xvg, histo.xvg, tpr-files.dat and pullx-files.dat present"):
        for name in ("pmf.xvg", "histo.xvg", "tpr-files.dat", "pullx-files.dat"):
            assert os.path.isfile(f"{OUT}/{name}"), f"{name} missing"
    windows = spec.get("windows") or []
    checks.require(
        "pmf.json lists the 9 contracted windows (0.25-0.65 nm, 0.05 apart) in order",
        [round(float(w.get("center_nm", -1)), 4) for w in windows] == [round(c, 4) for c in CENTERS],
        f"centres {[w.get('center_nm') for w in windows]}",
    )
    checks.require(
        "pmf.json numbers its windows 0-8 in order and states the force constant (10000 kJ mol^-1 nm^-2)",
        [w.get("window") for w in windows] == list(range(len(CENTERS)))
        and abs(float(spec.get("force_constant_kj_mol_nm2") or 0) - K) < 1e-6 * K,
        f"windows {[w.get('window') for w in windows]}, force constant {spec.get('force_constant_kj_mol_nm2')}",
    )
    starts = {}
    for i, center in enumerate(CENTERS):
        w = windows[i] if i < len(windows) else {}
        with checks.check(f"window {i}: tpr, pullx and xtc present"):
            for key in ("tpr", "pullx", "xtc"):
                assert os.path.isfile(os.path.join(OUT, str(w.get(key, "")))), f"{key} {w.get(key)} missing"
        with checks.check(
            f"window {i}: umbrella on the 3-D Na-Cl distance at {center} nm, k 10000, rate 0, 10 ps (gmx dump)"
        ):
            pull = dump_pull(os.path.join(OUT, w["tpr"]))
            assert (pull["type"], pull["geometry"], pull["dim"]) == ("umbrella", "distance", [1, 1, 1]), f"{pull}"
            assert pull["groups"] == ions, f"pull groups {pull['groups']}; the ions are atoms {ions}"
            assert pull["start"] == "false" and abs(float(pull["init"]) - center) < 1e-4, (
                f"start {pull['start']}, init {pull['init']}"
            )
            assert float(pull["rate"]) == 0 and abs(float(pull["k"]) - K) < 1e-3 * K, (
                f"rate {pull['rate']}, k {pull['k']}"
            )
            assert pull["nsteps"] >= 5000 and pull["nstxout"] == 50, (
                f"nsteps {pull['nsteps']}, pull-nstxout {pull['nstxout']}"
            )
        with checks.check(
            f"window {i}: md.mdp's run settings unchanged (gmx dump: sd, 2 fs x 5000, 300 K, tau-t 1, PME 1.0 nm, "
            "dispersion correction, xtc every 250 steps)"
        ):
            code, text = gmx("dump", "-s", os.path.join(OUT, w["tpr"]))
            assert code == 0, text[-300:]
            wrong = []
            for key, want in MD_SETTINGS.items():
                found = re.search(rf"^\s*{re.escape(key)}\s*[=:]\s*(.+?)\s*$", text, re.M)
                got = found.group(1) if found else None
                try:
                    same = got is not None and [float(x) for x in got.split()] == [float(x) for x in want.split()]
                except ValueError:
                    same = got is not None and got.lower() == want.lower()
                if not same:
                    wrong.append(f"{key} {got} (md.mdp: {want})")
            assert not wrong, "; ".join(wrong)
        try:
            starts[i] = tpr_ion_distance(os.path.join(OUT, w["tpr"]), [a for _, a in ions])
        except Exception:  # noqa: BLE001 - a missing run input fails its own checks; here it has no start
            pass
        with checks.check(
            f"window {i}: its pullx is what the pull code computes on its own trajectory (mdrun -rerun of the xtc)"
        ):
            work = tempfile.mkdtemp()
            code, log = gmx(
                "mdrun",
                "-s",
                os.path.join(OUT, w["tpr"]),
                "-rerun",
                os.path.join(OUT, w["xtc"]),
                "-deffnm",
                "re",
                "-px",
                "re_pullx.xvg",
                "-pf",
                "re_pullf.xvg",
                "-nt",
                "1",
                cwd=work,
            )
            assert code == 0, log[-300:]
            rerun, delivered = xvg(os.path.join(work, "re_pullx.xvg")), xvg(os.path.join(OUT, w["pullx"]))
            shutil.rmtree(work, ignore_errors=True)
            assert len(rerun) >= 20 and delivered[-1, 0] >= 10.0 - 1e-6, (
                f"{len(rerun)} frames, pullx to {delivered[-1, 0]} ps"
            )
            at = {round(t, 3): x for t, x in delivered}
            worst = max(abs(at.get(round(t, 3), np.inf) - x) for t, x in rerun)
            assert worst <= RERUN_TOL_NM, f"pullx differs from the rerun of its xtc by {worst:.4f} nm"
        with checks.check(
            f"window {i}: the restraint holds the sampled distance near {center} nm "
            f"(mean after 2 ps within {MEAN_TOL_NM} nm)"
        ):
            data = xvg(os.path.join(OUT, w["pullx"]))
            sampled = data[data[:, 0] >= 2.0, 1]
            mean = float(sampled.mean())
            assert abs(mean - center) <= MEAN_TOL_NM, (
                f"mean {mean:.3f} nm (block standard error {block_se(sampled):.4f} nm)"
            )
    with checks.check(
        "each window starts from its own restrained minimization: the runs' starting Na-Cl distances follow their "
        f"centres (increasing, spanning >= {START_SPAN_NM} nm; conf.gro has the ions 0.5 nm apart)"
    ):
        found = [starts.get(i) for i in range(len(CENTERS))]
        assert None not in found, f"no starting distance for windows {[i for i, d in enumerate(found) if d is None]}"
        assert all(b > a for a, b in zip(found, found[1:])) and found[-1] - found[0] >= START_SPAN_NM, (
            "starting distances " + ", ".join(f"{d:.3f}" for d in found) + " nm: not minimized under each window's "
            "umbrella (conf.gro unminimized gives 0.500 in every window, an unrestrained minimization one value)"
        )
    profile = None
    with checks.check(
        f"gmx wham on the delivered run inputs and pullx files reproduces pmf.xvg in kJ/mol (within {PMF_TOL})"
    ):
        work = tempfile.mkdtemp()
        with open(os.path.join(work, "tpr.dat"), "w") as t, open(os.path.join(work, "pullx.dat"), "w") as p:
            for w in windows:
                t.write(os.path.join(OUT, w["tpr"]) + "\n")
                p.write(os.path.join(OUT, w["pullx"]) + "\n")
        code, log = gmx(
            "wham", "-it", "tpr.dat", "-ix", "pullx.dat", "-o", "pmf.xvg", "-hist", "histo.xvg", *WHAM, cwd=work
        )
        assert code == 0, log[-300:]
        profile = xvg(os.path.join(work, "pmf.xvg"))
        delivered = xvg(f"{OUT}/pmf.xvg")
        assert len(delivered) == len(profile) and np.allclose(delivered[:, 0], profile[:, 0], atol=1e-4), (
            "pmf.xvg's grid differs"
        )
        worst = float(np.abs(delivered[:, 1] - profile[:, 1]).max())
        assert worst <= PMF_TOL, f"pmf.xvg differs from gmx wham's by up to {worst:.3f} kJ/mol"
    with checks.check(
        f"neighbouring windows overlap (gmx wham's histo.xvg: each window's sampled mean and spread; "
        f"at least {OVERLAP_MIN} within {Z:g} standard errors)"
    ):
        means, sds, counts = histogram_moments(f"{OUT}/histo.xvg")
        assert len(means) == len(CENTERS), f"{len(means)} histograms"
        # The error of each window's mean: a block estimate on its pullx samples (the ones the histogram counts).
        se = []
        for w in windows:
            data = xvg(os.path.join(OUT, w["pullx"]))
            se.append(block_se(data[data[:, 0] >= 2.0, 1]))
        for a in range(len(means) - 1):
            gap, gap_se = abs(means[a + 1] - means[a]), float(np.hypot(se[a], se[a + 1]))
            best = overlap(0.0, sds[a], max(gap - Z * gap_se, 0.0), sds[a + 1])  # the closest the data allow
            assert best >= OVERLAP_MIN, (
                f"windows {a} and {a + 1}: means {means[a]:.3f} and {means[a + 1]:.3f} nm "
                f"(+- {gap_se:.4f}), spreads {sds[a]:.4f} and {sds[a + 1]:.4f} nm: overlap "
                f"{overlap(means[a], sds[a], means[a + 1], sds[a + 1]):.4f}, at most {best:.4f}"
            )
    with checks.check("pmf.json's contact minimum is the PMF's lowest point below 0.34 nm"):
        inside = profile[profile[:, 0] <= 0.34]
        g = float(inside[:, 1].min())
        x_json, g_json = float(spec["contact_minimum_nm"]), float(spec["contact_minimum_kj_mol"])
        assert inside[0, 0] - 0.005 <= x_json <= 0.34, (
            f"pmf.json's contact minimum at {x_json} nm, outside the profile below 0.34 nm"
        )
        # pmf.json copies the delivered profile's own numbers (0.01 kJ/mol: their printing), not a rounded value
        delivered = xvg(f"{OUT}/pmf.xvg")
        g_delivered = float(delivered[delivered[:, 0] <= 0.34, 1].min())
        assert abs(g_json - g_delivered) <= 0.01, (
            f"pmf.json's contact minimum {g_json} kJ/mol; the delivered pmf.xvg's lowest point below 0.34 nm is "
            f"{g_delivered:.3f}"
        )
        at_json = float(np.interp(x_json, profile[:, 0], profile[:, 1]))  # the profile where pmf.json puts the minimum
        assert abs(g_json - g) <= PMF_TOL and abs(at_json - g) <= POSITION_TOL, (
            f"pmf.json {x_json} nm, {g_json} kJ/mol; the PMF's minimum below 0.34 nm is {g:.2f} kJ/mol "
            f"(at {inside[np.argmin(inside[:, 1]), 0]:.3f} nm), {at_json:.2f} kJ/mol at pmf.json's position"
        )

    with checks.check(
        f"the PMF has the contact ion pair's minimum at 0.26-0.31 nm and a desolvation barrier >= 3 kJ/mol "
        f"above it (0.32-0.42 nm; gmx wham at {PHYS_BINS} bins with its bootstrap error, within {Z:g} standard errors)"
    ):
        work = tempfile.mkdtemp()
        with open(os.path.join(work, "tpr.dat"), "w") as t, open(os.path.join(work, "pullx.dat"), "w") as p:
            for w in windows:
                t.write(os.path.join(OUT, w["tpr"]) + "\n")
                p.write(os.path.join(OUT, w["pullx"]) + "\n")
        code, log = gmx(
            "wham",
            "-it",
            "tpr.dat",
            "-ix",
            "pullx.dat",
            "-o",
            "pmf.xvg",
            "-hist",
            "histo.xvg",
            *WHAM,
            "-bins",
            str(PHYS_BINS),
            "-nBootstrap",
            str(N_BOOTSTRAP),
            "-bs-method",
            "traj",
            "-ac",
            "-bs-seed",
            str(BS_SEED),
            "-bsprof",
            "bsprof.xvg",
            "-bsres",
            "bsres.xvg",
            cwd=work,
        )
        assert code == 0, log[-300:]
        coarse = xvg(os.path.join(work, "pmf.xvg"))
        x, depth = contact_and_barrier(coarse)
        boots = [contact_and_barrier(b) for b in xvg_sets(os.path.join(work, "bsprof.xvg"))]
        shutil.rmtree(work, ignore_errors=True)
        assert len(boots) >= N_BOOTSTRAP // 2, f"{len(boots)} bootstrap profiles"
        se_x, se_depth = (float(np.std(v, ddof=1)) for v in zip(*boots))
        bin_width = float(coarse[1, 0] - coarse[0, 0])
        se_x = max(se_x, bin_width / np.sqrt(12))  # a position is known to a bin at best
        assert 0.26 - Z * se_x <= x <= 0.31 + Z * se_x and depth + Z * se_depth >= 3.0, (
            f"minimum at {x:.3f} +- {se_x:.3f} nm, barrier {depth:.2f} +- {se_depth:.2f} kJ/mol above it "
            f"(gmx wham, {PHYS_BINS} bins, {len(boots)} bootstrap profiles)"
        )


sys.exit(main(verify))
