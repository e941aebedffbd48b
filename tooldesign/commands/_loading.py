"""The loading plan on the command line: ``--defer``, ``--eager``, ``--default-loading`` and
``--read-only-eager``, shared by ``tooldesign export`` and ``tooldesign serve-mcp``.

Each flag is a :class:`~tooldesign.runtime.providers.LoadingPlan` field: a selector is a tool's
name or id, a toolset's name or ``service.toolset``, or ``tag:<tag>``; the flags repeat, and
each also takes a comma-separated list. Without any of them the design's plan holds (its
``Loading(...)``); a selector that matches no tool is an error naming the toolsets there are.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldesign.runtime.providers import LoadingPlan


def add_plan_arguments(parser: argparse.ArgumentParser, *, namespaces: bool = False) -> None:
    """The plan's flags; ``namespaces``: ``--namespaces`` too (an export's)."""
    group = parser.add_argument_group(
        "loading plan",
        "which tools the model is given up front and which it finds through a tool search "
        "(default: the design's Loading(...), else every tool up front)",
    )
    group.add_argument(
        "--defer",
        action="append",
        default=[],
        metavar="SELECTOR",
        help="defer these tools: a tool's name or id, a toolset (name or service.toolset), "
        "or tag:<tag>; repeat, or separate with commas",
    )
    group.add_argument(
        "--eager",
        action="append",
        default=[],
        metavar="SELECTOR",
        help="load these tools up front, whatever else defers them (same selectors)",
    )
    group.add_argument(
        "--default-loading",
        choices=("eager", "deferred"),
        help="how the tools no selector and no Loading(...) names are loaded",
    )
    group.add_argument(
        "--read-only-eager",
        action="store_true",
        help="read-only tools (annotations) are loaded up front unless a selector defers them",
    )
    if namespaces:
        group.add_argument(
            "--namespaces",
            action="store_true",
            help="OpenAI Responses: group the deferred tools in a namespace per toolset, "
            "which its tool search is trained on",
        )


def plan_from(args: argparse.Namespace) -> LoadingPlan | None:
    """The plan the flags give, or ``None`` when none is given (the design's plan holds)."""
    from tooldesign.runtime.providers import LoadingPlan

    deferred, eager = _listed(args.defer), _listed(args.eager)
    namespaces = bool(getattr(args, "namespaces", False))
    if not (deferred or eager or args.default_loading or args.read_only_eager or namespaces):
        return None
    return LoadingPlan(
        deferred=deferred,
        eager=eager,
        default=args.default_loading or "eager",
        read_only_eager=args.read_only_eager,
        namespaces=namespaces,
    )


def plan_flags_given(args: argparse.Namespace) -> list[str]:
    """The plan's flags given, as they are spelled (for a message refusing them)."""
    given = [
        ("--defer", bool(args.defer)),
        ("--eager", bool(args.eager)),
        ("--default-loading", bool(args.default_loading)),
        ("--read-only-eager", bool(args.read_only_eager)),
        ("--namespaces", bool(getattr(args, "namespaces", False))),
    ]
    return [flag for flag, value in given if value]


def _listed(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
