#!/bin/bash
# Near miss: RMSF without superposing the frames first.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import numpy as np
import MDAnalysis as mda
from MDAnalysis.analysis import align, contacts, rms

native = mda.Universe("/app/inputs/native.pdb")
u = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
ca = u.select_atoms("name CA")
fluctuation = rms.RMSF(ca).run().results.rmsf / 10.0
with open("/app/output/rmsf.csv", "w") as handle:
    handle.write("resid,resname,rmsf_nm\n" + "".join(f"{a.resid},{a.resname},{r:.6f}\n" for a, r in zip(ca, fluctuation)))
sel_a, sel_b = "resid 1-5 and not element H", "resid 6-10 and not element H"
u2 = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
q = contacts.Contacts(u2, select=(sel_a, sel_b), refgroup=(native.select_atoms(sel_a), native.select_atoms(sel_b)),
                      method="hard_cut", radius=4.5).run()
values = q.results.timeseries[:, 1]
with open("/app/output/q.csv", "w") as handle:
    handle.write("frame,q\n" + "".join(f"{i},{v:.6f}\n" for i, v in enumerate(values)))
json.dump({"most_flexible_resid": int(ca[int(np.argmax(fluctuation))].resid), "mean_q": float(values.mean()),
           "n_native_contacts": int(np.count_nonzero(q.initial_contacts[0]))}, open("/app/output/summary.json", "w"), indent=1)
PY
