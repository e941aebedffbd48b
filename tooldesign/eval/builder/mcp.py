"""``MCPToolset``: the server its tools run on, and what only (or never) its tools may declare."""

from __future__ import annotations

import re
import shlex
from typing import Any

from tooldesign.dsl.records import Record, ToolRecord
from tooldesign.dsl.types import MCPServerExpr
from tooldesign.eval.builder.values import is_text
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import MCPServerSpec


def remote_name(rec: ToolRecord, remote: bool, issues: Issues) -> str | None:
    """A tool's name on its MCP server (``None``: its own name); checks what only a tool of an
    MCPToolset may say, and what it may not."""
    if not remote:
        if rec.remote_name is not None:
            issues.add(
                "remote_name= applies to tools of an MCPToolset only", rec.location, rec.path
            )
        return None
    if rec.bind is not None:
        issues.add(
            "BindTo has no place in an MCPToolset: its tools run on the MCP server",
            rec.bind.location,
            rec.bind.path,
        )
    for sd in rec.server_data:
        issues.add(
            "ServerData is not available for tools of an MCPToolset (the server sends only "
            "what the model reads)",
            sd.location,
            sd.path,
        )
    name = rec.remote_name
    if name is not None and (not is_text(name) or not name.strip()):
        issues.add(
            f"remote_name= must be the tool's name on the server, got {name!r}",
            rec.location,
            rec.path,
        )
        return None
    return name if name != rec.name else None


def mcp_server_spec(value: Any, rec: Record, issues: Issues) -> MCPServerSpec | None:
    """``MCPToolset(server=...)``: a URL, a command line, a list of arguments, or MCPServer()."""
    where, path = rec.location, rec.path
    expr = value if isinstance(value, MCPServerExpr) else None
    if expr is not None:
        where = expr.location
        command_value, url = expr.command, expr.url
        if (command_value is None) == (url is None):
            issues.add(
                "MCPServer needs a command (a stdio server) or url= (a streamable-HTTP server), "
                "not both",
                where,
                path,
            )
            return None
    elif isinstance(value, str) and value.startswith(("http://", "https://")):
        command_value, url = None, value
    else:
        command_value, url = value, None
    spec = MCPServerSpec()
    if url is not None:
        if not is_text(url) or not re.match(r"^https?://[^\s/]+", url):
            issues.add(f"the MCP server URL must be http(s)://…, got {url!r}", where, path)
            return None
        spec = MCPServerSpec(url=url)
    else:
        command = _command_line(command_value)
        if command is None:
            issues.add(
                "server= must be a streamable-HTTP URL, a command line that starts a stdio "
                f"server, a list of its arguments, or MCPServer(...); got {command_value!r}",
                where,
                path,
            )
            return None
        spec = MCPServerSpec(command=command)
    if expr is None:
        return spec
    checks = (
        ("env", expr.env, spec.command, "a stdio server's"),
        ("headers", expr.headers, spec.url, "a streamable-HTTP server's"),
    )
    pairs: dict[str, tuple[tuple[str, str], ...]] = {}
    for key, given, applies, whose in checks:
        if given is None:
            continue
        if not applies:
            issues.add(f"MCPServer {key}= is {whose} only", where, path)
        elif not isinstance(given, dict) or not all(
            is_text(k) and is_text(v) for k, v in given.items()
        ):
            issues.add(f"MCPServer {key}= must map strings to strings, got {given!r}", where, path)
        else:
            pairs[key] = tuple(sorted(given.items()))
    if expr.cwd is not None and (not is_text(expr.cwd) or not spec.command):
        issues.add("MCPServer cwd= is a stdio server's working directory (a string)", where, path)
    timeout = expr.timeout
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        issues.add(
            f"MCPServer timeout= must be a positive number of seconds, got {timeout!r}", where, path
        )
        timeout = None
    return MCPServerSpec(
        command=spec.command,
        url=spec.url,
        env=pairs.get("env", ()),
        cwd=expr.cwd if is_text(expr.cwd) else None,
        headers=pairs.get("headers", ()),
        timeout=float(timeout) if timeout is not None else None,
    )


def _command_line(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError:
            return None
        return tuple(parts) or None
    if isinstance(value, list | tuple) and value and all(is_text(v) and v for v in value):
        return tuple(value)
    return None
