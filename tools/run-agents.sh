#!/usr/bin/env bash
# Set up (idempotently) the project and the agent machinery (Docker, base image, Harbor), then run the
# agent benchmark target. Extra arguments go to Snakemake, e.g. --config, or --configfile config/config.yaml
# agents.yaml (a --configfile replaces the embedded demo: give the demo first to build on it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash tools/setup.sh
bash tools/setup-agents.sh
.venv/bin/snakemake --profile profiles/local agents "$@"
echo "[run-agents] done: results/agents/ (leaderboard.csv, gate.csv, leaderboard.png)"
