#!/usr/bin/env bash
# Render the rule graph of the paper configuration to docs/rulegraph.svg (needs graphviz's dot).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if ! command -v dot >/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends graphviz; else sudo apt-get install -y graphviz; fi
fi
.venv/bin/snakemake --quiet all --rulegraph --configfile config/paper.yaml | dot -Tsvg > docs/rulegraph.svg
echo "wrote docs/rulegraph.svg"
