"""``tooldesign diff OLD NEW`` (or ``--against REV:PATH [NEW]``): what changed between two
versions of a tool catalog, and whom it breaks.

Exit codes: 0 nothing breaking (as ``--fail-on`` counts it), 1 something breaking, 2 a usage
error or a source that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tooldesign.contract.errors import EXIT_OK, UserError

EXIT_BREAKING = 1


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "diff",
        help="compare two versions of a tool catalog: breaking changes, per tool",
        description="Compare two versions of a tool catalog and classify every change: breaking "
        "for models, breaking for applications, compatible, or prompt-only.",
    )
    parser.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="OLD and NEW (only NEW with --against): each a tool_schemas.json, a folder of them "
        "(a gen/ folder), or REV:PATH in git",
    )
    parser.add_argument(
        "--against",
        metavar="OLD",
        help="the old version, typically REV:PATH in git (main:gen, read without checking out); "
        "NEW then defaults to PATH as it is on disk",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json"
    )
    parser.add_argument(
        "--fail-on",
        choices=("models", "applications", "any"),
        default="any",
        help="what makes the exit code 1: changes breaking models, applications, or either "
        "(default any)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from tooldesign.commands._catalogs import refuse_designs
    from tooldesign.govern.diff import diff_catalogs
    from tooldesign.govern.report import render_text
    from tooldesign.govern.sources import read_source

    old_source, new_source = old_and_new(args.sources, args.against)
    refuse_designs([old_source, new_source])
    old_tools, new_tools = read_source(old_source), read_source(new_source)
    diff = diff_catalogs(old_tools, new_tools)
    if args.format == "json":
        sys.stdout.write(json.dumps(diff.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(diff))
        sys.stdout.write(_catalog_lines(diff, old_tools, new_tools))
    return EXIT_BREAKING if diff.fails(args.fail_on) else EXIT_OK


def _catalog_lines(diff: Any, old: Any, new: Any) -> str:
    """What the change does to cached prompt prefixes, and to the tool search's recall."""
    from tooldesign.govern.routing import cache_lines, compare_routing, routing_report

    changed = [tool.name for tool in diff.tools]
    lines = [f"Prompt cache: {line}" for line in cache_lines(changed)]
    if changed:
        moved = compare_routing(routing_report(old.tools.values()), new.tools.values())
        lines += [f"Tool search: {line}" for line in moved]
    return "".join(f"{line}\n" for line in lines)


def old_and_new(sources: list[str], against: str | None) -> tuple[str, str]:
    """OLD and NEW from the positional sources and ``--against``."""
    from tooldesign.govern.sources import git_path

    if against is None:
        if len(sources) != 2:
            raise UserError(
                f"diff takes OLD and NEW (got {len(sources)} source(s)), or --against OLD [NEW]"
            )
        return sources[0], sources[1]
    if len(sources) > 1:
        raise UserError(f"with --against, diff takes at most NEW (got {len(sources)} sources)")
    if sources:
        return against, sources[0]
    path = git_path(against)
    if path is None:
        raise UserError(
            f"--against {against}: NEW is needed (it defaults to PATH only for a git REV:PATH)"
        )
    return against, path
