"""``tooldesign gen DESIGN... --out DIR [--check]``."""

from __future__ import annotations

import argparse
import sys

from tooldesign.errors import EXIT_DRIFT, EXIT_OK


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gen = commands.add_parser(
        "gen", help="generate toolset packages and tool_schemas.json from designs"
    )
    gen.add_argument(
        "designs",
        nargs="+",
        metavar="DESIGN",
        help="a design .py file, a folder of them, or a dotted module",
    )
    gen.add_argument("--out", required=True, metavar="DIR", help="output folder (for example gen)")
    gen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 listing files that would change"
    )
    gen.add_argument(
        "--timings", action="store_true", help="also print how long each phase took (to stderr)"
    )
    gen.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.pipeline import generate

    report = generate(args.designs, args.out, check=args.check)
    for notice in report.notices:
        print(f"tooldesign: notice: {notice}", file=sys.stderr)
    if args.timings:
        for phase, seconds in report.phases.items():
            print(f"  {phase:<20} {seconds:7.3f}s", file=sys.stderr)
    if args.check:
        if report.changed:
            print("tooldesign: generated files are out of date:", file=sys.stderr)
            for path in report.written:
                print(f"  would write  {path}", file=sys.stderr)
            for path in report.removed:
                print(f"  would remove {path}", file=sys.stderr)
            print(report.summary(check=True))
            return EXIT_DRIFT
        print(report.summary(check=True))
        return EXIT_OK
    print(report.summary())
    return EXIT_OK
