#!/usr/bin/env bash
# Set up a fresh machine for circuitlab: a virtual environment in .venv with the CPU build of
# torch 2.13.0 when no torch is installed there (a plain `torch` requirement would pull a
# multi-GB CUDA build), the package with its test extras, and, with --browser, Debian's
# chromium and chromium-driver for the browser tests (installed while pip runs). Safe to run
# again: it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"

apt_job=""
if [ "${1:-}" = "--browser" ]; then
    if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "setup: installing chromium and chromium-driver (apt, beside pip)"
            (
                apt-get update -qq
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
                    >/dev/null
            ) &
            apt_job=$!
        else
            echo "setup: chromium/chromedriver missing; install them (as root: apt-get install" \
                 "chromium chromium-driver) to run the browser tests" >&2
        fi
    fi
fi

# pip installs without compiling (one core, 40 % of a fresh set-up) and compileall then writes
# the bytecode on every core: it must be written here, since Python may run with
# PYTHONDONTWRITEBYTECODE set (CI machines do) and would then compile every import anew
if ! "$PY" -c "import torch" 2>/dev/null; then
    echo "setup: installing torch 2.13.0 (CPU build where one is available)"
    "$PY" -m pip install --quiet --no-compile "torch==2.13.0"
fi
stamp="$VENV/.circuitlab-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "setup: installing circuitlab and its test extras"
    "$PY" -m pip install --quiet --no-compile -e ".[test]"
    # (it fails on a few third-party files written for other Python versions, as pip's does)
    site=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    "$PY" -m compileall -q -j 0 "$site" >/dev/null 2>&1 || true
    touch "$stamp"
fi

if [ -n "$apt_job" ]; then
    wait "$apt_job" || { echo "setup: apt-get could not install chromium" >&2; exit 1; }
fi
