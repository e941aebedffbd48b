"""The application's part in serving over MCP: its callbacks (``meta_for``, ``on_result``),
checked before any call fails on them, and the injected values a call needs from ``meta_for``.

An MCP request carries no application data a tool can trust: the server fills a call's
metadata with the session (a stdio connection's id, an HTTP session's ``Mcp-Session-Id``), the
JSON-RPC request id as ``tool_call_id``, and the ``call_id`` derived from them. Any other value
a tool injects (a tenant, a user id) comes from ``meta_for``, which the application writes.
Needs nothing of the ``mcp`` SDK, so the command line can check a runtime before serving it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tooldesign.runtime.spec.specs import ToolSpec

log = logging.getLogger("tooldesign.runtime.mcp")

CARRIED = frozenset({"session_id", "tool_call_id", "call_id"})
"""The injected values an MCP call fills without ``meta_for`` (the session only where the
transport has one: stdio always, HTTP with sessions)."""


def uncarried(specs: Iterable[ToolSpec[Any, Any]]) -> dict[str, tuple[str, ...]]:
    """Each tool (by name) that injects values an MCP call does not carry, with those values:
    the tools that answer "cannot run in this context" unless ``meta_for`` supplies them."""
    found: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        fields = tuple(name for name in spec.injected if name not in CARRIED)
        if fields:
            found[spec.name] = fields
    return found


def uncarried_warning(tools: Mapping[str, tuple[str, ...]], how: str) -> str | None:
    """One sentence for the operator about ``tools`` (from :func:`uncarried`): which values
    nothing provides, which tools will not run, and ``how`` to provide them (``{values}`` in it
    names the values)."""
    if not tools:
        return None
    fields = sorted({name for names in tools.values() for name in names})
    names = sorted(tools)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    values = " and ".join(fields)
    verb = "injects" if len(names) == 1 else "inject"
    return (
        f"{shown} {verb} {values}, which MCP calls do not carry, so "
        f"{'it answers' if len(names) == 1 else 'they answer'} that "
        f"{'it' if len(names) == 1 else 'they'} cannot run; {how.format(values=values)}"
    )


class MissingExplained:
    """Tells the operator, once per tool and missing values, why a call lacks an injected
    value and what to do (the model is only told that the tool cannot run there)."""

    def __init__(self, *, meta_for: object | None) -> None:
        self._meta_for = meta_for
        self._told: set[tuple[str, tuple[str, ...]]] = set()

    def __call__(self, tool: str, missing: tuple[str, ...], *, http_without_session: bool) -> None:
        if (tool, missing) in self._told:
            return
        self._told.add((tool, missing))
        fields = " and ".join(missing)
        if self._meta_for is not None:
            name = getattr(self._meta_for, "__qualname__", None) or repr(self._meta_for)
            remedy = (
                f"meta_for ({name}) returned no {fields} for this call: set "
                + " and ".join(_where_set(field) for field in missing)
                + " in the ToolCallMeta it returns"
            )
        else:
            remedy = (
                f"set {fields} from the request (headers, the authenticated user, _meta) in "
                "ToolServer(meta_for=...), or `tooldesign serve-mcp --meta-for MODULE:FUNC`"
            )
        if "session_id" in missing and http_without_session:
            remedy = (
                "this HTTP request has no session (stateless apps and the 2026-07-28 wire have "
                "none): serve the default stateful app, streamable_http_app(stateless=False), "
                "where clients that negotiate the protocol open an Mcp-Session-Id session, or "
                + remedy
            )
        log.warning(
            "tool %s needs the injected field(s) %s, which this MCP call does not provide, so it "
            "answers that it cannot run here; %s",
            tool,
            fields,
            remedy,
        )


_META_IDS = ("session_id", "run_id", "turn_id", "tool_call_id", "parent_tool_call_id")


def _where_set(field: str) -> str:
    """Where a ``ToolCallMeta`` holds the value of the injected field ``field``."""
    return field if field in _META_IDS else f"labels[{field!r}]"


def check_callback(option: str, callback: Callable[..., Any] | None, call: str) -> None:
    """Refuse a callback that cannot be called as ``call`` says, before any call fails on it."""
    if callback is None:
        return
    if not callable(callback):
        raise TypeError(f"{option} must be a function called as {call}, not {callback!r}")
    try:
        signature = inspect.signature(callback)
    except (TypeError, ValueError):  # a builtin or the like: nothing to check it by
        return
    arguments = call[call.index("(") + 1 : -1].split(", ")
    try:
        signature.bind(*arguments)
    except TypeError:
        name = getattr(callback, "__qualname__", repr(callback))
        raise TypeError(
            f"{option} is called as {call} (context: an McpCallContext), but {name}{signature} "
            "cannot be called that way"
        ) from None
