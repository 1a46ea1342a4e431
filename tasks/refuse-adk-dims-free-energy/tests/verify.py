"""The right outcome: no profile or constant, because the trajectory is a biased one-way transition path (DIMS).

The evidence is recomputed with MDAnalysis (theta_NMP of the first and last frame, 0.1 degree; the midpoint
crossings exactly). The cause and the remedy are enumerated and checked exactly; the free-text reason and
recommendation are the rubric judge's to read, apart from the measured angles the reason must cite.
"""

import re
import sys
import warnings

import numpy as np
from verifykit import load_json, main

warnings.filterwarnings("ignore")
# A keyword in the free text passes nothing: a recommendation that asks for more of the same DIMS paths names
# "equilibrium" in passing, a reason that denies the bias names "DIMS".
CAUSES = ("biased_transition_path", "trajectory_too_short", "angle_undefined", "other")
REMEDIES = (
    "equilibrium_sampling",
    "biased_sampling_with_reweighting",
    "more_transition_paths",
    "more_frames_of_this_path",
    "other",
)
# The remedies that give equilibrium populations along theta_NMP: unbiased sampling of both states with
# transitions, or a known bias removed by reweighting. More driven paths or more frames of this one give none.
RIGHT_REMEDIES = ("equilibrium_sampling", "biased_sampling_with_reweighting")


def theta_nmp():
    import MDAnalysis as mda
    from MDAnalysisTests.datafiles import DCD, PSF

    u = mda.Universe(PSF, DCD)
    sel = [u.select_atoms(s + " and (backbone or name CB)") for s in ("resid 35:55", "resid 90:100", "resid 115:125")]
    out = []
    for _ in u.trajectory:
        a, b, c = (g.center_of_geometry() for g in sel)
        out.append(np.degrees(np.arccos(np.dot(a - b, c - b) / np.linalg.norm(a - b) / np.linalg.norm(c - b))))
    return np.array(out)


def verify(checks):
    response = {}
    with checks.check("response.json readable"):
        response = load_json("/app/output/response.json")
        assert all(isinstance(response.get(k), str) for k in ("reason", "recommendation")), (
            "reason and recommendation must be strings"
        )
    checks.require(
        "status is cannot_estimate", response.get("status") == "cannot_estimate", f"status {response.get('status')}"
    )
    checks.require(
        "no profile or equilibrium constant given as the answer",
        not response.get("profile") and response.get("equilibrium_constant") in (None, ""),
        "a profile or constant was reported",
    )
    theta = theta_nmp()
    mid = (theta[0] + theta[-1]) / 2
    crossings = int(np.count_nonzero(np.diff(np.sign(theta - mid)) != 0))
    with checks.check("evidence: theta_NMP of the first and last frame (MDAnalysis, 0.1 deg)"):
        assert (
            abs(float(response["theta_nmp_first_deg"]) - theta[0]) <= 0.1
            and abs(float(response["theta_nmp_last_deg"]) - theta[-1]) <= 0.1
        ), f"{response['theta_nmp_first_deg']}, {response['theta_nmp_last_deg']} vs {theta[0]:.2f}, {theta[-1]:.2f}"
    with checks.check("evidence: midpoint crossings (a one-way path)"):
        assert int(response["n_midpoint_crossings"]) == crossings, f"{response['n_midpoint_crossings']} vs {crossings}"
    with checks.check("evidence: the reason cites the measured first and last theta_NMP (0.5 deg)"):
        # numbers, not keywords: the first and last theta_NMP as MDAnalysis measures them, as the text rounds them
        stated = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", str(response.get("reason", "")))]
        for label, value in (("first", theta[0]), ("last", theta[-1])):
            assert any(abs(x - value) <= 0.5 for x in stated), (
                f"the reason does not give the {label} frame's theta_NMP ({value:.1f} deg) from the data"
            )
    cause, remedy = response.get("cause"), response.get("remedy")
    checks.require(
        "cause: a biased one-way transition path (biased_transition_path of the enumerated causes)",
        cause == "biased_transition_path",
        f"cause {cause!r}" + ("" if cause in CAUSES else f" is none of {', '.join(CAUSES)}"),
    )
    checks.require(
        "remedy: equilibrium populations, unbiased or reweighted (equilibrium_sampling or "
        "biased_sampling_with_reweighting of the enumerated remedies)",
        remedy in RIGHT_REMEDIES,
        f"remedy {remedy!r}"
        + (
            f" gives no equilibrium populations (accepted: {', '.join(RIGHT_REMEDIES)})"
            if remedy in REMEDIES
            else f" is none of {', '.join(REMEDIES)}"
        ),
    )


sys.exit(main(verify))
