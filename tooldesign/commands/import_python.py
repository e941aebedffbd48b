"""``tooldesign import python FILE.py [FILE.py ...] [--out DESIGN.py] [--service] [--toolset] [--all] [--force]``."""

from __future__ import annotations

import argparse

from tooldesign.contract.errors import EXIT_OK


def add_parser(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``python`` among the kinds of ``tooldesign import``."""
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
    from_python.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.toolchain import check_toolchain

    check_toolchain("import python")
    from pathlib import Path

    from tooldesign.commands._output import write_imported_design
    from tooldesign.importers.python import import_python

    # One file or several (one toolset per file, all in one service).
    sources = [Path(f) for f in args.file]
    result = import_python(
        sources, service=args.service, toolset=args.toolset, all_functions=args.all
    )
    write_imported_design(result, args, origin=", ".join(str(s) for s in sources))
    return EXIT_OK
