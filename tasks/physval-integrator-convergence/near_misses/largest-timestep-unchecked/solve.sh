#!/bin/bash
# Near miss: the deviations are computed, then ignored: 40 fs reported as converged.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import numpy as np
import physical_validation as pv

timesteps = [5, 10, 20, 40]
energy = {dt: np.genfromtxt(f"/app/inputs/nve_dt{dt}fs.csv", delimiter=",", names=True)["total_energy_kj_mol"] for dt in timesteps}
data = {dt: pv.data.SimulationData(units=pv.data.UnitData.units("GROMACS"), dt=dt / 1000.0,
                                   observables=pv.data.ObservableData(constant_of_motion=energy[dt])) for dt in timesteps}
deviation_all = float(pv.integrator.convergence(simulations=[data[dt] for dt in timesteps], verbose=True))
deviation_three = float(pv.integrator.convergence(simulations=[data[dt] for dt in timesteps[:3]], verbose=True))
largest = 40  # the largest one tried
json.dump({"deviation_all": deviation_all, "deviation_without_40fs": deviation_three,
           "fluctuations_kj_mol": {str(dt): float(energy[dt].std()) for dt in timesteps},
           "largest_converged_timestep_fs": largest,
           "explanation": f"Up to 20 fs the total-energy fluctuation grows as dt^2 (deviation {deviation_three:.3f}); adding 40 fs breaks "
                          f"the scaling (deviation {deviation_all:.2f}): 40 fs is outside the asymptotic regime of velocity Verlet "
                          "for this system, so production runs should use at most 20 fs (with a margin, 10 fs)."},
          open("/app/output/convergence.json", "w"), indent=1)
PY
