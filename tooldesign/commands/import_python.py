"""``tooldesign import python FILE.py [--out DESIGN.py] [--service] [--toolset] [--all] [--force]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_imported_design


def run(args: argparse.Namespace) -> int:
    from tooldesign.importers.python import import_python

    source = Path(args.file)
    result = import_python(
        source, service=args.service, toolset=args.toolset, all_functions=args.all
    )
    write_imported_design(result, args, origin=str(source))
    return EXIT_OK
