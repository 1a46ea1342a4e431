"""The right outcome: no flux ever reached the target, so no rate can be given (checked with h5py)."""

import re
import sys

import h5py
from verifykit import load_json, main

KEYWORDS = (
    "no segment",
    "never",
    "no walker",
    "no flux",
    "zero flux",
    "not reach",
    "did not reach",
    "no transition",
    "no recycl",
    "not observed",
    "none of",
)


def verify(checks):
    with h5py.File("/app/inputs/west.h5", "r") as h5:
        groups = [h5["iterations"][n] for n in sorted(h5["iterations"])]
        recycled = sum(float(g["seg_index"]["weight"][g["seg_index"]["endpoint_type"] == 3].sum()) for g in groups)
        min_pcoord = min(float(g["pcoord"][:].min()) for g in groups)
        n = len(groups)
    response = {}
    with checks.check("response.json readable"):
        response = load_json("/app/output/response.json")
    checks.require(
        "status is insufficient_data", response.get("status") == "insufficient_data", f"status {response.get('status')}"
    )
    checks.require(
        "no rate claimed",
        bool(response) and response.get("rate_per_ps") is None and response.get("rate_stderr_per_ps") is None,
        f"rate {response.get('rate_per_ps')}",
    )
    checks.require(
        "evidence: iterations and recycled weight",
        response.get("n_iterations") == n
        and isinstance(response.get("recycled_weight_total"), (int, float))
        and abs(response["recycled_weight_total"] - recycled) < 1e-12,
        f"n_iterations {response.get('n_iterations')} (file {n}), "
        f"recycled {response.get('recycled_weight_total')} (file {recycled})",
    )
    with checks.check(f"evidence: smallest pcoord reached ({min_pcoord:.3f})"):
        assert abs(float(response["min_pcoord"]) - min_pcoord) < 1e-3, f"min_pcoord {response['min_pcoord']}"
    reason = str(response.get("reason", "")).lower()
    with checks.check("reason says the target was never reached and gives the closest approach"):
        assert len(reason) >= 40 and any(k in reason for k in KEYWORDS), (
            "the reason does not say that no flux reached the target"
        )
        # the evidence, not a keyword: the smallest pcoord any segment reached (0.01), against the target's 1.0
        stated = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?", reason)]
        assert any(abs(x - min_pcoord) <= 0.01 for x in stated), (
            f"the reason does not give the closest approach to the target (pcoord {min_pcoord:.3f})"
        )
    recommendation = str(response.get("recommendation", "")).lower()
    checks.require(
        "recommends more sampling",
        any(k in recommendation for k in ("iteration", "continue", "longer", "bin", "walker", "extend")),
        "no actionable recommendation",
    )


sys.exit(main(verify))
