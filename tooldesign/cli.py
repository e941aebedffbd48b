"""``tooldesign`` command line.

Exit codes: 0 success; 1 ``--check`` found files that would change; 2 a design or usage error
(a clear message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_DRIFT = 1
EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"tooldesign: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tooldesign", description="Design-first tools for LLM agents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

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
    gen.set_defaults(run=_gen)
    return parser


def _gen(args: argparse.Namespace) -> int:
    from tooldesign.codegen.pipeline import generate

    report = generate(args.designs, args.out, check=args.check)
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


def main(argv: Sequence[str] | None = None) -> int:
    from tooldesign.codegen.output import FormattingError, OutputError
    from tooldesign.ir.errors import DesignError
    from tooldesign.ir.load import UsageError

    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except DesignError as exc:
        print(f"tooldesign: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (UsageError, OutputError, FormattingError) as exc:
        print(f"tooldesign: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())
