"""Check the umbrella windows with GROMACS itself: grompp -maxwarn 0 from the delivered .mdp and index files,
gmx dump of the pull settings, and the collective variable recomputed by a zero-step mdrun -rerun (pullx)."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

from verifykit import gmx as run_gmx
from verifykit import gmx_error, load_json, main

OUT, INPUTS = "/app/output", "/app/inputs"
CENTERS = [round(1.2 + 0.2 * i, 6) for i in range(9)]
K = 2000.0
MASSES = {"C": 12.01, "N": 14.01, "O": 16.00, "S": 32.06}  # amber99sb-ildn's heavy-atom masses
CV_TOL_NM = 0.002  # windows.json's start distance against the pull code's rerun
INDEPENDENT_TOL_NM = 0.005  # the pull code's value against a numpy COM distance with the force field's masses


# verifykit.gmx with this verifier's time limit per command
gmx = partial(run_gmx, timeout=240)


def read_gro(path):
    lines = open(path).read().splitlines()
    n = int(lines[1])
    atoms = [
        (int(l[0:5]), l[5:10].strip(), l[10:15].strip(), float(l[20:28]), float(l[28:36]), float(l[36:44]))
        for l in lines[2 : 2 + n]
    ]
    return atoms, [float(x) for x in lines[2 + n].split()[:3]]


def heavy(atoms, resid, resname):
    return {i for i, a in enumerate(atoms) if a[0] == resid and a[1] == resname and not a[2].startswith("H")}


def mdp_settings(path):
    """key = value settings of an mdp file (keys lower-case, '_' as '-')."""
    found = {}
    for line in open(path):
        text = line.split(";")[0]
        if "=" in text:
            key, value = (x.strip() for x in text.split("=", 1))
            found[key.lower().replace("_", "-")] = value
    return found


def dump_pull(tpr):
    """The pull section of `gmx dump -s tpr`: settings, group atom sets (0-based), coordinate 0's fields."""
    code, text = gmx("dump", "-s", tpr)
    assert code == 0, text[-300:]
    pull = {"natoms": int(re.search(r"natoms\s*=\s*(\d+)", text).group(1)), "groups": {}, "coord": {}}
    for key in ("integrator", "nsteps", "dt"):
        match = re.search(rf"^\s*{key}\s*[=:]\s*(\S+)", text, re.M)
        pull[key] = match.group(1) if match else None
    match = re.search(r"^\s*pull\s*=\s*(\S+)", text, re.M)
    pull["pull"] = match.group(1) if match else "false"
    if pull["pull"] != "true":
        return pull
    section = text[match.start() :]
    for key in ("pull-ngroups", "pull-ncoords", "pull-nstxout", "pull-nstfout"):
        pull[key] = int(re.search(rf"^\s*{key}\s*=\s*(-?\d+)", section, re.M).group(1))
    groups = re.split(r"^\s*pull-group (\d+):\s*$", section.split("pull-ncoords")[0], flags=re.M)
    for number, body in zip(groups[1::2], groups[2::2]):
        members = set()
        for single in re.findall(r"atom\[\d+\]=(\d+)", body):
            members.add(int(single))
        for first, last in re.findall(r"atom\[\d+,\.\.\.,\d+\]\s*=\s*\{(\d+),\.\.\.,(\d+)\}", body):
            members.update(range(int(first), int(last) + 1))
        pull["groups"][int(number)] = members
    coord = section.split("pull-coord 0:")[1] if "pull-coord 0:" in section else ""
    for key in ("type", "geometry", "group[0]", "group[1]", "start", "init", "rate", "k"):
        found = re.search(rf"^\s*{re.escape(key)}\s*=\s*(\S+)", coord, re.M)
        pull["coord"][key] = found.group(1) if found else None
    pull["coord"]["dim"] = [int(d) for d in re.findall(r"dim\[\d\]=(\d)", coord)[:3]]
    return pull


def first_pullx(path):
    for line in open(path):
        if line.strip() and not line.startswith(("#", "@")):
            return float(line.split()[1])
    raise AssertionError(f"{path} has no data")


def verify(checks):
    atoms, box = read_gro(f"{INPUTS}/conf.gro")
    tyr, trp = heavy(atoms, 2, "TYR"), heavy(atoms, 9, "TRP")
    work = tempfile.mkdtemp()
    spec = {}
    with checks.check("windows.json readable with the contracted keys"):
        spec = load_json(f"{OUT}/windows.json")
        assert (
            isinstance(spec.get("windows"), list)
            and "start_distance_nm" in spec
            and "force_constant_kj_mol_nm2" in spec
        ), f"keys {sorted(spec)}"
    with checks.check("index.ndx has the contracted groups TYR2_heavy and TRP9_heavy and the default System group"):
        names = re.findall(r"^\s*\[\s*(\S+)\s*\]", open(f"{OUT}/index.ndx").read(), re.M)
        assert {"System", "TYR2_heavy", "TRP9_heavy"} <= set(names), f"groups {names}"
    for i in range(9):
        with checks.check(f"window_{i}.mdp and window_{i}.tpr present"):
            assert os.path.isfile(f"{OUT}/window_{i}.mdp") and os.path.isfile(f"{OUT}/window_{i}.tpr"), "missing"
    windows = spec.get("windows") or []
    checks.require(
        "windows.json lists the 9 contracted centres in order (nm)",
        [round(float(w.get("center_nm", -1)), 4) for w in windows] == [round(c, 4) for c in CENTERS]
        and [w.get("window") for w in windows] == list(range(9)),
        f"centres {[w.get('center_nm') for w in windows]}",
    )
    checks.require(
        "windows.json force constant 2000 kJ mol^-1 nm^-2",
        abs(float(spec.get("force_constant_kj_mol_nm2") or 0) - K) < 1e-6,
        f"{spec.get('force_constant_kj_mol_nm2')}",
    )
    delivered = []
    for i in range(9):
        with checks.check(
            f"window_{i}.tpr: the pull code as contracted (gmx dump: umbrella, distance, Y Y Y, groups, init, rate, k)"
        ):
            pull = dump_pull(f"{OUT}/window_{i}.tpr")
            delivered.append(pull)
            assert pull["natoms"] == len(atoms), f"{pull['natoms']} atoms, conf.gro has {len(atoms)}"
            assert pull["pull"] == "true", "pull code off"
            assert pull["pull-ncoords"] == 1, f"{pull['pull-ncoords']} pull coordinates"
            coord = pull["coord"]
            assert coord["type"] == "umbrella" and coord["geometry"] == "distance", (
                f"type {coord['type']}, geometry {coord['geometry']}"
            )
            assert coord["dim"] == [1, 1, 1], f"dim {coord['dim']} (all three dimensions asked for)"
            members = [pull["groups"].get(int(coord["group[0]"])), pull["groups"].get(int(coord["group[1]"]))]
            assert sorted(members, key=min) == sorted([tyr, trp], key=min), (
                f"pull groups of {[len(m or ()) for m in members]} atoms; "
                f"Tyr2 and Trp9 have {len(tyr)} and {len(trp)} heavy atoms"
            )
            assert coord["start"] == "false", "pull-coord1-start = yes: the centre becomes the start distance plus init"
            assert abs(float(coord["init"]) - CENTERS[i]) < 1e-4, (
                f"init {coord['init']} nm, window centre {CENTERS[i]} nm"
            )
            assert float(coord["rate"]) == 0.0, f"rate {coord['rate']}"
            assert abs(float(coord["k"]) - K) < 1e-3 * K, f"k {coord['k']}"
            assert pull["pull-nstxout"] == 50 and pull["pull-nstfout"] == 50, (
                f"pull-nstxout {pull['pull-nstxout']}, pull-nstfout {pull['pull-nstfout']} (50 asked for)"
            )
        with checks.check(f"window_{i}.tpr keeps md.mdp's run settings (sd, dt 0.002, 50000 steps)"):
            pull = delivered[-1] if len(delivered) == i + 1 else dump_pull(f"{OUT}/window_{i}.tpr")
            assert (pull["integrator"], pull["nsteps"], float(pull["dt"] or 0)) == ("sd", "50000", 0.002), (
                f"integrator {pull['integrator']}, nsteps {pull['nsteps']}, dt {pull['dt']}"
            )
        with checks.check(
            f"grompp -maxwarn 0 rebuilds window_{i} from window_{i}.mdp + index.ndx with the same pull settings"
        ):
            copy = os.path.join(work, f"w{i}")
            os.makedirs(copy)
            for name in (f"window_{i}.mdp", "index.ndx"):
                shutil.copy(f"{OUT}/{name}", copy)
            for name in os.listdir(INPUTS):
                shutil.copy(os.path.join(INPUTS, name), copy)
            code, log = gmx(
                "grompp",
                "-f",
                f"window_{i}.mdp",
                "-c",
                "conf.gro",
                "-r",
                "conf.gro",
                "-p",
                "topol.top",
                "-n",
                "index.ndx",
                "-o",
                "re.tpr",
                "-po",
                "out.mdp",
                "-maxwarn",
                "0",
                cwd=copy,
            )
            assert code == 0, gmx_error(log)
            again = dump_pull(os.path.join(copy, "re.tpr"))
            assert again["coord"] == delivered[i]["coord"] and again["groups"] == delivered[i]["groups"], (
                "the .mdp does not make the delivered .tpr's pull settings"
            )
            code, diff = gmx("check", "-s1", f"{OUT}/window_{i}.tpr", "-s2", os.path.join(copy, "re.tpr"))
            # the run settings and the starting frame: every window starts from the shipped conf.gro
            differing = [
                l
                for l in diff.splitlines()
                if l.startswith(("inputrec->", "x[", "box")) and "seed" not in l.lower()  # ld-seed -1: random
            ]
            assert not differing, (
                "the delivered .tpr is not grompp's of the .mdp with /app/inputs/conf.gro: " + "; ".join(differing[:3])
            )
        with checks.check(f"window_{i}.mdp keeps every setting of md.mdp unchanged (grompp's processed mdp)"):
            processed = mdp_settings(os.path.join(work, f"w{i}", "out.mdp"))
            changed = []
            for key, value in mdp_settings(f"{INPUTS}/md.mdp").items():
                got = processed.get(key, "")
                try:
                    same = [float(x) for x in got.split()] == [float(x) for x in value.split()]
                except ValueError:
                    same = got.lower() == value.lower()
                if not same:
                    changed.append(f"{key} = {got!r} (md.mdp: {value!r})")
            assert not changed, "; ".join(changed)
    pullx = None
    with checks.check(
        "the pull code's own value of the coordinate in conf.gro (mdrun -rerun, pullx) matches start_distance_nm"
    ):
        rerun = os.path.join(work, "rerun")
        os.makedirs(rerun)
        code, log = gmx(
            "mdrun",
            "-s",
            f"{OUT}/window_0.tpr",
            "-rerun",
            f"{INPUTS}/conf.gro",
            "-deffnm",
            "rerun",
            "-px",
            "pullx.xvg",
            "-pf",
            "pullf.xvg",
            "-nt",
            "1",
            cwd=rerun,
        )
        assert code == 0, log[-400:]
        pullx = first_pullx(os.path.join(rerun, "pullx.xvg"))
        assert abs(float(spec["start_distance_nm"]) - pullx) <= CV_TOL_NM, (
            f"start_distance_nm {spec.get('start_distance_nm')}; "
            f"the pull code gives {pullx:.4f} nm (tolerance {CV_TOL_NM})"
        )
    with checks.check("the pull code's value agrees with the heavy-atom COM distance computed independently (5 pm)"):
        import numpy as np

        def com(group):
            xyz = np.array([atoms[j][3:6] for j in sorted(group)])
            mass = np.array([MASSES[atoms[j][2][0]] for j in sorted(group)])
            return (xyz * mass[:, None]).sum(0) / mass.sum()

        d = com(trp) - com(tyr)
        d -= np.round(d / np.array(box)) * np.array(box)
        assert pullx is not None and abs(float(np.linalg.norm(d)) - pullx) <= INDEPENDENT_TOL_NM, (
            f"numpy {np.linalg.norm(d):.4f} nm, pull code {pullx}"
        )


sys.exit(main(verify))
