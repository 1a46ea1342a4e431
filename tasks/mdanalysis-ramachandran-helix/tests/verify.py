"""Recompute the backbone dihedrals of the shipped trajectory with MDAnalysis and compare the deliverables."""

import csv
import sys
import warnings

import MDAnalysis as mda
import numpy as np
from MDAnalysis.analysis.dihedrals import Ramachandran
from verifykit import count_fraction, load_json, main

PHI_RANGE = (-100.0, -30.0)  # degrees, bounds included, as the instruction states
PSI_RANGE = (-80.0, -10.0)
ANGLE_TOLERANCE_DEG = 0.05  # MDAnalysis and mdtraj (float32) agree to 6.4e-5 degrees on these frames


def reference():
    """(residues, phi and psi in degrees (frames, residues), in-region mask) of residues 2-19 over every frame."""
    universe = mda.Universe("/app/inputs/trpcage.pdb", "/app/inputs/trpcage.xtc")
    residues = universe.select_atoms("protein").residues[1:-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        angles = Ramachandran(residues.atoms).run().results.angles
    phi, psi = angles[..., 0], angles[..., 1]
    alpha = (phi >= PHI_RANGE[0]) & (phi <= PHI_RANGE[1]) & (psi >= PSI_RANGE[0]) & (psi <= PSI_RANGE[1])
    return residues, phi, psi, alpha


def angle_difference(a, b):
    """The smallest difference of two angles in degrees (-180 and 180 are the same)."""
    return np.abs((np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0)


def verify(checks):
    residues, phi, psi, alpha = reference()
    n_frames, numbers = phi.shape[0], [int(r.resid) for r in residues]
    rows = []
    with checks.check("dihedrals.csv has the contracted header, one row per frame and residue, in order"):
        with open("/app/output/dihedrals.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["frame", "residue", "phi", "psi"], f"header {reader.fieldnames}"
            rows = list(reader)
        keys = [(int(r["frame"]), int(r["residue"])) for r in rows]
        expected = [(frame, number) for frame in range(n_frames) for number in numbers]
        assert keys == expected, f"{len(keys)} rows, not frames 0-{n_frames - 1} by residues {numbers[0]}-{numbers[-1]}"
    with checks.check("phi and psi per frame and residue (0.05 degrees, periodic)"):
        delivered = np.array([[float(r["phi"]), float(r["psi"])] for r in rows]).reshape(n_frames, len(numbers), 2)
        for k, (name, values) in enumerate((("phi", phi), ("psi", psi))):
            off = angle_difference(delivered[..., k], values)
            worst = np.unravel_index(np.argmax(off), off.shape)
            assert off.max() <= ANGLE_TOLERANCE_DEG, (
                f"{name} of residue {numbers[worst[1]]} in frame {worst[0]}: {delivered[worst][k]} vs "
                f"{values[worst]:.3f} ({int((off > ANGLE_TOLERANCE_DEG).sum())} values off)"
            )
    table = []
    with checks.check("alpha.csv has the contracted header, one row per residue 2 to 19"):
        with open("/app/output/alpha.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["residue", "resname", "alpha_fraction"], f"header {reader.fieldnames}"
            table = list(reader)
        assert [int(r["residue"]) for r in table] == numbers, f"residues {[r['residue'] for r in table]}"
        assert [r["resname"].strip() for r in table] == [r.resname for r in residues], "residue names"
    with checks.check("alpha fraction per residue (its frames of the 100, to a tenth of a frame)"):
        assert table, "no rows"
        counts = alpha.sum(axis=0)
        wrong = [
            f"residue {row['residue']}: {row['alpha_fraction']} vs {count / n_frames:.4f}"
            for row, count in zip(table, counts)
            if not count_fraction(row["alpha_fraction"], int(count), n_frames)
        ]
        assert not wrong, f"{len(wrong)} of {len(table)} residues off: {wrong[:3]}"
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json("/app/output/summary.json")
    checks.require("n_frames", summary.get("n_frames") == n_frames, f"{summary.get('n_frames')} != {n_frames}")
    with checks.check("mean alpha fraction of the chain (residue-frames, to a tenth of one)"):
        value = summary["mean_alpha_fraction"]
        assert count_fraction(value, int(alpha.sum()), alpha.size), f"{value} != {alpha.mean():.5f}"
    helical = [number for number, fraction in zip(numbers, alpha.mean(axis=0)) if fraction >= 0.5]
    checks.require(
        "helical residues (alpha fraction at least 0.5)",
        summary.get("helical_residues") == helical,
        f"{summary.get('helical_residues')} vs {helical}",
    )


sys.exit(main(verify))
