#!/bin/bash
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import json

import mdtraj

trajectory = mdtraj.load("/app/inputs/trajectory.dcd", top="/app/inputs/topology.pdb")
reference = mdtraj.load("/app/inputs/reference.pdb")
ca = trajectory.topology.select("name CA")
rmsd = mdtraj.rmsd(trajectory, reference, atom_indices=ca)
cutoff = 0.35
json.dump({"folded_fraction": float((rmsd < cutoff).mean()), "n_frames": trajectory.n_frames,
           "definition": {"metric": "ca_rmsd", "cutoff_nm": cutoff},
           "assumptions": ["folded means C-alpha RMSD to reference.pdb below 0.35 nm, a generous cutoff for a flexible hairpin at high temperature",
                           "every frame counts equally (plain MD, no weights)"]},
          open("/app/output/folded.json", "w"), indent=2)
EOF
