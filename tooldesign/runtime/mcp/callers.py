"""Per-caller catalogs: who an MCP request comes from, and what it is shown and may call.

A request's verified token (a bearer token of :class:`~tooldesign.runtime.mcp.access.
BearerTokens` with its scopes, or an OAuth access token checked by the SDK's ``TokenVerifier``)
becomes the call's :class:`~tooldesign.runtime.Principal`: its subject (else its client id),
its client id and its scopes. ``tools/list`` shows a caller only the tools whose ``Scopes`` it
holds; listing never grants: a call by name is checked again in the pipeline (step 2b), on
every entry point alike. A request without a verified token (stdio, or HTTP without auth) has
no principal: it is shown every tool, unless the runtime was told to ``require_principal``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.auth.provider import AccessToken
from starlette.requests import Request
from tooldesign.runtime.mcp import control
from tooldesign.runtime.mcp.access import access_token_of
from tooldesign.runtime.mcp.sessions import SESSION_HEADER
from tooldesign.runtime.principal import Principal
from tooldesign.runtime.request import ToolCallMeta, entry_meta
from tooldesign.runtime.scopes import may_call
from tooldesign.runtime.spec.specs import ToolSpec


@dataclass(frozen=True, slots=True)
class Connection:
    """State of one stream connection (stdio, in-memory): the server's lifespan value."""

    id: str


def default_meta(ctx: Any, server_data: Mapping[str, bool]) -> tuple[ToolCallMeta, Request | None]:
    """The default metadata of a ``tools/call`` (``ctx``: its ``ServerRequestContext``; see
    ``McpCallContext``), and its HTTP request (``None`` on a stream)."""
    request = ctx.request if isinstance(ctx.request, Request) else None
    if request is not None:
        session_id = request.headers.get(SESSION_HEADER) or None
    else:
        lifespan = ctx.lifespan_context
        session_id = lifespan.id if isinstance(lifespan, Connection) else None
    request_id = None if ctx.request_id is None else str(ctx.request_id)
    trace = control.trace_of(ctx.meta) if ctx.meta else {}
    return entry_meta(session_id, request_id, server_data, trace), request


def principal_of(token: AccessToken | None) -> Principal | None:
    """The principal a verified token names (``None`` for no token)."""
    if token is None:
        return None
    subject = getattr(token, "subject", None) or token.client_id
    return Principal.of(subject, token.scopes, token.client_id)


def request_principal(ctx: Any) -> Principal | None:
    """The principal of the MCP request ``ctx`` (a ``ServerRequestContext``), from the token
    its HTTP request was verified with; ``None`` over stdio or without auth."""
    request = getattr(ctx, "request", None)
    if not isinstance(request, Request):
        return None
    return principal_of(access_token_of(request.scope))


def shown(
    catalog: Any, ctx: Any, runtime: Any, tools: Iterable[types.Tool] | None = None
) -> list[types.Tool]:
    """Of ``tools`` (the server's ``catalog.tools`` unless given), those the caller of request
    ``ctx`` may call, by their specs in ``catalog.specs`` and the ``runtime``'s
    ``require_principal``."""
    listed = catalog.tools if tools is None else tools
    principal = request_principal(ctx)
    required: bool = runtime.require_principal
    if principal is None and not required:
        return list(listed)
    specs: Mapping[str, ToolSpec[Any, Any]] = catalog.specs
    return [
        tool
        for tool in listed
        if (spec := specs.get(tool.name)) is None
        or may_call(spec.scopes, principal, required=required)
    ]


def verified(meta: ToolCallMeta, token: AccessToken | None) -> ToolCallMeta:
    """``meta`` carrying the principal of the call's verified ``token``; a principal the
    application's ``meta_for`` set itself (from the same request) is kept."""
    if meta.principal is not None or token is None:
        return meta
    return dataclasses.replace(meta, principal=principal_of(token))
