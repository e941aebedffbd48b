"""``tooldesign import mcp (--stdio "COMMAND ..." | --url URL) [--out DESIGN.py] [--service] [--toolset]``."""

from __future__ import annotations

import argparse
import shlex

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_imported_design
from tooldesign.errors import UserError


def run(args: argparse.Namespace) -> int:
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
