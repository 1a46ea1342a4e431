#!/bin/bash
# Reference: MDAnalysis on the CB8-G3 host-guest trajectory: host-guest centre-of-mass distance, guest heavy atoms
# in contact with the host, and the guest's heavy-atom RMSD after superposing each frame on the host's heavy atoms.
set -euo pipefail
mkdir -p /app/output
python3 -W ignore - <<'PY'
import json
import numpy as np
import MDAnalysis as mda
from MDAnalysis.analysis import distances, rms
from MDRestraintsGenerator.tests.datafiles import CB8_TPR, CB8_XTC

u = mda.Universe(CB8_TPR, CB8_XTC)
host, guest = u.select_atoms("resname HST"), u.select_atoms("resname GST")
host_heavy, guest_heavy = u.select_atoms("resname HST and not name H*"), u.select_atoms("resname GST and not name H*")
com, contacts = [], []
for ts in u.trajectory:
    com.append(np.linalg.norm(host.center_of_mass() - guest.center_of_mass()))
    d = distances.distance_array(guest_heavy.positions, host_heavy.positions, box=u.dimensions)
    contacts.append(int(np.count_nonzero(d.min(axis=1) < 4.5)))
r = rms.RMSD(u, u, select="resname HST and not name H*", groupselections=["resname GST and not name H*"], ref_frame=0).run()
guest_rmsd = r.results.rmsd[:, 3]
with open("/app/output/host_guest.csv", "w") as f:
    f.write("frame,com_distance_A,guest_atoms_in_contact,guest_rmsd_A\n")
    for i in range(len(com)):
        f.write(f"{i},{com[i]:.4f},{contacts[i]},{guest_rmsd[i]:.4f}\n")
json.dump({"n_host_heavy": len(host_heavy), "n_guest_heavy": len(guest_heavy),
           "mean_com_distance_A": float(np.mean(com[1:])), "max_guest_rmsd_A": float(guest_rmsd.max()),
           "bound_throughout": bool(max(com) < 5.0)}, open("/app/output/summary.json", "w"), indent=1)
PY
cat /app/output/summary.json; head -4 /app/output/host_guest.csv
