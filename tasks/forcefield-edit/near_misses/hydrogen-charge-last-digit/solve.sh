#!/bin/bash
# Near miss: the hydroxyl hydrogen's charge one unit off in the stated fourth decimal (0.4181 for 0.4180), the
# oxygen compensating it, so the molecule stays neutral; the epsilon conversion is done right.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import xml.etree.ElementTree as ET

tree = ET.parse("/app/inputs/methanol.xml")
atoms = {a.get("type"): a for a in tree.getroot().find("NonbondedForce").findall("Atom")}
oxygen, hydrogen = atoms["MOH-O"], atoms["MOH-HO"]
oxygen.set("epsilon", f"{float(oxygen.get('epsilon')) * 4.184:.7f}")
shift = 0.4181 - float(hydrogen.get("charge"))
hydrogen.set("charge", "0.4181")
oxygen.set("charge", f"{float(oxygen.get('charge')) - shift:.4f}")
tree.write("/app/output/methanol.xml")
PY
