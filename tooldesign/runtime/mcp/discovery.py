"""Serving a large catalog as discovery: ``tools/list`` shows the eager tools and a search, and
each connection's list grows by what its searches found.

A :class:`DiscoveryServer` is a :class:`~tooldesign.runtime.mcp.server.ToolServer` under a
:class:`~tooldesign.runtime.providers.LoadingPlan`. ``tools/list`` answers the tools the plan
loads eagerly, the builtin ``search_tools`` among them (the runtime must serve it:
``runtime.register(tool_index_registration(runtime, plan=plan))`` searches the deferred tools
only), and the deferred tools this connection's searches found. When a search finds tools the
connection's list lacked:

- on a handshake connection (protocol 2025-11-25 and before: stdio, in memory, a stateful HTTP
  session), they join its list and the server sends it ``notifications/tools/list_changed``,
  to that connection alone, so the client lists again and its model sees them;
- on the 2026-07-28 wire, which has no per-connection notice (and, over HTTP, no connection
  from one request to the next), the loading is per request: the search's answer carries the
  found tools' MCP definitions in its ``_meta`` (:data:`LOADED_META_KEY`), and
  ``tools/call`` runs any served tool by name, listed or not. On a stream connection they join
  its list too.

A deferred tool is never refused a call for not being listed: the plan decides what a model is
shown up front, not what it may run (approvals and the runtime's own checks still apply).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS
from tooldesign.runtime.mcp import callers
from tooldesign.runtime.mcp.server import MetaFor, OnResult, ToolServer, _connection_of
from tooldesign.runtime.providers import LoadingPlan, describe
from tooldesign.runtime.providers.deferred import SEARCH_TOOL_ID, PlanError
from tooldesign.runtime.runtime import Runtime

LOADED_META_KEY = "tooldesign/loaded_tools"
"""The ``_meta`` key of a ``search_tools`` answer: the MCP definitions of the tools it found."""


class DiscoveryServer(ToolServer):
    """A :class:`ToolServer` listing the eager tools and ``search_tools``, and per connection
    the tools its searches found (see the module's text). ``plan`` says which tools are
    deferred; a selector naming no served tool, or a runtime serving no ``search_tools``, is a
    :class:`~tooldesign.runtime.providers.PlanError` here."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        plan: LoadingPlan,
        name: str | None = None,
        version: str = "",
        instructions: str | None = None,
        meta_for: MetaFor | None = None,
        on_result: OnResult | None = None,
    ) -> None:
        self.plan = plan
        self._found: weakref.WeakKeyDictionary[Connection, set[str]] = weakref.WeakKeyDictionary()
        self._eager: tuple[object, frozenset[str]] | None = None
        super().__init__(
            runtime,
            name=name,
            version=version,
            instructions=instructions,
            meta_for=meta_for,
            on_result=on_result,
        )
        described = [describe(spec) for spec in runtime.specs()]
        plan.check(described)
        if not any(tool.id == SEARCH_TOOL_ID for tool in described):
            raise PlanError(
                "serving tools as discovery needs the builtin search_tools among them: "
                "runtime.register(tool_index_registration(runtime, plan=plan)) "
                "(tooldesign.builtin.tool_index)"
            )

    def eager(self) -> frozenset[str]:
        """The names every connection's ``tools/list`` shows (the plan's eager tools)."""
        catalog = self._served_catalog()
        cached = self._eager
        if cached is None or cached[0] is not catalog:  # the registrations changed
            names = frozenset(
                name
                for name, spec in catalog.specs.items()
                if self.plan.loading(describe(spec)) == "eager"
            )
            cached = self._eager = (catalog, names)
        return cached[1]

    def listed(self, connection: Connection | None = None) -> list[types.Tool]:
        """What ``tools/list`` answers on ``connection`` (``None``: one that found nothing)."""
        shown = self.eager() | (self._found.get(connection, set()) if connection else set())
        return [tool for tool in self._served_catalog().tools if tool.name in shown]

    def definition(self, name: str) -> types.Tool | None:
        """The MCP definition of the served tool ``name``, listed or not."""
        return self._served_catalog().by_name.get(name)

    def tools(self) -> list[types.Tool]:
        """What ``tools/list`` answers a connection that has found nothing yet."""
        return self.listed()

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed = self.listed(_connection_of(ctx))
        return types.ListToolsResult(
            tools=callers.shown(self._served_catalog(), ctx, self.runtime, listed)
        )

    async def _answer_call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> dict[str, Any] | types.InputRequiredResult:
        answer = await super()._answer_call(ctx, params)
        catalog = self._served_catalog()
        spec = catalog.specs.get(params.name)
        if (
            spec is None
            or spec.id != SEARCH_TOOL_ID
            or isinstance(answer, types.InputRequiredResult)
            or answer.get("isError")
        ):
            return answer
        names = [n for n in _found_names(answer.get("structuredContent")) if n in catalog.by_name]
        # A caller is not shown the found tools it may not call (listing never grants).
        found = [
            t.name
            for t in callers.shown(catalog, ctx, self.runtime, [catalog.by_name[n] for n in names])
        ]
        connection = _connection_of(ctx)
        known = self.eager() | self._found.get(connection, set())
        new = [name for name in found if name not in known]
        if new:
            self._found.setdefault(connection, set()).update(new)
        meta = dict(answer.get("_meta") or {})
        meta[LOADED_META_KEY] = [
            catalog.by_name[name].model_dump(mode="json", by_alias=True, exclude_none=True)
            for name in found
        ]
        if new and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            await ctx.session.send_tool_list_changed()
        return {**answer, "_meta": meta}


def _found_names(content: Mapping[str, Any] | None) -> list[str]:
    """The tools a ``search_tools`` answer names (its structured content: whole or a preview)."""
    tools = (content or {}).get("tools")
    if not isinstance(tools, list):
        return []
    return [t["name"] for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)]


__all__ = ["LOADED_META_KEY", "DiscoveryServer"]
