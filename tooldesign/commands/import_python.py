"""``tooldesign import python FILE.py [--out DESIGN.py] [--service] [--toolset] [--all] [--force]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_out_file


def run(args: argparse.Namespace) -> int:
    from tooldesign.importers.python import import_python
    from tooldesign.importers.writer import render

    source = Path(args.file)
    result = import_python(
        source, service=args.service, toolset=args.toolset, all_functions=args.all
    )
    text = render(result.design)
    for notice in result.notices:
        print(f"tooldesign: warning: {notice}", file=sys.stderr)
    tools = sum(len(t.tools) for t in result.design.toolsets)
    if args.out:
        write_out_file(Path(args.out), text, replace=args.force)
        print(
            f"tooldesign: imported {tools} tool(s) from {source} into {args.out}", file=sys.stderr
        )
    else:
        sys.stdout.write(text)
    return EXIT_OK
