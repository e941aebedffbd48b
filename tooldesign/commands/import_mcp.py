"""``tooldesign import mcp (--stdio "COMMAND ..." | --url URL) [--out DESIGN.py] [--service] [--toolset]``."""

from __future__ import annotations

import argparse

from tooldesign.contract.errors import EXIT_OK, UserError


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``mcp`` among the kinds of ``tooldesign import``."""
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
    from_mcp.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.toolchain import check_toolchain

    check_toolchain("import mcp")
    import shlex

    from tooldesign.commands._output import write_imported_design
    from tooldesign.importers.draft import MCPServerDraft
    from tooldesign.importers.mcp import import_mcp

    if args.stdio is not None:
        try:
            command = tuple(shlex.split(args.stdio))
        except ValueError as exc:
            raise UserError(f"--stdio {args.stdio!r}: {exc}") from None
        if not command:
            raise UserError("--stdio needs the command that starts the server")
        server = MCPServerDraft(command=command)
    else:
        if not args.url.startswith(("http://", "https://")):
            raise UserError(f"--url must be an http(s):// URL, got {args.url!r}")
        server = MCPServerDraft(url=args.url)
    result = import_mcp(server, service=args.service, toolset=args.toolset, timeout=args.timeout)
    write_imported_design(result, args, origin=args.stdio or args.url)
    return EXIT_OK
