"""Run the benchmark and write ``benchmarks/RESULTS.md`` (``--quick`` for a short run, ``--out`` elsewhere).

Run from a source checkout: ``python benchmarks/run.py``. It times the checkout's visiontx (the
repository root goes first on ``sys.path``) with the harness in ``benchmarks/harness``.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"), help="where to write the markdown results")
    parser.add_argument("--albx-python", default=None,
                        help="an interpreter with AlbumentationsX: time it as a fourth peer (see NOTES.md)")
    parser.add_argument("--only", nargs="+", default=None, metavar="NAME",
                        help="only the transform and pipeline entries whose name contains one of these")
    parser.add_argument("--sizes", nargs="+", default=None, metavar="HxW", help="input sizes, e.g. 256x256 512x512")
    args = parser.parse_args(argv)
    for path in (HERE, HERE.parent):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    import dataclasses

    from harness import QUICK_CONFIG, BenchConfig, run_bench

    config = QUICK_CONFIG if args.quick else BenchConfig()
    if args.only:
        config = dataclasses.replace(config, only=tuple(args.only), sections=("transforms", "pipelines"))
    if args.sizes:
        sizes = tuple(tuple(int(n) for n in size.lower().split("x")) for size in args.sizes)
        config = dataclasses.replace(config, sizes=sizes)
    return run_bench(out=args.out, config=config, albx_python=args.albx_python)


if __name__ == "__main__":
    sys.exit(main())
