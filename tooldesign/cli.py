"""``tooldesign`` command line: the commands of ``tooldesign.commands``, each declaring its own
arguments next to its ``run``.

Exit codes (``tooldesign.contract.errors``): 0 success; 1 ``gen --check`` found files that would change;
2 a design or usage error (a clear message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tooldesign.commands import (
    diff,
    docs,
    export,
    gen,
    import_mcp,
    import_python,
    serve_mcp,
    worker,
)
from tooldesign.contract.errors import EXIT_ERROR, UserError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"tooldesign: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tooldesign", description="Design-first tools for LLM agents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in (gen, export, serve_mcp, worker):
        command.add_parser(commands)
    importing = commands.add_parser(
        "import", help="write a design from existing tools (Python code or an MCP server)"
    )
    kinds = importing.add_subparsers(dest="kind", required=True, parser_class=_Parser)
    for kind in (import_python, import_mcp):
        kind.add_parser(kinds)
    for command in (diff, docs):
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # --help and usage errors end here, quickly
    from tooldesign.ir.errors import DesignError

    try:
        code: int = args.run(args)
    except DesignError as exc:
        print(f"tooldesign: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except UserError as exc:
        print(f"tooldesign: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())
