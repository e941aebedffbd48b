"""``tooldesign gen DESIGN... --out DIR [--check]``."""

from __future__ import annotations

import argparse
import sys

from tooldesign.cli import EXIT_DRIFT, EXIT_OK


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
