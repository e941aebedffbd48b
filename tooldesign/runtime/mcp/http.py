"""The streamable-HTTP app of a :class:`~tooldesign.runtime.mcp.ToolServer`.

Every request passes, in this order:

1. **Host and Origin** (``access.HostsAndOrigins``): a ``Host`` that is not an allowed name
   answers 421, an ``Origin`` that is not an allowed origin 403, whatever address the server
   listens on.
2. **Authentication**, when a token verifier is given: a request without a valid bearer token
   answers 401 and reaches nothing else (the SDK's ``BearerAuthBackend`` and
   ``RequireAuthMiddleware``; with ``AuthSettings(resource_server_url=…)`` the app is an OAuth
   resource server and publishes its protected-resource metadata).
3. **Messages**: a body that is not a JSON-RPC message answers a short, stable error.
4. **Sessions** (:class:`~tooldesign.runtime.mcp.sessions.SessionLimits`): a new session is
   admitted within the limits; idle sessions end.
5. **Versions**: a request for a protocol version the server does not serve is answered
   naming the versions ``server/discover`` offers (:class:`OfferedVersions`).

Then the SDK's session manager serves the request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from tooldesign.runtime.mcp.access import (
    BearerTokens,
    CheckHostsAndOrigins,
    HostsAndOrigins,
    is_loopback,
    log,
)
from tooldesign.runtime.mcp.sessions import (
    PROTOCOL_VERSION_HEADER,
    MessagesAndSessions,
    SessionLimits,
    SessionTable,
)


@dataclass(frozen=True, slots=True)
class HttpPolicy:
    """What an HTTP app lets through, kept as ``app.state.mcp_policy``: the ``Host`` names and
    browser origins it accepts, how it authenticates, its session limits (``None``: stateless)."""

    allowed: HostsAndOrigins
    authentication: str
    sessions: SessionLimits | None

    def describe(self) -> list[str]:
        """Lines for people, as ``serve-mcp`` prints them when it starts."""
        lines = [f"authentication: {self.authentication}", *self.allowed.describe()]
        if self.sessions is not None:
            lines.append(f"sessions: {self.sessions.describe()}")
        return lines


def streamable_http_app(
    server: Server[Any],
    *,
    path: str,
    host: str,
    stateless: bool,
    json_response: bool,
    token_verifier: TokenVerifier | None,
    auth: AuthSettings | None,
    allowed_hosts: Collection[str] | None,
    allowed_origins: Collection[str] | None,
    sessions: SessionLimits | None,
    event_store: EventStore | None,
    retry_interval: int | None,
    max_request_body_size: int,
    offered: Callable[[], Sequence[str]],
    authentication: str | None = None,
) -> Starlette:
    """The ASGI app serving ``server`` at ``path`` (see the module docstring for the layers).

    ``offered`` names the protocol versions ``server/discover`` lists, now (they follow the
    served catalog). ``authentication`` describes the verifier for people
    (``HttpPolicy.describe``). The app
    keeps its :class:`HttpPolicy` as ``app.state.mcp_policy`` and its open sessions as
    ``app.state.mcp_sessions`` (``len()`` of it; ``None`` when stateless).
    """
    if auth is not None and token_verifier is None:
        raise ValueError(
            "auth=AuthSettings(...) needs token_verifier=, which checks the tokens its "
            "authorization server issues"
        )
    limits = None if stateless else (sessions or SessionLimits())
    allowed = HostsAndOrigins.for_host(
        host, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins
    )
    policy = HttpPolicy(allowed, _authentication(token_verifier, auth, authentication), limits)
    if token_verifier is None and not is_loopback(host):
        log.warning(
            "the MCP server on %s has no authentication: anyone who reaches it can call every "
            "tool (pass token_verifier=, or serve-mcp --auth-token-env NAME)",
            host,
        )
    manager = StreamableHTTPSessionManager(
        app=server,
        event_store=event_store,
        retry_interval=retry_interval,
        json_response=json_response,
        stateless=stateless,
        # Host and Origin are checked in front of every route, for any host: the SDK checks
        # them only for loopback hosts, and only on this route.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=max_request_body_size,
        session_idle_timeout=limits.idle_timeout if limits else None,
        max_sessions=limits.max_sessions if limits else None,
    )
    table = SessionTable(limits) if limits else None
    endpoint: ASGIApp = RequestBodyLimitMiddleware(
        OfferedVersions(MessagesAndSessions(manager.handle_request, path, table), offered),
        max_request_body_size,
    )
    middleware = [Middleware(CheckHostsAndOrigins, allowed=allowed)]
    routes: list[BaseRoute] = []
    if token_verifier is not None:
        resource_url = auth.resource_server_url if auth is not None else None
        checks_resource = auth is not None and bool(auth.validate_token_resource)
        middleware += [
            Middleware(
                AuthenticationMiddleware,
                backend=BearerAuthBackend(
                    token_verifier, resource_server_url=resource_url if checks_resource else None
                ),
            ),
            Middleware(AuthContextMiddleware),
        ]
        endpoint = RequireAuthMiddleware(
            endpoint,
            list(auth.required_scopes or []) if auth is not None else [],
            build_resource_metadata_url(resource_url) if resource_url is not None else None,
        )
        if auth is not None and resource_url is not None:
            routes += create_protected_resource_routes(
                resource_url=resource_url,
                authorization_servers=[auth.issuer_url],
                scopes_supported=auth.required_scopes,
            )
    routes.insert(0, Route(path, endpoint=endpoint))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lambda _: manager.run())
    app.state.mcp_policy = policy
    app.state.mcp_sessions = table
    return app


class OfferedVersions:
    """Names the versions ``server/discover`` offers in every unsupported-version error.

    The SDK answers a request for a version it does not serve (-32022) with the versions of
    the 2026-07-28 wire. A stateful app serving a tool that needs a session offers the
    handshake versions instead (``ToolServer``'s discover), and a client must read one list
    from both answers: told the handshake versions, a negotiating client opens a session.
    Only requests naming a version the server does not serve are looked at.
    """

    served = frozenset(HANDSHAKE_PROTOCOL_VERSIONS) | frozenset(MODERN_PROTOCOL_VERSIONS)

    def __init__(self, app: ASGIApp, offered: Callable[[], Sequence[str]]) -> None:
        self.app = app
        self.offered = offered

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = (
            Headers(scope=scope).get(PROTOCOL_VERSION_HEADER) if scope["type"] == "http" else None
        )
        if version is None or version in self.served:
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def naming_offered(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 400:
                held.append(message)
                return
            if not held:
                await send(message)
                return
            held.append(message)
            if not message.get("more_body", False):
                for reply in self._naming(held):
                    await send(reply)

        await self.app(scope, receive, naming_offered)

    def _naming(self, held: list[Message]) -> list[Message]:
        """The held 400 answer, its error's ``supported`` versions replaced by the offered."""
        start, *parts = held
        body = b"".join(part.get("body", b"") for part in parts)
        try:
            answer = json.loads(body)
            data = answer["error"]["data"]
            unsupported = answer["error"]["code"] == types.UNSUPPORTED_PROTOCOL_VERSION
        except (ValueError, KeyError, TypeError):
            return held
        if not unsupported or not isinstance(data, dict):
            return held
        data["supported"] = list(self.offered())
        body = json.dumps(answer, separators=(",", ":")).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        return [{**start, "headers": headers}, {"type": "http.response.body", "body": body}]


def _authentication(
    verifier: TokenVerifier | None, auth: AuthSettings | None, described: str | None
) -> str:
    if verifier is None:
        return "none — anyone who can reach the server can call every tool"
    if described is not None:
        return described
    if isinstance(verifier, BearerTokens):
        return f"bearer token ({', '.join(verifier.identities)})"
    if auth is not None and auth.resource_server_url is not None:
        return f"OAuth resource server {auth.resource_server_url}, tokens from {auth.issuer_url}"
    return f"bearer token checked by {type(verifier).__name__}"
