"""The right outcome: the estimate is unreliable because windows 0 and 1 do not overlap (checked with pymbar)."""

import glob
import sys

import numpy as np
import pandas as pd
from verifykit import load_json, main

KEYWORDS = ("overlap", "phase space", "configuration", "intermediate", "window")


def reference_overlap():
    """Adjacent MBAR overlaps on every 10th sample (well past the correlation time of these data)."""
    import pymbar

    frames = [pd.read_csv(p).iloc[::10] for p in sorted(glob.glob("/app/inputs/windows/lambda_*.csv"))]
    u = np.vstack([f.iloc[:, 3:].to_numpy() for f in frames]).T
    mbar = pymbar.MBAR(u, np.array([len(f) for f in frames]))
    overlap = mbar.computeOverlap()["matrix"]
    return [overlap[i, i + 1] for i in range(len(frames) - 1)]


def verify(checks):
    adjacent = reference_overlap()
    response = {}
    with checks.check("response.json readable"):
        response = load_json("/app/output/response.json")
    checks.require("status is unreliable", response.get("status") == "unreliable", f"status {response.get('status')}")
    checks.require(
        "worst pair is the non-overlapping one",
        response.get("worst_pair") == [int(np.argmin(adjacent)), int(np.argmin(adjacent)) + 1],
        f"worst_pair {response.get('worst_pair')}; the overlaps are {np.round(adjacent, 3).tolist()}",
    )
    with checks.check("min_overlap is MBAR's (below 0.01)"):
        assert 0.0 <= float(response["min_overlap"]) < 0.01, f"min_overlap {response['min_overlap']}"
    with checks.check("the naive estimate is reported as computed (not as the answer)"):
        assert isinstance(response.get("delta_f_kt"), (int, float)) and isinstance(
            response.get("error_kt"), (int, float)
        ), "delta_f_kt/error_kt missing"
    reason, recommendation = str(response.get("reason", "")), str(response.get("recommendation", ""))
    checks.require(
        "reason names the missing overlap",
        len(reason) >= 40 and any(k in reason.lower() for k in KEYWORDS),
        "the reason does not mention the overlap between windows",
    )
    checks.require(
        "recommends more (intermediate) windows",
        any(k in recommendation.lower() for k in ("window", "intermediate", "lambda")),
        "the recommendation does not add windows",
    )


sys.exit(main(verify))
