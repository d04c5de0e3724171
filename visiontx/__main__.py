"""Command line: ``python -m visiontx demo`` and ``python -m visiontx bench``."""

from __future__ import annotations

import argparse
import pathlib
import sys

# The benchmark harness lives beside the package in a source checkout, not in the installed package.
BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
NO_CHECKOUT = "visiontx bench: benchmarks are not installed; run them from a source checkout: python benchmarks/run.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m visiontx", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="augment the bundled COCO sample and draw the results")
    demo.add_argument("--out", default="visiontx_demo.png", help="where to write the picture")
    demo.add_argument("--n", type=int, default=8, help="number of augmented samples")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    bench = commands.add_parser("bench", help="throughput per transform, beside torchvision and albumentations "
                                "(from a source checkout)")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    bench.add_argument("--out", default=None, help="write the markdown results to this file")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from ._demo import run_demo

        return run_demo(out=args.out, n=args.n, seed=args.seed)
    return run_bench(quick=args.quick, out=args.out)


def run_bench(quick: bool, out: str | None) -> int:
    """Run the harness in the checkout's ``benchmarks/`` folder; without one, say so and return 1."""
    if not (BENCHMARKS / "harness" / "__init__.py").is_file():
        print(NO_CHECKOUT, file=sys.stderr)
        return 1
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    import harness

    return harness.run_bench(quick=quick, out=out)


if __name__ == "__main__":
    sys.exit(main())
