"""``tooldesign`` command line: the table of commands. Each command lives in ``tooldesign.commands``.

Exit codes: 0 success; 1 ``gen --check`` found files that would change; 2 a design or usage error
(a clear message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_DRIFT = 1
EXIT_ERROR = 2

PROVIDERS = ("openai", "anthropic", "gemini", "mcp")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"tooldesign: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def _command(parser: argparse.ArgumentParser, module: str) -> None:
    """Run ``tooldesign.commands.<module>.run(args)`` for this parser (imported only when used)."""
    parser.set_defaults(command_module=f"tooldesign.commands.{module}")


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
    _command(gen, "gen")

    export = commands.add_parser(
        "export", help="write the tool definitions a provider takes, or a prompt listing of tools"
    )
    export.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a tool_schemas.json, or a folder searched for them (a gen/ folder)",
    )
    export.add_argument(
        "--provider", choices=PROVIDERS, help="whose tool definitions (needed for --format json)"
    )
    export.add_argument("--strict", action="store_true", help="strict schemas (OpenAI, Anthropic)")
    export.add_argument(
        "--api",
        choices=("chat", "responses", "parameters", "json_schema"),
        help="the shape within a provider: OpenAI chat (default) or responses; "
        "Gemini parameters (default, the OpenAPI subset) or json_schema",
    )
    export.add_argument(
        "--fallback",
        action="store_true",
        help="with --strict (or Gemini's parameters): the plain form for the tools that "
        "cannot take it, named on stderr, instead of an error",
    )
    export.add_argument(
        "--format",
        choices=("json", "prompt"),
        default="json",
        help="json: the provider's tool definitions; prompt: a readable list for system prompts",
    )
    export.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    _command(export, "export")

    serve = commands.add_parser("serve-mcp", help="serve a Runtime's toolsets over MCP")
    serve.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Runtime, or a function returning one (sync or async), by import path",
    )
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="http only (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="http only (default 8000)")
    serve.add_argument("--name", help="the server name clients see (default: the services')")
    serve.add_argument(
        "--meta-for",
        metavar="MODULE:FUNC",
        help="builds each call's ToolCallMeta from the request: meta_for(context), sync or async",
    )
    serve.add_argument(
        "--on-result",
        metavar="MODULE:FUNC",
        help="observes each result: on_result(result, context), sync or async",
    )
    _command(serve, "serve_mcp")

    from tooldesign.commands import worker

    _command(worker.add_parser(commands), "worker")

    importing = commands.add_parser(
        "import", help="write a design from existing tools (Python code or an MCP server)"
    )
    kinds = importing.add_subparsers(dest="kind", required=True, parser_class=_Parser)

    from_python = kinds.add_parser(
        "python", help="tool functions of a Python file, read without running it"
    )
    from_python.add_argument(
        "file", nargs="+", metavar="FILE.py", help="one toolset per file, all in one service"
    )
    from_python.add_argument("--out", metavar="FILE", help="the design file to write")
    from_python.add_argument(
        "--service", help="the service name (default: the file's name; needed for several files)"
    )
    from_python.add_argument("--toolset", help="the toolset name (default: the file's name)")
    from_python.add_argument(
        "--all", action="store_true", help="every public function, decorated or not"
    )
    from_python.add_argument("--force", action="store_true", help="replace an existing --out file")
    _command(from_python, "import_python")

    from_mcp = kinds.add_parser("mcp", help="the tools an MCP server lists")
    server = from_mcp.add_mutually_exclusive_group(required=True)
    server.add_argument("--stdio", metavar="COMMAND", help="start the server with this command")
    server.add_argument("--url", help="a streamable-HTTP server's URL")
    from_mcp.add_argument("--out", metavar="FILE", help="the design file to write")
    from_mcp.add_argument("--force", action="store_true", help="replace an existing --out file")
    from_mcp.add_argument("--service", help="the service name (default: the server's name)")
    from_mcp.add_argument("--toolset", help="the toolset name (default: the server's name)")
    from_mcp.add_argument(
        "--timeout", type=float, default=30.0, help="seconds to wait for the server (default 30)"
    )
    _command(from_mcp, "import_mcp")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from tooldesign.errors import UserError
    from tooldesign.ir.errors import DesignError

    args = build_parser().parse_args(argv)
    try:
        module = importlib.import_module(args.command_module)
        code: int = module.run(args)
    except DesignError as exc:
        print(f"tooldesign: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except UserError as exc:
        print(f"tooldesign: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())
