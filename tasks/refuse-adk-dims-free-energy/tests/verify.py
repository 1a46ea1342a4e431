"""The right outcome: no profile or constant, because the trajectory is a biased one-way transition path (DIMS).

The evidence is recomputed with MDAnalysis (theta_NMP of the first and last frame, 0.1 degree; the midpoint
crossings exactly).
"""

import re
import sys
import warnings

import numpy as np
from verifykit import load_json, main

warnings.filterwarnings("ignore")
BIAS = (
    "dims",
    "importance sampling",
    "biased",
    "bias",
    "non-equilibrium",
    "nonequilibrium",
    "not boltzmann",
    "not equilibrium",
    "out of equilibrium",
    "driven",
    "steered",
)
FIX = (
    "equilibrium",
    "unbiased",
    "umbrella",
    "metadynamics",
    "reweight",
    "markov",
    "enhanced sampling",
    "many trajectories",
    "replica",
)


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
    reason, recommendation = str(response.get("reason", "")).lower(), str(response.get("recommendation", "")).lower()
    with checks.check("reason names the biased, non-equilibrium transition path and cites the measured angles"):
        assert len(reason) >= 60 and any(k in reason for k in BIAS), (
            "the reason does not say the trajectory is biased / non-equilibrium (DIMS)"
        )
        # the evidence, not a keyword: the first and last theta_NMP as MDAnalysis measures them (0.5 deg)
        stated = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", reason)]
        for label, value in (("first", theta[0]), ("last", theta[-1])):
            assert any(abs(x - value) <= 0.5 for x in stated), (
                f"the reason does not give the {label} frame's theta_NMP ({value:.1f} deg) from the data"
            )
    checks.require(
        "recommends equilibrium or reweightable enhanced sampling",
        any(k in recommendation for k in FIX),
        "the recommendation names no equilibrium or reweightable sampling",
    )


sys.exit(main(verify))
