#!/usr/bin/env bash
# Set up a virtual environment (.venv) with pinned torch + torchvision (the reference) and run the test suite.
# Usage: bash scripts/test.sh [pytest args...]        (PYTHON=python3.x to pick the interpreter, 3.10+)
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -c scripts/constraints.txt torch torchvision
python -m pip install -q -c scripts/constraints.txt -e ".[test]"
python -m pytest -q -n 2 "$@"
