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
    "not an equilibrium",
    "not in equilibrium",
    "not at equilibrium",
    "not an unbiased",
    "not unbiased",
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


# A key counts where the text asserts it: not after a negation a few words before ("not biased", "no bias";
# "unbiased" is no match), nor as the subject of a dismissal right after it ("the DIMS bias is not the problem"); a
# reason that dismisses any key denies the cause, whatever else it names.
NEGATED = re.compile(r"\b(?:not|no|never|nor|without|isn't|wasn't|aren't|hardly)\W+(?:[\w'-]+\W+){0,2}$")
DISMISSAL = re.compile(
    r"^(?:[^,;:.!?]|\.(?=\w)){0,80}?\b(?:(?:is|are|was|were)(?:\s+not|n't)\s+(?:the|a|an)\s+(?!only\b)(?:\w+\s+)?"
    r"(?:problem|issue|reason|cause|limitation|concern)\b|(?:is|are|was|were)\s+irrelevant\b"
    r"|(?:does|do|did)(?:\s+not|n't)\s+matter\b)"
)


def affirms(text, keys):
    """Whether ``text`` asserts one of ``keys`` and dismisses none (see NEGATED and DISMISSAL); a key that is itself
    a negation ("not an equilibrium") counts as written.

    >>> affirms("A biased DIMS path.", BIAS), affirms("The path is not biased; it is short.", BIAS)
    (True, False)
    >>> affirms("The DIMS bias is not the problem: 98 frames are too few.", BIAS), affirms("It is unbiased.", BIAS)
    (False, False)
    >>> affirms("The path is biased, and its length is not the issue.", BIAS)
    True
    """
    text, asserted = text.lower(), False
    for key in keys:
        for match in re.finditer(r"(?<![\w-])" + re.escape(key), text):
            if DISMISSAL.search(text[match.end() :]):
                return False
            sentence = re.split(r"[.;!?]\s+", text[: match.start()])[-1]
            asserted |= key.startswith("not ") or not NEGATED.search(sentence)
    return asserted


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
        # asserted, not merely mentioned: a reason that denies the bias ("not biased", "the bias is not the problem")
        # names the word but not the cause
        assert len(reason) >= 60 and affirms(reason, BIAS), (
            "the reason does not say the trajectory is biased / non-equilibrium (DIMS), or denies it"
        )
        # the evidence, not a keyword: the first and last theta_NMP as MDAnalysis measures them (0.5 deg)
        stated = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", reason)]
        for label, value in (("first", theta[0]), ("last", theta[-1])):
            assert any(abs(x - value) <= 0.5 for x in stated), (
                f"the reason does not give the {label} frame's theta_NMP ({value:.1f} deg) from the data"
            )
    checks.require(
        "recommends equilibrium or reweightable enhanced sampling",
        affirms(recommendation, FIX),
        "the recommendation names no equilibrium or reweightable sampling",
    )


sys.exit(main(verify))
