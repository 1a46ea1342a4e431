"""Compare with the exact answer, (3/2) ln(k1/k0), within the statistical error of the data, recompute MBAR, and
redo the decorrelation with alchemlyb's own preprocessing: the per-window sample counts and both standard errors
must be those of a real decorrelation of these windows, not numbers in the right range, and MBAR's and TI's Delta F
and standard errors must be alchemlyb's on the decorrelation the agent names (statistical inefficiency or
equilibrium detection, which subsamples the windows for both estimators).

That decorrelation depends on the image alone (its windows and alchemlyb/pymbar), not on the agent: it is read from
reference.json beside this file (the verifier's /tests, which no agent sees or writes) when the tools' versions and
the windows' sha256 are the ones it was made from, else computed again. ``python3 verify.py --reference`` writes a
new reference.json."""

import glob
import json
import math
import os
import sys

import numpy as np
import pandas as pd
from verifykit import load_json, main, sha256_of, stored_reference, versions, write_reference

WINDOWS = "/app/inputs/windows/lambda_*.csv.gz"
EXACT = 1.5 * math.log(16.0)  # the windows are a 3-D harmonic oscillator whose spring constant goes 1 -> 16 (kT units)


def decorrelations():
    """alchemlyb's decorrelation of the windows under each standard choice of series and method: by name, the
    samples kept per window and MBAR's and TI's (Delta F, error) on them."""
    import warnings

    warnings.filterwarnings("ignore")
    from alchemlyb.estimators import MBAR, TI
    from alchemlyb.preprocessing import equilibrium_detection, statistical_inefficiency

    windows = []
    for path in sorted(glob.glob(WINDOWS)):
        frame = (
            pd.read_csv(path)
            .rename(columns={"time_ps": "time", "fep_lambda": "fep-lambda"})
            .set_index(["time", "fep-lambda"])
        )
        u = frame.drop(columns="dHdl")
        u.columns = [float(c) for c in u.columns]
        windows.append(
            (float(frame.index.get_level_values("fep-lambda")[0]), u, frame[["dHdl"]].rename(columns={"dHdl": "fep"}))
        )
    choices = {
        "statistical inefficiency of u_nk at the window's lambda": (
            lambda lam, u, d: statistical_inefficiency(u, u[lam]),
            lambda lam, u, d: statistical_inefficiency(d, d["fep"]),
        ),
        "statistical inefficiency of dHdl": (
            lambda lam, u, d: statistical_inefficiency(u, d["fep"]),
            lambda lam, u, d: statistical_inefficiency(d, d["fep"]),
        ),
        "statistical inefficiency of the summed u_nk": (
            lambda lam, u, d: statistical_inefficiency(u, u.sum(axis=1)),
            lambda lam, u, d: statistical_inefficiency(d, d["fep"]),
        ),
        "equilibrium detection": (
            lambda lam, u, d: equilibrium_detection(u, u[lam]),
            lambda lam, u, d: equilibrium_detection(d, d["fep"]),
        ),
    }
    found = {}
    for name, (pick_u, pick_d) in choices.items():
        u_nk = [pick_u(lam, u, d) for lam, u, d in windows]
        dhdl = [pick_d(lam, u, d) for lam, u, d in windows]
        mbar, ti = MBAR().fit(pd.concat(u_nk)), TI().fit(pd.concat(dhdl))
        found[name] = {
            "kept": [len(x) for x in u_nk],
            "kept_dhdl": [len(x) for x in dhdl],
            "mbar": (float(mbar.delta_f_.iloc[0, -1]), float(mbar.d_delta_f_.iloc[0, -1])),
            "ti": (float(ti.delta_f_.iloc[0, -1]), float(ti.d_delta_f_.iloc[0, -1])),
        }
    from pymbar import timeseries  # pymbar's own subsampling (not conservative: N/g samples) is accepted too

    found["pymbar"] = dict(found["statistical inefficiency of u_nk at the window's lambda"])
    found["pymbar"]["kept"] = [
        round(len(u) / timeseries.statisticalInefficiency(u[lam].to_numpy())) for lam, u, _ in windows
    ]
    found["pymbar"]["kept_dhdl"] = [
        round(len(d) / timeseries.statisticalInefficiency(d["fep"].to_numpy())) for _, _, d in windows
    ]
    return found


# The decorrelation the agent states (alchemlyb.preprocessing's function) -> the one of decorrelations() that subsampled
# u_nk and dHdl with it (on these windows dHdl's own series, u_nk's at the window's lambda and the summed u_nk keep the
# same samples for each function). MBAR and TI on one subsample are deterministic: the agent's run and the verifier's
# agree to float round-off (a reversed concatenation order or a 1e-10 solver tolerance changes none of the 15 digits
# alchemlyb prints), so each window admits rounding and nothing else.
DECORRELATIONS = {
    "statistical_inefficiency": "statistical inefficiency of dHdl",
    "equilibrium_detection": "equilibrium detection",
}
# Delta F: rounding to 3 decimals; the smallest real mistake is BAR instead of MBAR on the same subsample (0.0035 kT),
# then statistical_inefficiency(conservative=False) (TI 0.0057 kT, MBAR 0.063 kT).
DELTA_F_WINDOW = 0.001  # kT
# Standard errors: rounding to 4 decimals (and float round-off); the smallest real mistake is the other
# decorrelation's MBAR error (0.145792 and 0.145895 kT, 0.000103 apart), then conservative=False's TI error (0.0021 kT).
ERROR_WINDOW = 0.00005 + 1e-9  # kT

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def provenance():
    """What the decorrelations depend on: the tools' versions and the windows' files."""
    return {
        "versions": versions("alchemlyb", "pymbar", "pandas", "numpy", "scipy"),
        "sha256": sha256_of(*sorted(glob.glob(WINDOWS))),
    }


def plain(found):
    """decorrelations() as plain JSON (its tuples as lists), the form the stored reference has."""
    return json.loads(json.dumps(found))


def verify_decorrelation(checks, result, number):
    # the verifier's own computation on the fixed inputs, stored (a crash scores 0 with its reason)
    found = stored_reference(REFERENCE, provenance(), lambda: plain(decorrelations()))
    # The subsample depends only on the function the agent names, so its per-window counts and MBAR's and TI's Delta F
    # and standard errors are deterministic numbers: alchemlyb's on the same data, recomputed (or read from the stored
    # reference).
    stated = result.get("decorrelation")
    stated = stated if isinstance(stated, str) and stated in DECORRELATIONS else None
    checks.require(
        "decorrelation is statistical_inefficiency or equilibrium_detection",
        stated is not None,
        f"decorrelation {result.get('decorrelation')!r}; expected one of {sorted(DECORRELATIONS)}",
    )
    # Counts: exact (the stated function's subsample of each window; its u_nk and dHdl series keep the same samples
    # here); the smallest real mistake: the other function's counts (15 off in window 0), pymbar's N/g (9 in window 1).
    with checks.check("samples_per_window is what the stated decorrelation keeps in each window (exactly)"):
        kept = result["samples_per_window"]
        whole = lambda k: isinstance(k, (int, float)) and not isinstance(k, bool) and float(k).is_integer()
        assert isinstance(kept, list) and all(whole(k) for k in kept), f"samples_per_window {kept!r}: a list of ints"
        kept = [int(k) for k in kept]
        assert stated is not None, "no decorrelation stated to recount samples_per_window with"
        chosen = found[DECORRELATIONS[stated]]
        assert len(kept) == len(chosen["kept"]), f"{len(kept)} windows reported, {len(chosen['kept'])} in the input"
        off = [i for i, k in enumerate(kept) if k not in (chosen["kept"][i], chosen["kept_dhdl"][i])]
        others = {name: found[decorrelation]["kept"] for name, decorrelation in DECORRELATIONS.items()}
        others["pymbar's N/g"] = found["pymbar"]["kept"]
        assert not off, (
            f"windows {off}: {[kept[i] for i in off]} kept; {stated} keeps {[chosen['kept'][i] for i in off]} there "
            f"(every window: {chosen['kept']}; "
            + "; ".join(f"{name}: {counts}" for name, counts in others.items() if name != stated)
            + ")"
        )
    for name, key, index, window in (
        ("MBAR Delta F is alchemlyb's MBAR on the stated decorrelation (within 0.001 kT)", "mbar", 0, DELTA_F_WINDOW),
        (
            "MBAR error is alchemlyb's MBAR error on the stated decorrelation (within 0.00005 kT)",
            "mbar",
            1,
            ERROR_WINDOW,
        ),
        ("TI Delta F is alchemlyb's TI on the stated decorrelation (within 0.001 kT)", "ti", 0, DELTA_F_WINDOW),
        ("TI error is alchemlyb's TI error on the stated decorrelation (within 0.00005 kT)", "ti", 1, ERROR_WINDOW),
    ):
        field = f"{key}_delta_f_kt" if index == 0 else f"{key}_error_kt"
        with checks.check(name):
            value = number(field)
            assert stated is not None, f"no decorrelation stated to recompute {field} with"
            expected = found[DECORRELATIONS[stated]][key][index]
            others = ", ".join(
                f"{found[decorrelation][key][index]:.6f} ({function})"
                for function, decorrelation in DECORRELATIONS.items()
            )
            assert abs(value - expected) <= window, (
                f"{field} {result.get(field)} kT with {stated}; alchemlyb's {key.upper()} on the decorrelated "
                f"windows gives {others}"
            )


def verify(checks):
    result = {}
    with checks.check("free_energy.json readable"):
        result = load_json("/app/output/free_energy.json")
    number = lambda key: float(result[key]) if isinstance(result.get(key), (int, float)) else float("nan")
    checks.require(
        "MBAR Delta F within 0.45 kT of the exact value (3 standard errors)",
        abs(number("mbar_delta_f_kt") - EXACT) <= 0.45,
        f"{result.get('mbar_delta_f_kt')} kT; exact {EXACT:.3f} kT",
    )
    checks.require(
        "TI Delta F within 0.7 kT of the exact value (3 standard errors and the trapezoid bias)",
        abs(number("ti_delta_f_kt") - EXACT) <= 0.7,
        f"{result.get('ti_delta_f_kt')} kT; exact {EXACT:.3f} kT",
    )
    checks.require(
        "MBAR error is a decorrelated standard error (0.08-0.4 kT; raw samples give about half)",
        0.08 <= number("mbar_error_kt") <= 0.4,
        f"error {result.get('mbar_error_kt')} kT",
    )
    checks.require(
        "TI error is a decorrelated standard error (0.08-0.5 kT)",
        0.08 <= number("ti_error_kt") <= 0.5,
        f"error {result.get('ti_error_kt')} kT",
    )
    with checks.check("samples were decorrelated (at most 60 % kept overall, at least 10 per window)"):
        kept = result["samples_per_window"]
        sizes = [len(pd.read_csv(p, usecols=[0])) for p in sorted(glob.glob(WINDOWS))]
        assert len(kept) == len(sizes), f"{len(kept)} windows reported, {len(sizes)} in the input"
        assert all(10 <= int(k) <= n for k, n in zip(kept, sizes)) and sum(kept) <= 0.6 * sum(sizes), (
            f"kept {kept} of {sizes}"
        )
    with checks.check("MBAR result consistent with pymbar on the reported subsample sizes"):
        import pymbar

        frames = [pd.read_csv(p) for p in sorted(glob.glob(WINDOWS))]
        # every k-th sample with the agent's count per window: an independent MBAR estimate to compare against
        u, counts = [], []
        for frame, k in zip(frames, result["samples_per_window"]):
            step = max(1, len(frame) // int(k))
            sub = frame.iloc[::step].iloc[: int(k)]
            u.append(sub.iloc[:, 3:].to_numpy())
            counts.append(len(sub))
        mbar = pymbar.MBAR(np.vstack(u).T, np.array(counts))
        reference = mbar.getFreeEnergyDifferences(return_dict=True)["Delta_f"][0, -1]
        assert abs(number("mbar_delta_f_kt") - reference) <= 0.4, (
            f"{result.get('mbar_delta_f_kt')} vs {reference:.3f} kT"
        )
    verify_decorrelation(checks, result, number)


if sys.argv[1:] == ["--reference"]:
    write_reference(REFERENCE, provenance(), plain(decorrelations()))
else:
    sys.exit(main(verify))
