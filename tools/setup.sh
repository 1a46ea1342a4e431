#!/usr/bin/env bash
# Idempotent setup of a fresh Debian/Ubuntu machine for westbench: Python 3.11,
# the project's virtual environment (.venv) with the pinned packages of
# pyproject.toml, and westbench itself (editable). Re-running it does nothing
# unless pyproject.toml changed or the environment is broken.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

say() { echo "[setup] $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
    say "installing Debian packages: $*"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@"
}

# Python 3.11: the version the pins (and the CPU build of torch) are made for.
PYTHON=$(command -v python3.11 || true)
if [ -z "$PYTHON" ]; then
    apt_install python3.11 python3.11-venv
    PYTHON=$(command -v python3.11)
fi
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_install python3.11-venv
fi

if ! .venv/bin/python -c 'import sys; assert sys.version_info[:2] == (3, 11)' 2>/dev/null; then
    say "creating .venv with $("$PYTHON" --version)"
    rm -rf .venv
    "$PYTHON" -m venv .venv
fi

stamp=.venv/.westbench-pyproject.sha256
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] || ! .venv/bin/python -c 'import westbench, snakemake, openmm, pdbfixer, pytest' 2>/dev/null; then
    say "installing the pinned packages into .venv (a few minutes the first time)"
    # pip warns once per package about index folders some machines configure but lack; keep the rest.
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' 2>&1 \
        | { grep -v "^WARNING: Location 'file://" || true; }
    echo "$wanted" > "$stamp"
fi
say "ready: $(.venv/bin/python --version), snakemake $(.venv/bin/snakemake --version)"
