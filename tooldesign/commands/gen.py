"""``tooldesign gen DESIGN... --out DIR [--app-dir DIR] [--check] [--quiet] [--traceback]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tooldesign.commands._wording import in_cli_words
from tooldesign.contract.errors import EXIT_DRIFT, EXIT_OK, UserError


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
        "--app-dir",
        metavar="DIR",
        help="import the application the design binds to from DIR (default: the current directory)",
    )
    gen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 listing files that would change"
    )
    gen.add_argument(
        "--timings", action="store_true", help="also print how long each phase took (to stderr)"
    )
    gen.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print no progress and no summary line (notices and errors still)",
    )
    gen.add_argument(
        "--traceback",
        action="store_true",
        help="when the design's code raises, print the whole traceback",
    )
    gen.add_argument(
        "--targets",
        metavar="LIST",
        help="clients to check the tools against, comma-separated (openai-strict, gemini, "
        "claude-code, cursor, …): each problem is a notice with its design line",
    )
    gen.add_argument(
        "--server-name",
        metavar="NAME",
        help="the MCP server name the tools are served under, for --targets' name budgets "
        "(default: each service's name)",
    )
    gen.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.toolchain import check_toolchain

    check_toolchain("gen")
    from tooldesign.commands._progress import ProgressLine
    from tooldesign.generate import generate

    targets: tuple[str, ...] = ()
    if getattr(args, "targets", None):
        # Only then: the providers' rules bring the runtime package with them.
        from tooldesign.runtime.providers.targets import parse_targets

        targets = tuple(parse_targets(args.targets))
    server_name = getattr(args, "server_name", None)
    if server_name is not None and not targets:
        raise UserError("--server-name is read by --targets' name budgets: give --targets too")
    quiet = getattr(args, "quiet", False)  # a Namespace built in code may leave it out
    app_dir = getattr(args, "app_dir", None)
    if app_dir is not None and not Path(app_dir).expanduser().is_dir():
        raise UserError(f"--app-dir {app_dir}: no such folder")
    progress = ProgressLine.for_terminal(quiet=quiet)
    try:
        report = generate(
            args.designs,
            args.out,
            check=args.check,
            targets=targets,
            server_name=server_name,
            progress=progress,
            app_dir=Path(app_dir).expanduser() if app_dir is not None else None,
        )
    finally:
        if progress is not None:
            progress.close()
    for notice in report.notices:
        print(f"tooldesign: notice: {in_cli_words(str(notice))}", file=sys.stderr)
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
            if not quiet:
                print(report.summary(check=True))
            return EXIT_DRIFT
        if not quiet:
            print(report.summary(check=True))
        return EXIT_OK
    if not quiet:
        print(report.summary())
    return EXIT_OK
