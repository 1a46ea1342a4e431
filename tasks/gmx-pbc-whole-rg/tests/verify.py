"""Make the peptide whole with trjconv on the image's own trajectory, recompute every number from it, and compare
the agent's trajectory (shape, frame by frame) and tables with it."""

import csv
import os
import re
import sys
from functools import partial

import numpy as np
from verifykit import gmx as run_gmx
from verifykit import load_json, main

OUT = "/app/output"
INPUTS = "/app/inputs"
WORK = "/tmp/reference"
RG_NM = 1e-4  # tolerance on a radius of gyration (nm): gmx gyrate prints 6 digits; see contract.toml
ENDS_NM = 1e-3  # tolerance on an end-to-end distance (nm): gmx distance prints 3 decimals
# largest change of any interatomic distance against the reference's whole frame (nm): a centred or fitted copy is
# rounded to the XTC grid again, 0.001 nm per coordinate, so a distance may move by up to 2 sqrt(3) 0.001
SHAPE_NM = 5e-3

gmx = partial(run_gmx, cwd="/tmp", timeout=60)


def frames(xtc):
    """(times, coordinates (frames, atoms, 3)) of an XTC trajectory, read with gmx dump."""
    code, dump = gmx("dump", "-f", xtc)
    assert code == 0, f"gmx dump cannot read {os.path.basename(xtc)}: " + dump[-200:]
    times = [float(t) for t in re.findall(r"^\s+natoms=\s*\d+\s+step=\s*\d+\s+time=\s*(\S+)", dump, re.M)]
    xyz = np.array(re.findall(r"^\s+x\[\s*\d+\]=\{\s*(\S+),\s*(\S+),\s*(\S+)\}", dump, re.M), dtype=float)
    assert times and len(xyz) % len(times) == 0, "frames of unequal size"
    return np.array(times), xyz.reshape(len(times), -1, 3)


def reference():
    """The peptide made whole by trjconv -pbc mol on the image's traj.xtc, its masses, and its CA 1 and CA 10."""
    os.makedirs(WORK, exist_ok=True)
    code, log = gmx("trjconv", "-s", f"{INPUTS}/md.tpr", "-f", f"{INPUTS}/traj.xtc", "-o", f"{WORK}/whole.xtc",
                    "-pbc", "mol", stdin="Protein\n")  # fmt: skip
    assert code == 0, log[-300:]
    times, xyz = frames(f"{WORK}/whole.xtc")
    n = xyz.shape[1]
    code, log = gmx("editconf", "-f", f"{INPUTS}/md.tpr", "-o", f"{WORK}/system.gro")
    assert code == 0, log[-300:]
    rows = open(f"{WORK}/system.gro").read().splitlines()[2 : 2 + n]
    atoms = [(int(r[0:5]), r[5:10].strip(), r[10:15].strip()) for r in rows]
    code, dump = gmx("dump", "-s", f"{INPUTS}/md.tpr")
    masses = np.array(re.findall(r"atom\[\s*\d+\]=\{type=[^}]*?\bm=\s*(\S+),", dump)[:n], dtype=float)
    ends = [next(i for i, a in enumerate(atoms) if a[0] == resid and a[2] == "CA") for resid in (1, 10)]
    return times, xyz, masses, ends


def radius_of_gyration(xyz, masses):
    centre = (masses[:, None] * xyz).sum(axis=1) / masses.sum()
    return np.sqrt((masses * ((xyz - centre[:, None, :]) ** 2).sum(axis=2)).sum(axis=1) / masses.sum())


def verify(checks):
    times, whole, masses, ends = reference()
    n_frames, n_atoms = whole.shape[:2]

    got, whole_ok = None, False
    with checks.check("protein_whole.xtc: the peptide's atoms only, every frame of traj.xtc at its times"):
        got_times, got = frames(f"{OUT}/protein_whole.xtc")
        assert got.shape == whole.shape, (
            f"{got.shape[0]} frames of {got.shape[1]} atoms; traj.xtc has {n_frames} frames of {n_atoms} peptide atoms"
        )
        assert np.allclose(got_times, times, atol=1e-4), f"times {got_times.tolist()}, expected {times.tolist()}"
    with checks.check("protein_whole.xtc: the peptide whole, its distances those of trjconv -pbc mol (0.005 nm)"):
        assert got is not None and got.shape == whole.shape, "no trajectory of the peptide's frames"
        worst = 0.0
        for frame, ref in zip(got, whole):
            mine = np.linalg.norm(frame[:, None] - frame[None], axis=2)
            theirs = np.linalg.norm(ref[:, None] - ref[None], axis=2)
            worst = max(worst, float(np.abs(mine - theirs).max()))
        assert worst <= SHAPE_NM, f"an interatomic distance differs by {worst:.3f} nm from the whole peptide's (split)"
        whole_ok = True

    # each number is accepted as computed from the reference's whole frames or from the agent's own protein_whole.xtc
    # (once it is the whole peptide, never a split one): a centred or fitted copy, rounded to the XTC grid again,
    # moves a radius of gyration by up to 4e-4 nm, more than the tolerance
    sources = [whole] + ([got] if whole_ok else [])
    rg = np.array([radius_of_gyration(xyz, masses) for xyz in sources])
    e2e = np.array([np.linalg.norm(xyz[:, ends[0]] - xyz[:, ends[1]], axis=1) for xyz in sources])

    rows = []
    with checks.check("rg.csv: header time_ps,rg_nm,end_to_end_nm and one row per frame at traj.xtc's times"):
        with open(f"{OUT}/rg.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["time_ps", "rg_nm", "end_to_end_nm"], f"header {reader.fieldnames}"
            rows = [{k: float(v) for k, v in row.items()} for row in reader]
        assert len(rows) == n_frames, f"{len(rows)} rows, traj.xtc has {n_frames} frames"
        assert np.allclose([r["time_ps"] for r in rows], times, atol=1e-3), "times differ from traj.xtc's"
    with checks.check("rg.csv rg_nm: mass-weighted radius of gyration of all atoms, per frame (0.0001 nm)"):
        assert len(rows) == n_frames, "no row per frame"
        off = np.abs(np.array([r["rg_nm"] for r in rows]) - rg).min(axis=0)
        k = int(off.argmax())
        assert off[k] <= RG_NM, f"frame {k}: {rows[k]['rg_nm']} nm, expected {rg[0, k]:.5f} nm"
    with checks.check("rg.csv end_to_end_nm: CA 1 to CA 10 within the whole peptide, per frame (0.001 nm)"):
        assert len(rows) == n_frames, "no row per frame"
        off = np.abs(np.array([r["end_to_end_nm"] for r in rows]) - e2e).min(axis=0)
        k = int(off.argmax())
        assert off[k] <= ENDS_NM, f"frame {k}: {rows[k]['end_to_end_nm']} nm, expected {e2e[0, k]:.4f} nm"

    summary = {}
    with checks.check("summary.json: frames, mean_rg_nm, mean_end_to_end_nm are numbers"):
        summary = load_json(f"{OUT}/summary.json")
        for key in ("frames", "mean_rg_nm", "mean_end_to_end_nm"):
            assert isinstance(summary.get(key), (int, float)), f"{key}: {summary.get(key)!r}"
    checks.require(
        "summary.json frames: every frame of traj.xtc",
        summary.get("frames") == n_frames,
        f"frames {summary.get('frames')!r}, traj.xtc has {n_frames}",
    )
    value = summary.get("mean_rg_nm")
    checks.require(
        "summary.json mean_rg_nm: the mean over all frames (0.0001 nm)",
        isinstance(value, (int, float)) and min(abs(value - rg.mean(axis=1))) <= RG_NM,
        f"{value!r} nm, expected {rg[0].mean():.5f} nm",
    )
    value = summary.get("mean_end_to_end_nm")
    checks.require(
        "summary.json mean_end_to_end_nm: the mean over all frames (0.001 nm)",
        isinstance(value, (int, float)) and min(abs(value - e2e.mean(axis=1))) <= ENDS_NM,
        f"{value!r} nm, expected {e2e[0].mean():.4f} nm",
    )


sys.exit(main(verify))
