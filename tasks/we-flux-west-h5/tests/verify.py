"""Recompute the recycled flux from west.h5 with h5py and compare."""

import csv
import json
import sys

import h5py
import numpy as np
from verifykit import close, load_json, main


def verify(checks):
    tau = json.load(open("/app/inputs/west.json"))["tau_ps"]
    with h5py.File("/app/inputs/west.h5", "r") as h5:
        names = sorted(h5["iterations"])
        flux = np.array(
            [
                h5["iterations"][n]["seg_index"]["weight"][h5["iterations"][n]["seg_index"]["endpoint_type"] == 3].sum()
                for n in names
            ]
        )
    n = len(flux)
    steady = flux[n - n // 2 :]
    blocks = np.array([b.mean() for b in np.array_split(steady, 6)])
    rows = []
    with checks.check("flux.csv has header iteration,flux and one row per iteration"):
        with open("/app/output/flux.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["iteration", "flux"], f"header {reader.fieldnames}"
            rows = list(reader)
        assert [int(r["iteration"]) for r in rows] == list(range(1, n + 1)), "iterations are not 1..N"
    with checks.check("per-iteration flux = recycled weight"):
        got = np.array([float(r["flux"]) for r in rows])
        assert got.shape == flux.shape and np.allclose(got, flux, rtol=1e-6, atol=1e-12), (
            f"{int(np.sum(~np.isclose(got, flux, rtol=1e-6, atol=1e-12))) if got.shape == flux.shape else 'all'} "
            "iterations differ"
        )
    rate = {}
    with checks.check("rate.json readable"):
        rate = load_json("/app/output/rate.json")
    checks.require(
        "steady-state window is the second half",
        (rate.get("first_iteration"), rate.get("last_iteration"), rate.get("n_iterations")) == (n - n // 2 + 1, n, n),
        f"{rate.get('first_iteration')}-{rate.get('last_iteration')} of {rate.get('n_iterations')}",
    )
    with checks.check("mean flux and rate (1/ps)"):
        assert close(rate["mean_flux"], steady.mean(), rel=1e-6, abs_=1e-12), (
            f"mean_flux {rate['mean_flux']} vs {steady.mean():.6g}"
        )
        assert close(rate["rate_per_ps"], steady.mean() / tau, rel=1e-6, abs_=1e-14), (
            f"rate {rate['rate_per_ps']} vs {steady.mean() / tau:.6g}"
        )
    with checks.check("block standard error (6 blocks)"):
        expected = blocks.std(ddof=1) / np.sqrt(6) / tau
        assert close(rate["rate_stderr_per_ps"], expected, rel=1e-3, abs_=1e-14), (
            f"{rate['rate_stderr_per_ps']} vs {expected:.6g}"
        )


sys.exit(main(verify))
