#!/bin/bash
set -euo pipefail
mkdir -p /app/output && cd /app/output
gmx -quiet select -s /app/inputs/conf.gro -on index.ndx -select \
    '"Turn" resnr 4 to 8; "Aromatic_SC" resname TYR TRP and not name N CA C O and not name "H.*";
     "Carboxylate_O" name OD1 OD2 OE1 OE2 OC1 OC2'
grep '^\[' index.ndx
