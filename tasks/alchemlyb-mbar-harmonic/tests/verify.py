"""Compare with the exact answer, (3/2) ln(k1/k0), within the statistical error of the data, and recompute MBAR."""
import glob
import math
import sys

import numpy as np
import pandas as pd

from verifykit import load_json, main

EXACT = 1.5 * math.log(16.0)  # the windows are a 3-D harmonic oscillator whose spring constant goes 1 -> 16 (kT units)


def verify(checks):
    result = {}
    with checks.check("free_energy.json readable"):
        result = load_json("/app/output/free_energy.json")
    number = lambda key: float(result[key]) if isinstance(result.get(key), (int, float)) else float("nan")
    checks.require("MBAR Delta F within 0.45 kT of the exact value (3 standard errors)", abs(number("mbar_delta_f_kt") - EXACT) <= 0.45,
                   f"{result.get('mbar_delta_f_kt')} kT; exact {EXACT:.3f} kT")
    checks.require("TI Delta F within 0.7 kT of the exact value (3 standard errors and the trapezoid bias)", abs(number("ti_delta_f_kt") - EXACT) <= 0.7,
                   f"{result.get('ti_delta_f_kt')} kT; exact {EXACT:.3f} kT")
    checks.require("MBAR error is a decorrelated standard error (0.08-0.4 kT; raw samples give about half)", 0.08 <= number("mbar_error_kt") <= 0.4,
                   f"error {result.get('mbar_error_kt')} kT")
    checks.require("TI error is a decorrelated standard error (0.08-0.5 kT)", 0.08 <= number("ti_error_kt") <= 0.5, f"error {result.get('ti_error_kt')} kT")
    with checks.check("samples were decorrelated (at most 60 % kept overall, at least 10 per window)"):
        kept = result["samples_per_window"]
        sizes = [len(pd.read_csv(p, usecols=[0])) for p in sorted(glob.glob("/app/inputs/windows/lambda_*.csv.gz"))]
        assert len(kept) == len(sizes), f"{len(kept)} windows reported, {len(sizes)} in the input"
        assert all(10 <= int(k) <= n for k, n in zip(kept, sizes)) and sum(kept) <= 0.6 * sum(sizes), f"kept {kept} of {sizes}"
    with checks.check("MBAR result consistent with pymbar on the reported subsample sizes"):
        import pymbar
        frames = [pd.read_csv(p) for p in sorted(glob.glob("/app/inputs/windows/lambda_*.csv.gz"))]
        # every k-th sample with the agent's count per window: an independent MBAR estimate to compare against
        u, counts = [], []
        for frame, k in zip(frames, result["samples_per_window"]):
            step = max(1, len(frame) // int(k))
            sub = frame.iloc[::step].iloc[: int(k)]
            u.append(sub.iloc[:, 3:].to_numpy())
            counts.append(len(sub))
        mbar = pymbar.MBAR(np.vstack(u).T, np.array(counts))
        reference = mbar.getFreeEnergyDifferences(return_dict=True)["Delta_f"][0, -1]
        assert abs(number("mbar_delta_f_kt") - reference) <= 0.4, f"{result.get('mbar_delta_f_kt')} vs {reference:.3f} kT"


sys.exit(main(verify))
