#!/usr/bin/env bash
# Set up (idempotently) and run the whole test suite.
#   bash tools/test.sh           everything (what CI runs: unit, doctests, DAG runs, SLURM, containers)
#   bash tools/test.sh --fast    the fast lane: unit tests and doctests only (no DAG runs, no
#                                containers, no SLURM), a few minutes on 2 cores; extra arguments go to pytest
#   bash tools/test.sh ARGS      pytest with ARGS only (e.g. one file), after the same setup
# Every mode lints first (ruff, snakefmt; a lint failure fails the run after the tests ran).
# Tests read the reference structures from ../shared/structures when it is there, else download them once
# from the RCSB into resources/structures/ (tests/conftest.py, benchmark_structures); the fast lane skips those
# tests (the `structures` marker) where neither is possible, so it runs offline on a bare clone.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PYTHONUNBUFFERED=1  # CI keeps every line up to the moment a run is stopped
# The fast lane: unit tests and doctests on two pytest workers (pytest-xdist), one test file each at a time so
# module fixtures are built once. The full run is the fast lane, then the tiers that run Snakemake, SLURM and
# containers in one process (they share the default run and use both cores themselves).
fast=(tests/unit src -m "not workflow and not container and not cluster" -n 2 --dist loadfile)
services_tiers=(-m "workflow or container or cluster" --durations=25)
only_fast=
if [ "${1:-}" = "--fast" ]; then
    shift
    only_fast=1
fi
bash tools/setup.sh
if [ -n "$only_fast" ]; then
    # The fast lane runs offline on a bare clone (no ../shared, no RCSB): it needs no task inputs, and the tests that
    # read the benchmark's PDB files (the `structures` tier, tests/conftest.py) are skipped with the reason when the
    # files are not on this machine. The full run (CI) needs both and fails without them.
    export WESTBENCH_STRUCTURES_OPTIONAL=1
    .venv/bin/python tools/task_structures.py --optional
else
    .venv/bin/python tools/task_structures.py  # task inputs from ../shared/structures or the RCSB (not committed)
fi

# Lint (seconds), in every mode before pytest: ruff (lint and format) over the tree, snakefmt over the rules,
# pinned in pyproject.toml's test extra and configured there. A failure fails the run; the tests still run.
lint_fix="ruff format . && ruff check --fix . && snakefmt Snakefile rules  (with .venv/bin/ in front of each)"
lint=0
echo "[test] lint: ruff check, ruff format --check, snakefmt --check"
.venv/bin/ruff check --quiet . || lint=1
.venv/bin/ruff format --check --quiet . || lint=1
.venv/bin/snakefmt --check Snakefile rules || lint=1
if [ "$lint" != 0 ]; then
    echo "[test] lint failed (the lines above); fix with: $lint_fix" >&2
fi

services=
if [ -z "$only_fast" ]; then
    # The machine services (Chromium for the report's browser test, SLURM daemons, Docker engine, the task base
    # images, Harbor, Podman with the images copied into its storage) install in the background while the unit and
    # workflow tiers run (pyproject's testpaths order: cluster and containers last). Their fixtures run the same scripts
    # again, which wait on the scripts' lock and find it done (Podman's part cost the container tier 129 s).
    log=${WESTBENCH_SERVICES_LOG:-/tmp/westbench-services-setup.log}
    echo "[test] setting up Chromium, SLURM and the agent machine (Docker and Podman) in the background (log: $log)"
    ( bash tools/setup-browser.sh; bash tools/slurm/setup-slurm.sh && bash tools/setup-agents.sh --podman ) >"$log" 2>&1 &
    services=$!
fi
status=0
if [ -n "$only_fast" ]; then
    .venv/bin/python -m pytest "${fast[@]}" "$@" || status=$?
elif [ $# -gt 0 ]; then
    .venv/bin/python -m pytest "$@" || status=$?  # the tests named, as asked
else
    .venv/bin/python -m pytest "${fast[@]}" || status=$?
    .venv/bin/python -m pytest "${services_tiers[@]}" || { code=$?; [ "$status" != 0 ] || status=$code; }
fi
if [ -n "$services" ]; then
    wait "$services" || echo "[test] background setup failed; see $log" >&2  # never leave apt or dpkg half done
fi
if [ "$lint" != 0 ]; then
    echo "[test] lint failed; fix with: $lint_fix" >&2
    [ "$status" != 0 ] || status=1
fi
exit "$status"
