"""The right outcome: the estimate is unreliable because windows 0 and 1 do not overlap (checked with pymbar)."""

import glob
import re
import sys

import numpy as np
import pandas as pd
from verifykit import load_json, main

# The cause and the remedy are enumerated and checked exactly; the free-text reason and recommendation are the rubric
# judge's to read (a keyword in them passes nothing: "the lambda schedule is fine, run longer" names "lambda" and
# recommends what cannot help; "the overlap of windows 0 and 1 is not the problem" names the overlap to deny it).
CAUSES = ("no_overlap_between_windows", "too_few_samples", "not_equilibrated", "wrong_temperature", "other")
REMEDIES = ("add_intermediate_windows", "run_longer", "fewer_windows", "change_estimator", "other")


def reference_overlap():
    """Adjacent MBAR overlaps on every 10th sample (well past the correlation time of these data)."""
    import pymbar

    frames = [pd.read_csv(p).iloc[::10] for p in sorted(glob.glob("/app/inputs/windows/lambda_*.csv"))]
    u = np.vstack([f.iloc[:, 3:].to_numpy() for f in frames]).T
    mbar = pymbar.MBAR(u, np.array([len(f) for f in frames]))
    overlap = mbar.computeOverlap()["matrix"]
    return [overlap[i, i + 1] for i in range(len(frames) - 1)]


def naive_estimates():
    """alchemlyb's MBAR (Delta F, error) on the windows as they are, under each standard choice of samples."""
    import warnings

    warnings.filterwarnings("ignore")
    from alchemlyb.estimators import MBAR
    from alchemlyb.preprocessing import equilibrium_detection, statistical_inefficiency

    windows = []
    for path in sorted(glob.glob("/app/inputs/windows/lambda_*.csv")):
        frame = (
            pd.read_csv(path)
            .rename(columns={"time_ps": "time", "fep_lambda": "fep-lambda"})
            .set_index(["time", "fep-lambda"])
        )
        u = frame.drop(columns="dHdl")
        u.columns = [float(c) for c in u.columns]
        windows.append((float(frame.index.get_level_values(1)[0]), u, frame["dHdl"]))
    choices = {
        "raw samples": lambda lam, u, d: u,
        "statistical inefficiency of u_nk at the window's lambda": lambda lam, u, d: statistical_inefficiency(
            u, u[lam]
        ),
        "statistical inefficiency of dHdl": lambda lam, u, d: statistical_inefficiency(u, d),
        "equilibrium detection": lambda lam, u, d: equilibrium_detection(u, u[lam]),
        "every 10th sample": lambda lam, u, d: u.iloc[::10],
    }
    found = {}
    for name, pick in choices.items():
        mbar = MBAR().fit(pd.concat([pick(*w) for w in windows]))
        found[name] = (float(mbar.delta_f_.iloc[0, -1]), float(mbar.d_delta_f_.iloc[0, -1]))
    return found


def verify(checks):
    adjacent = reference_overlap()
    response = {}
    with checks.check("response.json readable"):
        response = load_json("/app/output/response.json")
        assert all(isinstance(response.get(k), str) for k in ("reason", "recommendation")), (
            "reason and recommendation must be strings"
        )
    checks.require("status is unreliable", response.get("status") == "unreliable", f"status {response.get('status')}")
    checks.require(
        "worst pair is the non-overlapping one",
        response.get("worst_pair") == [int(np.argmin(adjacent)), int(np.argmin(adjacent)) + 1],
        f"worst_pair {response.get('worst_pair')}; the overlaps are {np.round(adjacent, 3).tolist()}",
    )
    # MBAR's element for the pair without overlap is 5e-17 to 8e-10 under every choice of samples (all, every 2nd to
    # 50th, alchemlyb's statistical_inefficiency or equilibrium_detection): 1e-6 leaves a factor 1000 above the
    # largest and refuses a number that was written, not computed (0.005 "below the 0.03 rule of thumb")
    with checks.check("min_overlap is MBAR's (below 1e-6)"):
        assert 0.0 <= float(response["min_overlap"]) < 1e-6, f"min_overlap {response['min_overlap']}"
    with checks.check("the naive estimate is MBAR's on these windows (within the spread of alchemlyb's estimates)"):
        assert isinstance(response.get("delta_f_kt"), (int, float)) and isinstance(
            response.get("error_kt"), (int, float)
        ), "delta_f_kt/error_kt missing"
        # Without overlap the estimate depends on which samples are kept; every standard choice (raw, alchemlyb's
        # decorrelations, a fixed stride) is recomputed: a unit slip or a number from elsewhere matches none.
        # The estimate and its error come as a pair from one choice of samples: the pair must be near one choice's
        # (2 kT, the error within a factor 2), so a raw-sample error beside a decorrelated estimate does not pass.
        estimates = naive_estimates()
        value, error = float(response["delta_f_kt"]), float(response["error_kt"])
        assert any(abs(value - f) <= 2.0 and e / 2 <= error <= 2 * e for f, e in estimates.values()), (
            f"delta_f_kt {value}, error_kt {error}; alchemlyb's MBAR gives "
            + ", ".join(f"{f:.2f} +- {e:.3g} ({name})" for name, (f, e) in estimates.items())
        )
    with checks.check("reason cites the pair of windows without overlap (their 0-based indices)"):
        # the evidence, a number not a keyword: the pair of windows without overlap (its two 0-based indices)
        worst = int(np.argmin(adjacent))
        stated = {int(x) for x in re.findall(r"(?<![\w.])\d+(?![\w.]|\.\d)", str(response.get("reason", "")))}
        assert {worst, worst + 1} <= stated, f"the reason does not name windows {worst} and {worst + 1}"
    cause, remedy = response.get("cause"), response.get("remedy")
    checks.require(
        "cause: adjacent windows share no configurations (no_overlap_between_windows of the enumerated causes)",
        cause == "no_overlap_between_windows" and min(adjacent) < 0.01,
        f"cause {cause!r}"
        + ("" if cause in CAUSES else f" is none of {', '.join(CAUSES)}")
        + f"; the adjacent overlaps are {np.round(adjacent, 3).tolist()}",
    )
    checks.require(
        "remedy: intermediate lambda windows between the pair without overlap "
        "(add_intermediate_windows of the enumerated remedies)",
        remedy == "add_intermediate_windows",
        f"remedy {remedy!r}" + ("" if remedy in REMEDIES else f" is none of {', '.join(REMEDIES)}"),
    )


sys.exit(main(verify))
