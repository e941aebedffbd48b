"""``tooldesign call MODULE:ATTR TOOL [ARGS] [--meta KEY=VALUE]... [--app-dir DIR]``.

Runs one tool call through an application's ``Runtime`` — decoding, injection, interceptors,
the tool, bounds, encoding: what a model's call goes through — and prints what the model would
read, then the whole ``ToolResult`` as JSON. The quickest way to try a tool.

``--meta`` fills the call's ``ToolCallMeta``: its ids (``session_id``, ``run_id``, ``turn_id``,
``tool_call_id``, ``parent_tool_call_id``, ``call_id``) by name, any other key as a label, where
injected fields are looked up too. The session defaults to ``cli``, as one MCP connection has
one session. Exit code 0 when the tool answered a result, 1 when it answered an error (invalid
arguments included), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tooldesign.contract.errors import EXIT_OK, UserError

if TYPE_CHECKING:
    from tooldesign.runtime import ToolCallMeta, ToolResult

EXIT_TOOL_ERROR = 1
"""The tool answered with an error (the printed result says which, and how to retry)."""

USAGE = "call takes MODULE:ATTR (for example app.runtime:build_runtime)"

_ID_KEYS = ("session_id", "run_id", "turn_id", "tool_call_id", "parent_tool_call_id", "call_id")
"""The ``--meta`` keys that are ``ToolCallMeta`` ids; any other key is a label. Written out, as
``--help`` does not import the runtime."""

DEFAULT_SESSION = "cli"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    call = commands.add_parser(
        "call",
        help="run one tool through a Runtime and print what the model reads, and the result",
    )
    call.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Runtime, or a function returning one (sync or async), by import path "
        "(or path/to/file.py:ATTR)",
    )
    call.add_argument("tool", metavar="TOOL", help="the tool's name (as models call it) or id")
    call.add_argument(
        "arguments",
        metavar="ARGS",
        nargs="?",
        default="{}",
        help="the arguments as JSON, as a model sends them (default {}; - reads standard input)",
    )
    call.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"call metadata: {', '.join(_ID_KEYS)}, or a label (repeatable; "
        f"session_id defaults to {DEFAULT_SESSION!r})",
    )
    call.add_argument(
        "--app-dir",
        metavar="DIR",
        help="import the application from DIR (default: the current directory)",
    )
    call.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json

    meta = call_meta(args.meta)
    payload = sys.stdin.read() if args.arguments == "-" else args.arguments
    result = asyncio.run(_call(args, payload, meta))
    print("for the model:")
    print(result.for_model())
    print()
    print("result:")
    print(json.dumps(shown(result), indent=2, ensure_ascii=False))
    remedy = injected_remedy(result)
    if remedy:
        print(f"tooldesign: {remedy}", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_TOOL_ERROR


def injected_remedy(result: ToolResult) -> str | None:
    """For a call the tool could not run because the metadata lacks (or spoils) a value it
    injects: the ``--meta`` options that give it."""
    outcome = result.telemetry.outcome
    if outcome not in ("missing_injected", "invalid_injected") or result.error is None:
        return None
    fields = [str(name) for name in result.error.details.get("fields", ())]
    if not fields:
        return None
    options = " ".join(f"--meta {name}=VALUE" for name in fields)
    names = " and ".join(fields)
    if outcome == "missing_injected":
        return f"the tool injects {names}, which the call's metadata does not give: add {options}"
    return f"the call's metadata gives an invalid value for {names}: give another with {options}"


async def _call(args: argparse.Namespace, payload: str, meta: ToolCallMeta) -> ToolResult:
    from tooldesign.commands._targets import built, load_target, parse_target
    from tooldesign.runtime import Runtime, ToolRequest

    target = parse_target(args.target, usage=USAGE, app_dir=args.app_dir)
    runtime: Runtime = await built(load_target(target), args.target, {Runtime: "a Runtime"})
    return await runtime.execute(ToolRequest(args.tool, payload, meta))


def call_meta(pairs: list[str]) -> ToolCallMeta:
    """``--meta KEY=VALUE`` options as a ``ToolCallMeta``."""
    from tooldesign.runtime import ToolCallMeta

    ids: dict[str, str] = {"session_id": DEFAULT_SESSION}
    labels: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UserError(f"--meta takes KEY=VALUE (for example session_id=s-1), got {pair!r}")
        (ids if key in _ID_KEYS else labels)[key] = value
    return ToolCallMeta.from_dict({**ids, "labels": labels})


def shown(result: ToolResult) -> dict[str, Any]:
    """``result.to_dict()``, its result as JSON data rather than the JSON text it travels as."""
    import json

    data = result.to_dict()
    encoded = data.pop("result_json", None)
    if encoded is not None:
        data = {"name": data.pop("name"), "result": json.loads(encoded), **data}
    return data
