"""Recompute physical-validation's ensemble check on the inputs and compare with the agent's report."""

import json
import sys

import numpy as np
from verifykit import load_json, main


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


def verify(checks):
    reference = deviations()  # A is canonical (Langevin), B is not (NVE): about 0.2 and 12 sigma
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
        with checks.check(f"protocol {protocol}: deviation is physical-validation's ({reference[protocol]:.2f} sigma)"):
            value = float(entry["deviation_sigma"])
            assert abs(abs(value) - abs(reference[protocol])) <= max(1.0, 0.25 * abs(reference[protocol])), (
                f"{value} sigma vs {reference[protocol]:.2f}"
            )
    explanation = str(report.get("explanation", "")).lower()
    checks.require(
        "explanation names protocol B and a non-canonical cause",
        " b" in f" {explanation}"
        and any(
            k in explanation
            for k in ("nve", "microcanonical", "constant energy", "constant-energy", "berendsen", "fluctuation")
        ),
        "the explanation does not say that B fails and why",
    )


sys.exit(main(verify))
