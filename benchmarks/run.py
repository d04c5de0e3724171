"""Run the full benchmark and write ``benchmarks/RESULTS.md`` (``--quick`` for a short run).

Equivalent to ``python -m visiontx bench --out benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from visiontx._bench import run_bench

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).with_name("RESULTS.md")))
    args = parser.parse_args()
    sys.exit(run_bench(quick=args.quick, out=args.out))
