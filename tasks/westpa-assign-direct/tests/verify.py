"""Rerun WESTPA's w_assign and w_direct on the run and compare the agent's files and numbers with them.

What they give depends on the image alone (its west.h5 and WESTPA), not on the agent: it is read from reference.npz
beside this file (the verifier's /tests, which no agent sees or writes) when WESTPA's version and west.h5 are the
ones it was made from, else made again (w_assign and w_direct, about 10 s a trial). ``python3 verify.py
--reference`` writes a new reference.npz.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from verifykit import close, load_json, main

WEST = "/app/inputs/west.h5"
OUT = "/app/output"


def reference(workdir):
    """assign.h5 and direct.h5 made here by WESTPA itself (with --disable-correl w_direct's means are
    deterministic; its CIs stay bootstrapped).
    On a copy of west.h5: w_assign opens its input read-write."""
    west = shutil.copy(WEST, f"{workdir}/west.h5")
    subprocess.run(
        [
            "w_assign",
            "-W",
            west,
            "--serial",
            "--bins-from-expr",
            "[[-inf, -0.5, 0.5, inf]]",
            "--states",
            "A:-1",
            "B:1",
            "-o",
            f"{workdir}/assign.h5",
        ],
        check=True,
        capture_output=True,
        cwd=workdir,
    )
    subprocess.run(
        ["w_direct", "all", "-W", west, "-a", f"{workdir}/assign.h5", "-o", f"{workdir}/direct.h5", "--disable-correl"],
        check=True,
        capture_output=True,
        cwd=workdir,
    )
    with h5py.File(f"{workdir}/assign.h5", "r") as assign, h5py.File(f"{workdir}/direct.h5", "r") as direct:
        return (
            {key: assign[key][...] for key in ("assignments", "trajlabels", "statelabels", "state_labels")},
            direct["avg_rates"][...],
            direct["avg_state_probs"][...],
        )


STORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.npz")
ASSIGN_KEYS = ("assignments", "trajlabels", "statelabels", "state_labels")


def provenance():
    from importlib.metadata import version

    with open(WEST, "rb") as handle:
        return f"westpa {version('westpa')}; west.h5 sha256 {hashlib.sha256(handle.read()).hexdigest()}"


def stored_reference():
    """The stored reference when it was made from this image's west.h5 and WESTPA, else None."""
    try:
        with np.load(STORED) as data:
            if str(data["provenance"]) != provenance():
                return None
            return {key: data[key] for key in ASSIGN_KEYS}, data["avg_rates"], data["avg_state_probs"]
    except (OSError, ValueError, KeyError):
        return None


def computed_reference():
    with tempfile.TemporaryDirectory() as workdir:
        return reference(workdir)


def verify(checks):
    tau = json.load(open("/app/inputs/run.json"))["tau"]
    ref_assign, ref_rates, ref_probs = stored_reference() or computed_reference()
    n_iterations = ref_assign["assignments"].shape[0]
    with checks.check("assign.h5 is w_assign's output for bins [-inf,-0.5,0.5,inf] and states A, B"):
        with h5py.File(f"{OUT}/assign.h5", "r") as assign:
            labels = [label.decode() if isinstance(label, bytes) else str(label) for label in assign["state_labels"][:]]
            assert labels == ["A", "B"], f"state_labels {labels}"
            for key in ("assignments", "trajlabels", "statelabels"):
                got = assign[key][...]
                assert got.shape == ref_assign[key].shape, f"{key} shape {got.shape}, expected {ref_assign[key].shape}"
                assert np.array_equal(got, ref_assign[key]), (
                    f"{key}: {int(np.sum(got != ref_assign[key]))} entries differ"
                )
    with checks.check("direct.h5 is w_direct's output from that assignment (avg_rates, avg_state_probs)"):
        with h5py.File(f"{OUT}/direct.h5", "r") as direct:
            rates, probs = direct["avg_rates"][...], direct["avg_state_probs"][...]
        assert rates.shape == ref_rates.shape == (2, 2), f"avg_rates shape {rates.shape}"
        assert np.allclose(rates["expected"], ref_rates["expected"], rtol=1e-6, atol=1e-12), "avg_rates means differ"
        assert np.allclose(probs["expected"], ref_probs["expected"], rtol=1e-6, atol=1e-12), (
            "avg_state_probs means differ"
        )
    result = {}
    with checks.check("kinetics.json readable"):
        result = load_json(f"{OUT}/kinetics.json")
    number = lambda key: float(result[key]) if isinstance(result.get(key), (int, float)) else float("nan")
    checks.require(
        "n_iterations is the whole run",
        result.get("n_iterations") == n_iterations,
        f"{result.get('n_iterations')} vs {n_iterations}",
    )
    for name, (i, j) in {"A_to_B": (0, 1), "B_to_A": (1, 0)}.items():
        expected = float(ref_rates[i, j]["expected"])
        checks.require(
            f"rate {name} per tau = w_direct's average",
            close(number(f"rate_{name}_per_tau"), expected, rel=1e-5, abs_=1e-12),
            f"{result.get(f'rate_{name}_per_tau')} vs {expected:.6g}",
        )
        with checks.check(
            f"rate {name} confidence interval (bootstrapped: brackets the mean, width within 2x of WESTPA's)"
        ):
            lower, upper = (float(v) for v in result[f"rate_{name}_ci_per_tau"])
            ref_width = float(ref_rates[i, j]["ci_ubound"] - ref_rates[i, j]["ci_lbound"])
            assert lower < expected < upper, f"[{lower:.4g}, {upper:.4g}] does not bracket {expected:.4g}"
            assert 0.5 * ref_width <= upper - lower <= 2.0 * ref_width, (
                f"width {upper - lower:.4g} vs WESTPA's {ref_width:.4g}"
            )
        checks.require(
            f"rate {name} per time unit (tau = {tau})",
            close(number(f"rate_{name}_per_time"), expected / tau, rel=1e-5, abs_=1e-12),
            f"{result.get(f'rate_{name}_per_time')} vs {expected / tau:.6g}",
        )
        checks.require(
            f"MFPT {name} = 1 / rate in time units",
            close(number(f"mfpt_{name}"), tau / expected, rel=1e-5, abs_=1e-9),
            f"{result.get(f'mfpt_{name}')} vs {tau / expected:.6g}",
        )
    for k, state in enumerate("AB"):
        expected = float(ref_probs[k]["expected"])
        checks.require(
            f"population {state} = w_direct's average state probability",
            close(number(f"population_{state}"), expected, rel=1e-5, abs_=1e-9),
            f"{result.get(f'population_{state}')} vs {expected:.6g}",
        )


if sys.argv[1:2] == ["--reference"]:
    ref_assign, ref_rates, ref_probs = computed_reference()
    target = sys.argv[2] if len(sys.argv) > 2 else STORED
    np.savez_compressed(target, provenance=provenance(), avg_rates=ref_rates, avg_state_probs=ref_probs, **ref_assign)
    print(f"{target}: {provenance()}")
else:
    sys.exit(main(verify))
