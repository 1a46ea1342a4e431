"""Recompute the Baker-Hubbard hydrogen bonds of the shipped trajectory with mdtraj and compare the deliverables."""

import csv
import sys

import mdtraj
import numpy as np
from verifykit import count_fraction, load_json, main

DISTANCE_NM = 0.25  # H...A, as the instruction states
ANGLE_DEG = 120  # D-H...A
THRESHOLD = 0.5  # occupancy above which a triplet is reported


def reference():
    """{(donor, hydrogen, acceptor) labels: frames bonded} of every triplet bonded in some frame, the per-frame counts.

    Each frame through mdtraj.baker_hubbard itself (a triplet is bonded in a one-frame trajectory when it occurs in
    more than 0 of its frames), so the criterion is mdtraj's own code, not a copy of it.
    """
    trajectory = mdtraj.load("/app/inputs/trpcage.xtc", top="/app/inputs/trpcage.pdb")
    atoms = list(trajectory.topology.atoms)
    counts, per_frame = {}, []
    for frame in range(trajectory.n_frames):
        found = mdtraj.baker_hubbard(trajectory[frame], freq=0.0, distance_cutoff=DISTANCE_NM, angle_cutoff=ANGLE_DEG)
        per_frame.append(len(found))
        for d, h, a in found:
            key = (str(atoms[d]), str(atoms[h]), str(atoms[a]))
            counts[key] = counts.get(key, 0) + 1
    n = trajectory.n_frames
    return counts, np.array(per_frame), n


def verify(checks):
    counts, per_frame, n_frames = reference()
    expected = {key: count for key, count in counts.items() if count / n_frames > THRESHOLD}
    rows = []
    with checks.check("hbonds.csv has the contracted header, one row per triplet, sorted by occupancy"):
        with open("/app/output/hbonds.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["donor", "hydrogen", "acceptor", "occupancy"], f"header {reader.fieldnames}"
            rows = list(reader)
        values = [float(r["occupancy"]) for r in rows]
        assert all(a >= b for a, b in zip(values, values[1:])), "rows are not sorted by occupancy, highest first"
        keys = [(r["donor"].strip(), r["hydrogen"].strip(), r["acceptor"].strip()) for r in rows]
        assert len(set(keys)) == len(keys), "a triplet is listed twice"
    delivered = {
        (r["donor"].strip(), r["hydrogen"].strip(), r["acceptor"].strip()): float(r["occupancy"]) for r in rows
    }
    with checks.check("the triplets with occupancy above 0.5 (mdtraj's Baker-Hubbard, 0.25 nm, 120 degrees)"):
        extra = sorted(set(delivered) - set(expected))
        missing = sorted(set(expected) - set(delivered))
        assert not extra and not missing, (
            f"{len(extra)} listed not above 0.5 (e.g. {extra[:2]}), {len(missing)} missing (e.g. {missing[:2]})"
        )
    with checks.check("occupancy of each triplet (its frames of the 100, to a tenth of a frame)"):
        assert delivered, "no triplet listed"
        wrong = [
            f"{'-'.join(key)} {value} vs {counts.get(key, 0) / n_frames:.4f}"
            for key, value in delivered.items()
            if not count_fraction(value, counts.get(key, 0), n_frames)
        ]
        assert not wrong, f"{len(wrong)} of {len(delivered)} off: {wrong[:3]}"
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json("/app/output/summary.json")
    checks.require("n_frames", summary.get("n_frames") == n_frames, f"{summary.get('n_frames')} != {n_frames}")
    checks.require(
        "n_hbonds (triplets above 0.5)",
        summary.get("n_hbonds") == len(expected),
        f"{summary.get('n_hbonds')} != {len(expected)}",
    )
    with checks.check("mean number of hydrogen bonds per frame (all triplets)"):
        value, mean = float(summary["mean_hbonds_per_frame"]), float(per_frame.mean())
        # the total over the frames divided by their number: a tenth of one bond in one frame
        assert abs(value - mean) <= 0.1 / n_frames, f"{value} != {mean:.4f}"


sys.exit(main(verify))
