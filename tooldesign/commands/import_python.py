"""``tooldesign import python FILE.py [--out DESIGN.py] [--service] [--toolset] [--all] [--force]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tooldesign.cli import EXIT_OK


def run(args: argparse.Namespace) -> int:
    from tooldesign.importers.python import import_python
    from tooldesign.importers.writer import render, write_design_file

    source = Path(args.file)
    result = import_python(
        source, service=args.service, toolset=args.toolset, all_functions=args.all
    )
    text = render(result.design)
    for notice in result.notices:
        print(f"tooldesign: warning: {notice}", file=sys.stderr)
    tools = sum(len(t.tools) for t in result.design.toolsets)
    if args.out:
        write_design_file(Path(args.out), text, force=args.force)
        print(
            f"tooldesign: imported {tools} tool(s) from {source} into {args.out}", file=sys.stderr
        )
    else:
        sys.stdout.write(text)
    return EXIT_OK
