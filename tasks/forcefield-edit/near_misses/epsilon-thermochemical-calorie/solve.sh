#!/bin/bash
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import xml.etree.ElementTree as ET

tree = ET.parse("/app/inputs/methanol.xml")
atoms = {a.get("type"): a for a in tree.getroot().find("NonbondedForce").findall("Atom")}
oxygen, hydrogen = atoms["MOH-O"], atoms["MOH-HO"]
oxygen.set("epsilon", f"{float(oxygen.get('epsilon')) * 4.186:.7f}")
shift = 0.4180 - float(hydrogen.get("charge"))
hydrogen.set("charge", "0.4180")
oxygen.set("charge", f"{float(oxygen.get('charge')) - shift:.4f}")
tree.write("/app/output/methanol.xml")
EOF
