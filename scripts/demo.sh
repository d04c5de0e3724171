#!/usr/bin/env bash
# Set up a virtual environment (CPU-only torch) and run the main job on the bundled sample.
# Usage: bash scripts/demo.sh [--out FILE] [--n N] [--seed S]     (PYTHON=python3.x to pick the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" -m venv .venv-demo
# shellcheck disable=SC1091
. .venv-demo/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0   # the small CPU-only build
python -m pip install -q .
python -m visiontx demo "$@"
