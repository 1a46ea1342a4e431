"""The right outcome: no flux ever reached the target, so no rate can be given (checked with h5py)."""

import sys

import h5py
from verifykit import load_json, main

# The cause and the remedy are enumerated and checked exactly; the free-text reason and recommendation are the rubric
# judge's to read (a keyword in them passes nothing: "the flux never settled" names "never" and denies the real cause).
CAUSES = ("no_flux_into_target", "flux_not_steady", "weights_not_conserved", "pcoord_undefined", "other")
REMEDIES = ("extend_sampling", "report_zero_rate", "report_upper_bound", "redefine_target", "other")


def verify(checks):
    with h5py.File("/app/inputs/west.h5", "r") as h5:
        groups = [h5["iterations"][n] for n in sorted(h5["iterations"])]
        recycled = sum(float(g["seg_index"]["weight"][g["seg_index"]["endpoint_type"] == 3].sum()) for g in groups)
        min_pcoord = min(float(g["pcoord"][:].min()) for g in groups)
        n = len(groups)
    response = {}
    with checks.check("response.json readable"):
        response = load_json("/app/output/response.json")
        assert all(isinstance(response.get(k), str) for k in ("reason", "recommendation")), (
            "reason and recommendation must be strings"
        )
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
    cause, remedy = response.get("cause"), response.get("remedy")
    checks.require(
        "cause: no flux ever reached the target (no_flux_into_target of the enumerated causes)",
        cause == "no_flux_into_target" and recycled == 0.0,
        f"cause {cause!r}" + ("" if cause in CAUSES else f" is none of {', '.join(CAUSES)}") + f"; recycled {recycled}",
    )
    checks.require(
        "remedy: extend the sampling until flux reaches the target (extend_sampling of the enumerated remedies)",
        remedy == "extend_sampling",
        f"remedy {remedy!r}" + ("" if remedy in REMEDIES else f" is none of {', '.join(REMEDIES)}"),
    )


sys.exit(main(verify))
