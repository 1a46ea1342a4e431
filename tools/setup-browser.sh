#!/usr/bin/env bash
# Idempotent: Debian's Chromium and ChromeDriver for the report's browser test
# (tests/workflow/test_report_browser.py) and for looking at the report headless. tools/test.sh runs this in its
# background setup; the test's fixture runs it again and returns at once when both are there.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0  # before the machine-wide lock: another setup may hold it for minutes
fi
# One machine-wide setup at a time (apt): the lock tools/setup-agents.sh and tools/slurm/setup-slurm.sh take.
if [ -z "${WESTBENCH_SETUP_LOCKED:-}" ]; then
    WESTBENCH_SETUP_LOCKED=1 exec flock -o "${WESTBENCH_SETUP_LOCK:-/tmp/westbench-machine-setup.lock}" bash "$0" "$@"
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "[setup-browser] installing Debian packages: chromium chromium-driver"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
echo "[setup-browser] ready: $(chromium --version 2>/dev/null), $(chromedriver --version 2>/dev/null | cut -d' ' -f1-2)"
