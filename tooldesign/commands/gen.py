"""``tooldesign gen DESIGN... --out DIR [--check]``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tooldesign.cli import EXIT_DRIFT, EXIT_OK
from tooldesign.errors import UserError

if TYPE_CHECKING:
    from tooldesign.govern.design_targets import DesignCheck


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.pipeline import generate

    report = generate(args.designs, args.out, check=args.check, checks=_target_checks(args))
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


def _target_checks(args: argparse.Namespace) -> list[DesignCheck]:
    """The check of ``--targets`` (with ``--server-name``), if given."""
    from tooldesign.govern.design_targets import target_check
    from tooldesign.govern.targets import parse_targets

    targets = parse_targets(getattr(args, "targets", None) or "")
    server = getattr(args, "server_name", None)
    if server is not None and not targets:
        raise UserError("--server-name is read by --targets' name budgets: give --targets too")
    return [target_check(targets, server=server)] if targets else []
