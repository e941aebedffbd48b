"""``tooldesign mcp-config MODULE:ATTR --host claude-desktop|claude-code|cursor|vscode [--app-dir
DIR] [--name NAME] [--env KEY=VALUE]... [--meta-for MODULE:FUNC] [--on-result MODULE:FUNC]
[--server-version V]``.

Prints what an MCP host needs to start ``tooldesign serve-mcp`` for an application: the JSON
entry of its configuration file, or for Claude Code the ``claude mcp add`` command. Hosts start
servers from a working directory of their own, with a small environment, so everything is
absolute: this Python (whose environment has tooldesign and the application's packages) runs
``-m tooldesign serve-mcp`` with ``--app-dir`` set to the folder the application is imported
from.

The target is loaded first, and the server built, as ``serve-mcp`` will: a target or a callback
that cannot be imported or built is an error here, not a server that fails in the host's log.
Tools that inject values no MCP call carries (a tenant, a user id), with no ``--meta-for`` to
provide them, are named in a warning: served that way, they answer that they cannot run.

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
from typing import TYPE_CHECKING, Any

from tooldesign.commands._targets import Target, load_target, parse_target
from tooldesign.commands.serve_mcp import resolve_server, uncarried_warning
from tooldesign.contract.errors import EXIT_OK, UserError

if TYPE_CHECKING:
    from tooldesign.runtime.mcp import ToolServer

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
    config.add_argument(
        "--meta-for",
        metavar="MODULE:FUNC",
        help="the server's meta_for(context): builds each call's ToolCallMeta (the values tools "
        "inject besides the session), imported from the application's folder",
    )
    config.add_argument(
        "--on-result",
        metavar="MODULE:FUNC",
        help="the server's on_result(result, context), observing each result",
    )
    config.add_argument(
        "--server-version",
        metavar="VERSION",
        help="the server version the host sees (default: the served catalog's version)",
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
    callbacks = _callback_targets(args, target)
    # Built as serve-mcp will build it: a target or a callback that does not load is an error
    # now, not in the host's log.
    server = asyncio.run(_server(target, callbacks, args))
    name = _server_name(args.name or str(server.server.name))
    command = [sys.executable, *serve_arguments(target, callbacks, args.server_version)]
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
    warning = uncarried_warning(server)
    if warning:
        print(f"tooldesign: warning: {warning}", file=sys.stderr)
    print(f"tooldesign: {_WHERE[args.host]}", file=sys.stderr)
    return EXIT_OK


_CALLBACK_FLAGS = {"meta_for": "--meta-for", "on_result": "--on-result"}


def serve_arguments(
    target: Target, callbacks: dict[str, Target] | None = None, version: str | None = None
) -> list[str]:
    """The Python arguments that serve ``target`` over stdio from any working directory, with
    the server's ``callbacks`` (by option: ``meta_for``, ``on_result``) and ``version``."""
    arguments = ["-m", "tooldesign", "serve-mcp", target.spelled, "--app-dir", str(target.folder)]
    for option, callback in (callbacks or {}).items():
        arguments += [_CALLBACK_FLAGS[option], callback.spelled]
    if version:
        arguments += ["--server-version", version]
    return arguments


def _callback_targets(args: argparse.Namespace, target: Target) -> dict[str, Target]:
    """``--meta-for`` and ``--on-result``, each importable from the application's folder (the
    server imports them from there)."""
    found: dict[str, Target] = {}
    for option, flag in _CALLBACK_FLAGS.items():
        given = getattr(args, option, None)
        if given is None:
            continue
        usage = f"{flag} takes MODULE:FUNC (for example app.mcp:{option})"
        callback = parse_target(given, usage=usage, app_dir=args.app_dir)
        if callback.folder != target.folder:
            raise UserError(
                f"{flag} {given} is imported from {callback.folder}, but the application from "
                f"{target.folder}: the server imports both from one folder (give the function "
                "as MODULE:FUNC of the application's folder)"
            )
        found[option] = callback
    return found


async def _server(
    target: Target, callbacks: dict[str, Target], args: argparse.Namespace
) -> ToolServer:
    """The ToolServer ``serve-mcp`` will serve (the host's name for it is --name's business)."""
    loaded = {option: load_target(callback) for option, callback in callbacks.items()}
    as_served = argparse.Namespace(
        target=args.target, name=None, server_version=args.server_version
    )
    return await resolve_server(load_target(target), loaded, as_served)


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
