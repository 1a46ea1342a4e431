"""Recompute the folded fraction with the agent's stated definition (mdtraj RMSD)."""

import sys

import mdtraj
from verifykit import count_fraction, load_json, main


def verify(checks):
    trajectory = mdtraj.load("/app/inputs/trajectory.dcd", top="/app/inputs/topology.pdb")
    rmsd = mdtraj.rmsd(
        trajectory, mdtraj.load("/app/inputs/reference.pdb"), atom_indices=trajectory.topology.select("name CA")
    )
    result = {}
    with checks.check("folded.json readable"):
        result = load_json("/app/output/folded.json")
    definition = result.get("definition") if isinstance(result.get("definition"), dict) else {}
    checks.require(
        "definition is the contracted metric",
        definition.get("metric") == "ca_rmsd",
        f"metric {definition.get('metric')}",
    )
    cutoff = definition.get("cutoff_nm")
    # Chignolin's folded state is defined in the literature by C-alpha RMSD cutoffs of 0.1-0.25 nm (0.3 nm at the
    # loosest); above that even this high-temperature trajectory's most distant frame (0.31 nm) counts as folded and
    # the definition separates nothing (a cutoff of 0.35 nm: 40 of 40 frames folded).
    checks.require(
        "cutoff is a sensible RMSD (0.05-0.30 nm)",
        isinstance(cutoff, (int, float)) and 0.05 <= cutoff <= 0.30,
        f"cutoff {cutoff} nm",
    )
    checks.require(
        "n_frames", result.get("n_frames") == trajectory.n_frames, f"{result.get('n_frames')} != {trajectory.n_frames}"
    )
    with checks.check("folded fraction reproducible from the stated definition"):
        # The folded frames counted exactly: RMSD codes (mdtraj, MDAnalysis, float32) agree to ~1e-5 nm, so only a
        # frame within 1e-4 nm of the cutoff may fall either side; one frame off (or a fraction over 39 frames, the
        # first left out) fails (count_fraction: a tolerance of 1 / n_frames passed it).
        low = int((rmsd < float(cutoff) - 1e-4).sum())
        high = int((rmsd < float(cutoff) + 1e-4).sum())
        assert count_fraction(result["folded_fraction"], (low, high), trajectory.n_frames), (
            f"{result['folded_fraction']} is not {low}-{high} of {trajectory.n_frames} frames"
        )
    assumptions = result.get("assumptions")
    checks.require(
        "assumptions stated",
        isinstance(assumptions, list)
        and len(assumptions) >= 1
        and all(isinstance(a, str) and len(a) >= 10 for a in assumptions),
        "no assumptions listed",
    )


sys.exit(main(verify))
