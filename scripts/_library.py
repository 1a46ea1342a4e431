"""Put the workflow's library (src/) on sys.path in whatever environment runs a script.

Snakemake puts this folder on sys.path for `script:` rules; per-rule conda
environments then need no install of westbench itself.
"""

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
