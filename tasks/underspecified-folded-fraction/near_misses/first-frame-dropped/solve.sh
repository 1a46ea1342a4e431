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
cutoff = 0.2
json.dump({"folded_fraction": float((rmsd[1:] < cutoff).mean()), "n_frames": trajectory.n_frames,
           "definition": {"metric": "ca_rmsd", "cutoff_nm": cutoff},
           "assumptions": ["folded means C-alpha RMSD to reference.pdb below 0.2 nm, a common cutoff for chignolin",
                           "every frame counts equally (plain MD, no weights)",
                           "the first frame is the starting structure, not sampled: left out"]},
          open("/app/output/folded.json", "w"), indent=2)
EOF
