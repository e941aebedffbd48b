"""``tooldesign mcp-config MODULE:ATTR --host claude-desktop|claude-code|cursor|vscode``.

Prints what an MCP host needs to start ``tooldesign serve-mcp`` for an application: the JSON
entry of its configuration file, or for Claude Code the ``claude mcp add`` command. Hosts start
servers from a working directory of their own, with a small environment, so everything is
absolute: this Python (whose environment has tooldesign and the application's packages) runs
``-m tooldesign serve-mcp`` with ``--app-dir`` set to the folder the application is imported
from.

The target is loaded first, as the server will load it: a target that cannot be imported or
built is an error here, not a server that fails in the host's log.

The formats, as each host documents them:

- Claude Desktop (``claude_desktop_config.json``) and Cursor (``.cursor/mcp.json``, or
  ``~/.cursor/mcp.json``): ``{"mcpServers": {NAME: {"command", "args", "env"?}}}``;
- VS Code (``.vscode/mcp.json``): ``{"servers": {NAME: {"type": "stdio", "command", "args",
  "env"?}}}``;
- Claude Code: ``claude mcp add --transport stdio [--env KEY=VALUE]... NAME -- COMMAND ARGS...``
  (``--scope project`` writes the same entry to the project's ``.mcp.json``).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from tooldesign.commands._targets import Target, built, load_target, parse_target
from tooldesign.contract.errors import EXIT_OK, UserError

HOSTS = ("claude-desktop", "claude-code", "cursor", "vscode")

USAGE = "mcp-config takes MODULE:ATTR (for example app.runtime:build_runtime)"

_WHERE = {
    "claude-desktop": "add it to claude_desktop_config.json (Claude Desktop: Settings › "
    "Developer › Edit Config), then restart Claude Desktop",
    "cursor": "add it to .cursor/mcp.json in your project (or ~/.cursor/mcp.json for every "
    "project)",
    "vscode": "add it to .vscode/mcp.json in your workspace",
    "claude-code": "run it in your project (add --scope project to share it in .mcp.json)",
}
"""Where each host's entry goes, told on standard error."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    config = commands.add_parser(
        "mcp-config",
        help="print the configuration an MCP host needs to start serve-mcp for a Runtime",
    )
    config.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Runtime, or a function returning one, by import path (or path/to/file.py:ATTR)",
    )
    config.add_argument("--host", required=True, choices=HOSTS, help="the MCP host")
    config.add_argument(
        "--app-dir",
        metavar="DIR",
        help="the folder the application is imported from (default: the current directory)",
    )
    config.add_argument(
        "--name", help="the server's name in the host (default: the runtime's services)"
    )
    config.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable the server starts with (repeatable)",
    )
    config.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import shlex

    from tooldesign.commands.serve_mcp import _require_mcp

    _require_mcp()
    env = _env(args.env)
    target = parse_target(args.target, usage=USAGE, app_dir=args.app_dir)
    served_as = asyncio.run(_default_name(target, args.target))  # also checks that it loads
    name = _server_name(args.name or served_as)
    command = [sys.executable, *serve_arguments(target)]
    if args.host == "claude-code":
        options = [f"--env={key}={value}" for key, value in env.items()]
        print(shlex.join(["claude", "mcp", "add", "--transport", "stdio", *options, name, "--"]
                         + command))  # fmt: skip
    else:
        entry: dict[str, Any] = {"command": command[0], "args": command[1:]}
        if env:
            entry["env"] = env
        if args.host == "vscode":
            config = {"servers": {name: {"type": "stdio", **entry}}}
        else:
            config = {"mcpServers": {name: entry}}
        print(json.dumps(config, indent=2, ensure_ascii=False))
    # Piped, standard output is buffered: flushed first, the entry comes before the hint on a
    # reader of both streams (`2>&1`), as on a terminal.
    sys.stdout.flush()
    print(f"tooldesign: {_WHERE[args.host]}", file=sys.stderr)
    return EXIT_OK


def serve_arguments(target: Target) -> list[str]:
    """The Python arguments that serve ``target`` over stdio from any working directory."""
    return ["-m", "tooldesign", "serve-mcp", target.spelled, "--app-dir", str(target.folder)]


async def _default_name(target: Target, given: str) -> str:
    """The name ``serve-mcp`` gives the server: the runtime's services (or the ToolServer's)."""
    from tooldesign.runtime import Runtime
    from tooldesign.runtime.mcp import ToolServer
    from tooldesign.runtime.mcp.server import default_server_name

    value = await built(
        load_target(target), given, {Runtime: "a Runtime", ToolServer: "a ToolServer"}
    )
    if isinstance(value, ToolServer):
        return str(value.server.name)
    return default_server_name(value)


def _server_name(name: str) -> str:
    """A name every host takes as a server's key: letters, digits, ``_`` and ``-``."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")
    if not cleaned:
        raise UserError(f"--name {name!r}: a server name needs letters or digits")
    return cleaned


def _env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--env takes KEY=VALUE (for example LOG_LEVEL=debug), got {pair!r}")
        env[key] = value
    return env
