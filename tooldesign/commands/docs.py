"""``tooldesign docs SOURCE... --out DIR [--against OLD]``: a static HTML reference of catalogs."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from tooldesign.contract.errors import EXIT_OK


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "docs",
        help="write a browsable HTML reference of tool catalogs",
        description="Write a static, self-contained HTML site from tool catalogs: an index with "
        "search, a page per tool, and (with --against) a page of what changed.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a tool_schemas.json, a folder of them (a gen/ folder), or REV:PATH in git",
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="the folder to write the site in"
    )
    parser.add_argument(
        "--against",
        metavar="OLD",
        help="an older version (a catalog, a folder, or REV:PATH in git): adds a page of changes",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.toolchain import check_toolchain

    check_toolchain("docs")
    from tooldesign.commands._catalogs import refuse_designs
    from tooldesign.docsite import build_site

    refuse_designs([*args.sources, args.against])
    started = time.perf_counter()
    report = build_site(args.sources, Path(args.out), against=args.against)
    extras = " and a page of changes" if report.changes else ""
    print(
        f"tooldesign: documented {report.tools} tool(s){extras} in {args.out} "
        f"(wrote {report.written}, removed {report.removed} file(s) in "
        f"{time.perf_counter() - started:.2f}s)"
    )
    return EXIT_OK
