"""``tooldesign import mcp (--stdio "COMMAND ..." | --url URL) [--out DESIGN.py] [--service] [--toolset]``."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_out_file
from tooldesign.errors import UserError


def run(args: argparse.Namespace) -> int:
    from tooldesign.importers.draft import MCPServerDraft
    from tooldesign.importers.mcp import import_mcp
    from tooldesign.importers.writer import render

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
    text = render(result.design)
    for notice in result.notices:
        print(f"tooldesign: warning: {notice}", file=sys.stderr)
    tools = sum(len(t.tools) for t in result.design.toolsets)
    if args.out:
        write_out_file(Path(args.out), text, replace=args.force)
        print(f"tooldesign: imported {tools} tool(s) into {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK
