"""Recompute physical-validation's ensemble check on the inputs and compare with the agent's report.

The check's deviations depend on the image alone (its runs and physical-validation), not on the agent: they are read
from reference.json beside this file (the verifier's /tests, which no agent sees or writes) when the tools' versions
and the runs' files are the ones they were computed from, else computed again. ``python3 verify.py --reference``
writes a new reference.json.
"""

import glob
import json
import os
import re
import sys

import numpy as np
from verifykit import load_json, main, sha256_of, stored_reference, versions, write_reference


def deviations():
    import physical_validation as pv

    system = json.load(open("/app/inputs/system.json"))

    def data(protocol, temperature):
        table = np.genfromtxt(f"/app/inputs/run_{protocol}_{temperature}K.csv", delimiter=",", names=True)
        return pv.data.SimulationData(
            units=pv.data.UnitData.units("GROMACS"),
            ensemble=pv.data.EnsembleData(
                ensemble="NVT",
                natoms=system["natoms"],
                volume=float(np.prod(system["box_nm"])),
                temperature=float(temperature),
            ),
            observables=pv.data.ObservableData(potential_energy=table["potential_kj_mol"]),
        )

    return {p: float(pv.ensemble.check(data(p, 110), data(p, 120), verbosity=0)[0]) for p in ("A", "B")}


REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def provenance():
    """What the deviations depend on: the tools' versions, the system and the runs."""
    inputs = ["/app/inputs/system.json", *sorted(glob.glob("/app/inputs/run_*K.csv"))]
    return {"versions": versions("physical_validation", "numpy", "scipy"), "sha256": sha256_of(*inputs)}


def verify(checks):
    reference = stored_reference(
        REFERENCE, provenance(), deviations
    )  # A is canonical (Langevin), B is not (NVE): about 0.2 and 12 sigma
    report = {}
    with checks.check("validation.json readable"):
        report = load_json("/app/output/validation.json")
    for protocol in ("A", "B"):
        entry = report.get(protocol) if isinstance(report.get(protocol), dict) else {}
        expected = abs(reference[protocol]) < 3.0
        checks.require(
            f"protocol {protocol}: canonical = {str(expected).lower()}",
            entry.get("canonical") is expected,
            f"canonical {entry.get('canonical')}",
        )
        with checks.check(
            f"protocol {protocol}: deviation is physical-validation's ({reference[protocol]:.2f} sigma, 0.5 %)"
        ):
            value = float(entry["deviation_sigma"])
            # deterministic for the same data and defaults (decorrelation and maximum-likelihood fit; the stored
            # reference is reproduced to every digit): 0.5 % (0.01 sigma at least) allows 2 decimals; the temperatures
            # 1 K off (111 and 121 K: +7 % for A, +2.0 % for B, which 2 % passed) or bootstrapped errors (+9 %) fail
            assert abs(value - reference[protocol]) <= max(0.01, 0.005 * abs(reference[protocol])), (
                f"{value} sigma vs {reference[protocol]:.2f}"
            )
    explanation = str(report.get("explanation", ""))
    failing = [p for p in ("A", "B") if abs(reference[p]) >= 3.0]
    with checks.check("explanation names the failing protocol with the deviation physical-validation computes for it"):
        # facts the explanation must carry, not keywords: which protocol fails (a word "B" of its own) and its
        # deviation (a number within 0.5 sigma of physical-validation's); the kind of dynamics is the judge's
        stated = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", explanation)]
        for protocol in failing:
            assert re.search(rf"\b{protocol}\b", explanation), f"the explanation does not name protocol {protocol}"
            assert any(abs(abs(x) - abs(reference[protocol])) <= 0.5 for x in stated), (
                f"the explanation does not give protocol {protocol}'s deviation ({reference[protocol]:.1f} sigma)"
            )
        passing = [p for p in ("A", "B") if p not in failing]
        assert not any(
            re.search(rf"\b(protocol\s+)?{p}\b[^.]*\b(fails|not canonical|inconsistent)", explanation, re.I)
            for p in passing
        ), f"the explanation says a canonical protocol ({', '.join(passing)}) fails"


if sys.argv[1:] == ["--reference"]:
    write_reference(REFERENCE, provenance(), deviations())
else:
    sys.exit(main(verify))
