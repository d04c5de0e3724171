#!/usr/bin/env bash
# Set up a virtual environment (CPU torch) and run the main job on the bundled sample.
# Usage: bash scripts/demo.sh [--out FILE] [--n N] [--seed S]
set -euo pipefail
cd "$(dirname "$0")/.."
python -m venv .venv-demo
# shellcheck disable=SC1091
. .venv-demo/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q .
python -m visiontx demo "$@"
