#!/usr/bin/env bash
# Set up (idempotently) and run the whole test suite. Extra arguments go to pytest.
# Tests read the reference structures from ../shared/structures.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash tools/setup.sh
exec .venv/bin/python -m pytest "$@"
