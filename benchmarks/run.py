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
                        help="only the transform, pipeline and small-image entries whose name contains one of these")
    parser.add_argument("--sizes", nargs="+", default=None, metavar="HxW", help="input sizes, e.g. 256x256 512x512")
    args = parser.parse_args(argv)
    for path in (HERE, HERE.parent):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    from harness import run_bench

    extra = {"albx_python": args.albx_python} if args.albx_python else {}
    if args.only or args.sizes:
        extra["config"] = _partial(args.quick, args.only, args.sizes)
    return run_bench(quick=args.quick, out=args.out, **extra)


def _partial(quick: bool, only: list[str] | None, sizes: list[str] | None):  # noqa: ANN202 (harness not importable yet)
    """The run's configuration restricted to the ``only`` entries (transforms, pipelines, small images) and
    ``sizes``."""
    import dataclasses

    from harness import QUICK_CONFIG, BenchConfig

    config = QUICK_CONFIG if quick else BenchConfig()
    if only:
        config = dataclasses.replace(config, only=tuple(only), sections=("transforms", "pipelines", "small"))
    if sizes:
        config = dataclasses.replace(config, sizes=tuple(tuple(int(n) for n in s.lower().split("x")) for s in sizes))
    return config

if __name__ == "__main__":
    sys.exit(main())
