#!/usr/bin/env bash
# Set up (idempotently) and run the workflow on the embedded default config,
# then build Snakemake's HTML report. Extra arguments go to Snakemake.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash tools/setup.sh
.venv/bin/snakemake --profile profiles/local "$@"
mkdir -p results/report
.venv/bin/snakemake --profile profiles/local --report results/report/snakemake-report.html "$@"
echo "[run] done: results/ (report: results/report/snakemake-report.html)"
