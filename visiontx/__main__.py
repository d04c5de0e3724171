"""Command line: ``python -m visiontx demo`` and ``python -m visiontx bench``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m visiontx", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="augment the bundled COCO sample and draw the results")
    demo.add_argument("--out", default="visiontx_demo.png", help="where to write the picture")
    demo.add_argument("--n", type=int, default=8, help="number of augmented samples")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    bench = commands.add_parser("bench", help="throughput per transform, beside torchvision and albumentations")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    bench.add_argument("--out", default=None, help="write the markdown results to this file")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from ._demo import run_demo

        return run_demo(out=args.out, n=args.n, seed=args.seed)
    from ._bench import run_bench

    return run_bench(quick=args.quick, out=args.out)


if __name__ == "__main__":
    sys.exit(main())
