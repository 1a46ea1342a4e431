#!/usr/bin/env bash
# Set up (idempotently) the project and the agent machinery (Docker, base image, Harbor), then run the
# agent benchmark target. Extra arguments go to Snakemake, e.g. --config, or --configfile config/config.yaml
# agents.yaml (a --configfile replaces the embedded demo: give the demo first to build on it). The gate runs every
# task's reference and null agents, and the near misses of the tasks changed since the recorded full gate and of one
# rotation shard (agents.gate.near_misses: changed; docs/agents.md); a full gate of every near miss:
#   bash tools/run-agents.sh --config 'agents={gate: {near_misses: true}}'  (about an hour or more on 2 cores)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash tools/setup.sh
bash tools/setup-agents.sh
.venv/bin/snakemake --profile profiles/local agents "$@"
echo "[run-agents] done: results/agents/ (leaderboard.csv, gate.csv, leaderboard.png)"
