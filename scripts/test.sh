#!/usr/bin/env bash
# Install awm-gym with its test dependencies into a fresh virtualenv and run the test suite.
# Usage: scripts/test.sh [pytest args...]     (VENV=path overrides the virtualenv location)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# torch: only 2.13.0 is a local CPU wheel on this platform; later issues need it, so pin it here.
"$VENV/bin/python" -m pip install -q "torch==2.13.0" || echo "warning: torch==2.13.0 not installed (not needed by awm_gym itself)" >&2
"$VENV/bin/python" -m pip install -q -e ".[test]"
exec "$VENV/bin/python" -m pytest -q "$@"
