#!/usr/bin/env bash
# Set up a virtual environment with pinned torch + torchvision and run the test suite.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
python -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.14.1 torchvision==0.29.1
python -m pip install -q -e ".[test]"
python -m pytest -q -n 2 "$@"
