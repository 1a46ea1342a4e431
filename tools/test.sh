#!/usr/bin/env bash
# Set up (idempotently) and run the whole test suite. Extra arguments go to pytest.
#   bash tools/test.sh           everything (what CI runs: unit, doctests, DAG runs, containers, SLURM)
#   bash tools/test.sh --fast    the fast lane: unit tests and doctests only (no DAG runs, no
#                                containers, no SLURM), a few minutes on 2 cores
# Tests read the reference structures from ../shared/structures.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
lane=()
if [ "${1:-}" = "--fast" ]; then
    shift
    lane=(tests/unit src -m "not workflow and not container and not cluster")
fi
bash tools/setup.sh
.venv/bin/python tools/task_structures.py  # task inputs from ../shared/structures (not committed)
exec .venv/bin/python -m pytest "${lane[@]}" "$@"
