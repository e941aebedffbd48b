"""The streamable-HTTP app of a :class:`~tooldesign.runtime.mcp.ToolServer`: who may call, from
where, and how many sessions they may hold.

Every request passes, in this order:

1. **Host and Origin** (:class:`HttpPolicy`): a request whose ``Host`` is not an allowed name
   answers 421, one whose ``Origin`` is not an allowed origin 403, whatever address the server
   listens on — a web page the user visits can otherwise reach a server on the user's machine
   or network (DNS rebinding). Requests without ``Origin`` (clients that are not browsers) pass.
2. **Authentication**, when a token verifier is given: a request without a valid bearer token
   answers 401 and reaches nothing else (the SDK's ``BearerAuthBackend`` and
   ``RequireAuthMiddleware``; with ``AuthSettings(resource_server_url=…)`` the app is an OAuth
   resource server and publishes its protected-resource metadata).
3. **Messages**: a body that is not a JSON-RPC message answers a short, stable error.
4. **Sessions** (:class:`SessionLimits`): a new session is admitted within the limits,
   ending the longest-idle session of whoever holds the most when the server is full; idle
   sessions expire.

Then the SDK's session manager serves the request.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import math
import time
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp import types
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
)
from mcp.server.auth.provider import AccessToken, TokenVerifier, principal_components
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from tooldesign.runtime.text import shown

log = logging.getLogger("tooldesign.runtime.mcp")

SESSION_HEADER = "mcp-session-id"
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""Names a client on this machine reaches the server by; always allowed."""


# ── authentication ────────────────────────────────────────────────────────────────────────


MIN_TOKEN_LENGTH = 16


class BearerTokens:
    """A ``TokenVerifier`` for fixed bearer tokens, each naming who holds it.

    ``BearerTokens({token: "ci", other_token: "alice"})``, or ``BearerTokens(token)`` for one
    (held by ``"bearer"``). The name is the authenticated identity: ``AccessToken.client_id``
    and ``.subject`` in ``McpCallContext.access_token``, and the client that per-client session
    limits count. Tokens are compared in constant time (their SHA-256 digests, every token each
    time), and must be at least 16 characters long.
    """

    def __init__(self, tokens: str | Mapping[str, str]) -> None:
        named = {tokens: "bearer"} if isinstance(tokens, str) else dict(tokens)
        if not named:
            raise ValueError("BearerTokens needs at least one token")
        for token, name in named.items():
            if not isinstance(token, str) or len(token) < MIN_TOKEN_LENGTH:
                raise ValueError(
                    f"the bearer token of {name!r} is shorter than {MIN_TOKEN_LENGTH} characters; "
                    "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
                )
        self._digests = [(_digest(token), name) for token, name in named.items()]
        self.identities = tuple(named.values())

    async def verify_token(self, token: str) -> AccessToken | None:
        given = _digest(token)
        holder: str | None = None
        for digest, name in self._digests:  # no early exit: every token is compared
            if hmac.compare_digest(given, digest):
                holder = name
        if holder is None:
            return None
        return AccessToken(token=token, client_id=holder, scopes=[], subject=holder)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def access_token_of(scope: Mapping[str, Any]) -> AccessToken | None:
    """The verified token of a request, set by the authentication middleware (else ``None``)."""
    user = scope.get("user")
    return user.access_token if isinstance(user, AuthenticatedUser) else None


def _client_of(scope: Mapping[str, Any]) -> Hashable | None:
    """Who a request comes from, for session limits: the token's principal, or ``None``."""
    token = access_token_of(scope)
    return principal_components(token) if token is not None else None


# ── hosts and origins ─────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How many stateful HTTP sessions the server keeps, and for how long.

    ``max_sessions``: sessions open at once; when full, a new session ends the longest-idle
    session (no call in flight) of the client holding the most, or is refused (503) when every
    session is busy. ``per_client``: sessions one authenticated identity may hold; past it, its
    own longest-idle session ends, or the new one is refused. Clients without authentication
    cannot be told apart, so only ``max_sessions`` bounds them. ``idle_timeout``: seconds
    without any request in flight (an open event stream counts as one) after which a session
    ends; the client gets 404 and opens a new one.
    """

    max_sessions: int = 1000
    per_client: int = 100
    idle_timeout: float = 600.0

    def __post_init__(self) -> None:
        if not isinstance(self.max_sessions, int) or self.max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {self.max_sessions!r}")
        if not isinstance(self.per_client, int) or self.per_client < 1:
            raise ValueError(f"per_client must be at least 1, got {self.per_client!r}")
        if not (math.isfinite(self.idle_timeout) and self.idle_timeout > 0):
            raise ValueError(f"idle_timeout must be positive seconds, got {self.idle_timeout!r}")

    def describe(self) -> str:
        return (
            f"at most {self.max_sessions} ({self.per_client} per authenticated client); "
            f"idle ones end after {self.idle_timeout:g} s"
        )


@dataclass(frozen=True, slots=True)
class HttpPolicy:
    """What the HTTP app lets through: the ``Host`` names and ``Origin`` values it accepts, its
    authentication, and its session limits. The app keeps it as ``app.state.mcp_policy``.

    Host patterns are ``name`` (any port), ``name:port`` or ``*`` (any host; for a server
    behind a proxy that checks names itself). Origin patterns are ``scheme://name``,
    ``scheme://name:port``, ``scheme://name:*`` (any port) or ``*``. Names compare without
    regard to case.
    """

    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    authentication: str
    sessions: SessionLimits | None

    @classmethod
    def for_host(
        cls,
        host: str,
        *,
        allowed_hosts: Collection[str] | None = None,
        allowed_origins: Collection[str] | None = None,
        authentication: str = "none",
        sessions: SessionLimits | None = None,
    ) -> HttpPolicy:
        """The policy of a server listening on ``host``: the names given, plus the loopback
        names and ``host`` itself unless it is a wildcard address (``0.0.0.0``, ``::``): a
        name a client uses for a wildcard cannot be guessed, so it must be given. Origins: the
        ones given, plus the loopback ones (``http://localhost:*`` and the like)."""
        hosts = [*LOOPBACK_HOSTS]
        own = _bracketed(host)
        if own and not _is_wildcard(host) and own.lower() not in hosts:
            hosts.append(own.lower())
        origins = [f"{scheme}://{name}:*" for scheme in ("http", "https") for name in hosts]
        return cls(
            allowed_hosts=_merged(hosts, allowed_hosts or (), _check_host_pattern),
            allowed_origins=_merged(origins, allowed_origins or (), _check_origin_pattern),
            authentication=authentication,
            sessions=sessions,
        )

    def host_allowed(self, value: str | None) -> bool:
        if "*" in self.allowed_hosts:
            return True
        if not value:
            return False
        name, port = _split_port(value.strip().lower())
        return any(_matches(name, port, pattern) for pattern in self.allowed_hosts)

    def origin_allowed(self, value: str | None) -> bool:
        if value is None or "*" in self.allowed_origins:
            return True  # no Origin: not a browser, nothing to rebind
        scheme, sep, rest = value.strip().lower().partition("://")
        if not sep or "/" in rest:
            return False  # "null" (sandboxed pages, files) and anything that is not an origin
        name, port = _split_port(rest)
        return any(
            pattern.startswith(scheme + "://") and _matches(name, port, pattern[len(scheme) + 3 :])
            for pattern in self.allowed_origins
        )

    def describe(self) -> list[str]:
        """Lines for people: what this app lets through."""
        hosts = "any" if "*" in self.allowed_hosts else ", ".join(self.allowed_hosts)
        origins = "any" if "*" in self.allowed_origins else ", ".join(self.allowed_origins)
        lines = [
            f"authentication: {self.authentication}",
            f"Host names allowed: {hosts}",
            f"browser origins allowed: {origins} (requests without an Origin pass)",
        ]
        if self.sessions is not None:
            lines.append(f"sessions: {self.sessions.describe()}")
        return lines


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return host == ""


def _bracketed(host: str) -> str:
    """``::1`` → ``[::1]``: IPv6 addresses appear bracketed in ``Host`` and ``Origin``."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _split_port(value: str) -> tuple[str, str | None]:
    """``name:port`` → (name, port); ``[v6]:port`` keeps the brackets on the name."""
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return value, None
        rest = value[end + 1 :]
        return value[: end + 1], rest[1:] if rest.startswith(":") else None
    name, sep, port = value.rpartition(":")
    return (name, port) if sep else (value, None)


def _matches(name: str, port: str | None, pattern: str) -> bool:
    """A name (and port) against ``name``, ``name:*`` (any port) or ``name:port``."""
    pattern_name, pattern_port = _split_port(pattern)
    if pattern_name != name:
        return False
    return pattern_port in (None, "*") or pattern_port == port


def _merged(
    defaults: Sequence[str], given: Collection[str], check: Callable[[str], str]
) -> tuple[str, ...]:
    merged = list(defaults)
    for pattern in given:
        normal = check(pattern)
        if normal not in merged:
            merged.append(normal)
    return tuple(merged)


def _check_host_pattern(pattern: str) -> str:
    normal = pattern.strip().lower()
    if normal == "*":
        return normal
    name, port = _split_port(normal)
    if not name or "/" in normal or (port is not None and port != "*" and not port.isdigit()):
        raise ValueError(
            f"an allowed host is a name, name:port or name:* (like mcp.example.com), got {pattern!r}"
        )
    return normal


def _check_origin_pattern(pattern: str) -> str:
    normal = pattern.strip().lower().rstrip("/")
    if normal == "*":
        return normal
    scheme, sep, rest = normal.partition("://")
    name, port = _split_port(rest)
    if (
        not sep
        or not scheme
        or not name
        or "/" in rest
        or (port is not None and port != "*" and not port.isdigit())
    ):
        raise ValueError(
            "an allowed origin is scheme://name, scheme://name:port or scheme://name:* "
            f"(like https://app.example.com), got {pattern!r}"
        )
    return normal


class _Warnings:
    """Warns about refused requests once a minute at most: a flood must not flood the log."""

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._last: dict[str, float] = {}

    def warn(self, kind: str, message: str, *args: Any) -> None:
        now = self.clock()
        if now - self._last.get(kind, -math.inf) >= self.every:
            self._last[kind] = now
            log.warning(message, *args)


class _HostsAndOrigins:
    """ASGI middleware: refuses requests from names and origins the policy does not allow."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy) -> None:
        self.app = app
        self.policy = policy
        self.warnings = _Warnings()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host, origin = headers.get("host"), headers.get("origin")
        if not self.policy.host_allowed(host):
            self.warnings.warn(
                "host",
                "refused a request for Host %s, which is not allowed (allow a name with "
                "--allowed-host or allowed_hosts=)",
                shown(host),
            )
            await _error(421, types.INVALID_REQUEST, "Host not allowed")(scope, receive, send)
            return
        if not self.policy.origin_allowed(origin):
            self.warnings.warn(
                "origin",
                "refused a request from Origin %s, which is not allowed (allow one with "
                "--allowed-origin or allowed_origins=)",
                shown(origin),
            )
            await _error(403, types.INVALID_REQUEST, "Origin not allowed")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _error(
    status: int, code: int, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON-RPC error without an id, as the HTTP answer ``status``."""
    body = types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )
    return Response(
        body.model_dump_json(by_alias=True, exclude_unset=True),
        status_code=status,
        headers=dict(headers or {}),
        media_type="application/json",
    )


# ── messages and sessions ─────────────────────────────────────────────────────────────────


@dataclass(slots=True, eq=False)
class _Session:
    id: str
    client: Hashable | None
    user: Any
    """The request's ``user`` and ``auth``: ending the session takes its owner's credentials."""
    auth: Any
    last_active: float
    last_call: float
    requests: int = 0
    """Requests in flight, an open event stream included."""
    calls: int = 0
    """Requests in flight other than event streams: while one runs, the session is busy."""


@dataclass
class _SessionTable:
    """The open sessions and the openings under way, by client; decides admissions."""

    limits: SessionLimits
    clock: Callable[[], float] = time.monotonic
    sessions: dict[str, _Session] = field(default_factory=dict)
    by_client: dict[Hashable | None, dict[str, _Session]] = field(default_factory=dict)
    opening: dict[Hashable | None, int] = field(default_factory=dict)

    def admit(self, client: Hashable | None) -> tuple[str | None, list[_Session]]:
        """Room for a new session of ``client``: (refusal or ``None``, sessions to end).

        An admitted opening holds its place until :meth:`opened` or :meth:`abandoned`.
        """
        ended = self._expired()
        for session in ended:
            self.forget(session.id)
        held = len(self.by_client.get(client, {})) + self.opening.get(client, 0)
        if client is not None and held >= self.limits.per_client:
            victim = self._idlest(client)
            if victim is None:
                return "Too many open sessions for this client", ended
        elif len(self.sessions) + sum(self.opening.values()) >= self.limits.max_sessions:
            victim = self._idlest_of_the_busiest_client()
            if victim is None:
                return "Too many open sessions", ended
        else:
            victim = None
        if victim is not None:
            self.forget(victim.id)
            ended.append(victim)
        self.opening[client] = self.opening.get(client, 0) + 1
        return None, ended

    def opened(self, client: Hashable | None, session_id: str, scope: Scope) -> None:
        self._close_opening(client)
        now = self.clock()
        session = _Session(session_id, client, scope.get("user"), scope.get("auth"), now, now)
        self.sessions[session_id] = session
        self.by_client.setdefault(client, {})[session_id] = session

    def abandoned(self, client: Hashable | None) -> None:
        self._close_opening(client)

    def get(self, session_id: str, client: Hashable | None) -> _Session | None:
        """The session, if ``client`` owns it (the SDK answers anyone else as for no session)."""
        session = self.sessions.get(session_id)
        return session if session is not None and session.client == client else None

    def forget(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        mine = self.by_client.get(session.client, {})
        mine.pop(session_id, None)
        if not mine:
            self.by_client.pop(session.client, None)

    def begin(self, session: _Session, *, call: bool) -> None:
        session.requests += 1
        session.calls += call
        session.last_active = self.clock()
        if call:
            session.last_call = session.last_active

    def end(self, session: _Session, *, call: bool) -> None:
        session.requests -= 1
        session.calls -= call
        session.last_active = self.clock()
        if call:
            session.last_call = session.last_active

    def _close_opening(self, client: Hashable | None) -> None:
        left = self.opening.get(client, 0) - 1
        if left > 0:
            self.opening[client] = left
        else:
            self.opening.pop(client, None)

    def _expired(self) -> list[_Session]:
        """Sessions idle for longer than the timeout (the SDK ends them too, about now)."""
        cutoff = self.clock() - self.limits.idle_timeout
        return [s for s in self.sessions.values() if s.requests == 0 and s.last_active <= cutoff]

    def _idlest(self, client: Hashable | None) -> _Session | None:
        idle = [s for s in self.by_client.get(client, {}).values() if s.calls == 0]
        return min(idle, key=lambda s: s.last_call, default=None)

    def _idlest_of_the_busiest_client(self) -> _Session | None:
        for client in sorted(self.by_client, key=lambda c: -len(self.by_client[c])):
            victim = self._idlest(client)
            if victim is not None:
                return victim
        return None


class _MessagesAndSessions:
    """ASGI app in front of the SDK's session manager: answers a body that is not a JSON-RPC
    message with a short error (the SDK's would quote pydantic), admits new sessions within
    the limits, ends the sessions admission evicts, and follows each session's activity.

    Only the handshake wire has sessions and is checked here: requests of the 2026-07-28 wire
    (a protocol version header the handshake does not know) are the SDK's to validate.
    """

    def __init__(self, manager: ASGIApp, path: str, table: _SessionTable | None) -> None:
        self.manager = manager
        self.path = path
        self.table = table
        self.warnings = _Warnings()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.manager(scope, receive, send)
            return
        headers = Headers(scope=scope)
        version = headers.get(PROTOCOL_VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await self.manager(scope, receive, send)
            return
        message: types.JSONRPCMessage | None = None
        if scope["method"] == "POST":
            body = await _read_body(receive)
            message, problem = _parsed(body)
            if problem is not None:
                await problem(scope, receive, send)
                return
            receive = _replaying(body, receive)
        session_id = headers.get(SESSION_HEADER)
        if self.table is None:
            await self.manager(scope, receive, send)
        elif session_id is None:
            opens = isinstance(message, types.JSONRPCRequest) and message.method == "initialize"
            if opens:
                await self._open(scope, receive, send)
            else:  # the SDK answers that a session is needed
                await self.manager(scope, receive, send)
        else:
            await self._serve(session_id, scope, receive, send)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.table is not None
        table = self.table
        client = _client_of(scope)
        refusal, ended = table.admit(client)
        for session in ended:
            await self._end(session)
        if refusal is not None:
            self.warnings.warn("full", "refused a new MCP session: %s", refusal.lower())
            await _error(503, types.INTERNAL_ERROR, refusal, {"Retry-After": "5"})(
                scope, receive, send
            )
            return
        registered = False

        async def watch(reply: Message) -> None:
            nonlocal registered
            if reply["type"] == "http.response.start" and reply["status"] < 400:
                session_id = Headers(raw=reply.get("headers", [])).get(SESSION_HEADER)
                if session_id:
                    table.opened(client, session_id, scope)
                    registered = True
            await send(reply)

        try:
            await self.manager(scope, receive, watch)
        finally:
            if not registered:
                table.abandoned(client)

    async def _serve(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.table is not None
        table = self.table
        session = table.get(session_id, _client_of(scope))
        if session is None:  # unknown, ended, or someone else's: the SDK answers 404
            await self.manager(scope, receive, send)
            return
        call = scope["method"] != "GET"  # a GET is the event stream; it does not keep it busy
        status = 0

        async def watch(reply: Message) -> None:
            nonlocal status
            if reply["type"] == "http.response.start":
                status = reply["status"]
            await send(reply)

        table.begin(session, call=call)
        try:
            await self.manager(scope, receive, watch)
        finally:
            table.end(session, call=call)
            if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
                table.forget(session_id)

    async def _end(self, session: _Session) -> None:
        """End a session as its client would: a DELETE with its id and credentials."""
        log.info("ending MCP session %s (idle) to make room for a new one", session.id[:8])
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(SESSION_HEADER.encode(), session.id.encode())],
            "client": None,
            "server": None,
            "user": session.user,
            "auth": session.auth,
        }

        async def discard(_: Message) -> None:
            pass

        await self.manager(scope, _replaying(b"", _no_disconnection), discard)


async def _read_body(receive: Receive) -> bytes:
    # Bounded by the body-size limit in front of this app.
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, then: Receive) -> Receive:
    """``receive`` for the app behind: the body already read, then what the client sends next
    (its disconnection: the SDK watches for it while it streams an answer)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await then()

    return receive


async def _no_disconnection() -> Message:
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


def _parsed(body: bytes) -> tuple[types.JSONRPCMessage | None, Response | None]:
    """The message in ``body``, or the answer to a body that holds none: what is wrong in a
    few stable words, never the parser's report (it names pydantic's internals)."""
    try:
        raw = pydantic_core.from_json(body)
    except ValueError:
        return None, _error(400, types.PARSE_ERROR, "Parse error: the body is not JSON")
    try:
        return types.jsonrpc_message_adapter.validate_python(raw, by_name=False), None
    except ValidationError:
        return None, _error(
            400, types.INVALID_REQUEST, "Invalid request: the body is not a JSON-RPC message"
        )


# ── the app ───────────────────────────────────────────────────────────────────────────────


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
    authentication: str | None = None,
) -> Starlette:
    """The ASGI app serving ``server`` at ``path`` (see the module docstring for the layers).

    ``authentication`` describes the verifier for people (``HttpPolicy.describe``).
    """
    if auth is not None and token_verifier is None:
        raise ValueError(
            "auth=AuthSettings(...) needs token_verifier=, which checks the tokens its "
            "authorization server issues"
        )
    limits = None if stateless else (sessions or SessionLimits())
    policy = HttpPolicy.for_host(
        host,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        authentication=_authentication(token_verifier, auth, authentication),
        sessions=limits,
    )
    if token_verifier is None and not _is_loopback(host):
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
        # them only on loopback hosts, and only on this route.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=max_request_body_size,
        session_idle_timeout=limits.idle_timeout if limits else None,
        max_sessions=limits.max_sessions if limits else None,
    )
    endpoint: ASGIApp = RequestBodyLimitMiddleware(
        _MessagesAndSessions(
            manager.handle_request, path, _SessionTable(limits) if limits else None
        ),
        max_request_body_size,
    )
    middleware = [Middleware(_HostsAndOrigins, policy=policy)]
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
    return app


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


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
