#!/usr/bin/env bash
# Set up a virtual environment (.venv-demo) with visiontx and the pinned torch, and run the main job on the
# bundled sample. Usage: bash scripts/demo.sh [--out FILE] [--n N] [--seed S]   (PYTHON=python3.x, 3.10+)
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" -m venv .venv-demo
# shellcheck disable=SC1091
. .venv-demo/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -c scripts/constraints.txt torch   # the torch the tests run with (a large wheel on Linux)
# editable: the compiled kernels are built into the checkout, whose visiontx `python -m` imports from here
python -m pip install -q -c scripts/constraints.txt -e .
python -m visiontx demo "$@"
