"""``tooldesign import python FILE.py [FILE.py ...] [--out DESIGN.py] [--service] [--toolset] [--all] [--force]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_imported_design


def run(args: argparse.Namespace) -> int:
    from tooldesign.importers.python import import_python

    # One file or several (one toolset per file, all in one service).
    sources = [Path(f) for f in args.file]
    result = import_python(
        sources, service=args.service, toolset=args.toolset, all_functions=args.all
    )
    write_imported_design(result, args, origin=", ".join(str(s) for s in sources))
    return EXIT_OK
