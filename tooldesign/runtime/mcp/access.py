"""Who may call the HTTP app, and from where: bearer tokens, allowed ``Host`` names and
``Origin`` values, and the answers that refuse a request.

A web page the user visits can reach a server on the user's machine or network through the
browser (DNS rebinding: the page's own name made to point at the server). ``Host`` names the
server the browser thinks it talks to, ``Origin`` the page: both are checked on every request,
whatever address the server listens on. Requests without ``Origin`` (clients that are not
browsers) pass that check.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import math
import time
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, principal_components
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from tooldesign.contract.scopes import needed_scopes, scope_problem
from tooldesign.jsonschema.text import shown

log = logging.getLogger("tooldesign.runtime.mcp")

MIN_TOKEN_LENGTH = 16

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""Names a client on this machine reaches the server by: always allowed."""


# ── bearer tokens ─────────────────────────────────────────────────────────────────────────


class BearerTokens:
    """A ``TokenVerifier`` for fixed bearer tokens, each naming who holds it.

    ``BearerTokens({token: "ci", other_token: "alice"})``, or ``BearerTokens(token)`` for one
    (held by ``"bearer"``). The name is the authenticated identity: ``AccessToken.client_id``
    and ``.subject`` in ``McpCallContext.access_token``, and the client that per-client session
    limits count. Tokens are compared in constant time (their SHA-256 digests, every token each
    time), and must be at least 16 characters long.

    ``scopes`` gives each holder (by name) the OAuth scopes its token grants:
    ``BearerTokens({ops_token: "ops", bot_token: "bot"}, scopes={"ops": ["devices:write"]})``.
    A holder not named grants none: it is shown, and may call, only tools without ``Scopes``.
    """

    def __init__(
        self, tokens: str | Mapping[str, str], *, scopes: Mapping[str, Iterable[str]] | None = None
    ) -> None:
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
        self.scopes = _checked_scopes(scopes or {}, self.identities)
        """Each holder's scopes, sorted (a holder left out has none)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        given = _digest(token)
        holder: str | None = None
        for digest, name in self._digests:  # no early exit: every token is compared
            if hmac.compare_digest(given, digest):
                holder = name
        if holder is None:
            return None
        scopes = list(self.scopes.get(holder, ()))
        return AccessToken(token=token, client_id=holder, scopes=scopes, subject=holder)


def _checked_scopes(
    scopes: Mapping[str, Iterable[str]], holders: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """``BearerTokens``'s ``scopes=``, checked: each key a holder, each value scope tokens."""
    out: dict[str, tuple[str, ...]] = {}
    for name, given in scopes.items():
        if name not in holders:
            raise ValueError(
                f"BearerTokens scopes= names {name!r}, which holds no token "
                f"(holders: {', '.join(map(repr, holders))})"
            )
        if isinstance(given, str):
            raise TypeError(
                f"the scopes of {name!r} are a list of scopes, not one string {given!r}"
            )
        for scope in given:
            if (problem := scope_problem(scope)) is not None:
                raise ValueError(f"the scopes of {name!r}: {problem}")
        out[name] = needed_scopes(given)
    return out


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def access_token_of(scope: Mapping[str, Any]) -> AccessToken | None:
    """The verified token of a request, set by the authentication middleware (else ``None``)."""
    user = scope.get("user")
    return user.access_token if isinstance(user, AuthenticatedUser) else None


def client_of(scope: Mapping[str, Any]) -> Hashable | None:
    """Who a request comes from, for session limits: the token's principal, or ``None``."""
    token = access_token_of(scope)
    return principal_components(token) if token is not None else None


# ── hosts and origins ─────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class HostsAndOrigins:
    """The ``Host`` names and browser ``Origin`` values an app accepts.

    Host patterns are ``name`` (any port), ``name:port`` or ``*`` (any host: for a server
    behind a proxy that checks names itself). Origin patterns are ``scheme://name``,
    ``scheme://name:port``, ``scheme://name:*`` (any port) or ``*``. Names compare without
    regard to case.
    """

    hosts: tuple[str, ...]
    origins: tuple[str, ...]

    @classmethod
    def for_host(
        cls,
        host: str,
        *,
        allowed_hosts: Collection[str] | None = None,
        allowed_origins: Collection[str] | None = None,
    ) -> HostsAndOrigins:
        """Those of a server listening on ``host``: the names given, plus the loopback names
        and ``host`` itself unless it is a wildcard address (``0.0.0.0``, ``::``; the name a
        client uses for it cannot be guessed, so it must be given). Origins: the ones given,
        plus the loopback ones (``http://localhost:*`` and the like). A pattern that is not one
        raises ``ValueError``."""
        hosts = [*LOOPBACK_HOSTS]
        own = _bracketed(host).lower()
        if own and not _is_wildcard(host) and own not in hosts:
            hosts.append(own)
        origins = [f"{scheme}://{name}:*" for scheme in ("http", "https") for name in hosts]
        return cls(
            hosts=_merged(hosts, allowed_hosts or (), _host_pattern),
            origins=_merged(origins, allowed_origins or (), _origin_pattern),
        )

    def host_allowed(self, value: str | None) -> bool:
        if "*" in self.hosts:
            return True
        if not value:
            return False
        name, port = _split_port(value.strip().lower())
        return any(_matches(name, port, pattern) for pattern in self.hosts)

    def origin_allowed(self, value: str | None) -> bool:
        if value is None or "*" in self.origins:
            return True  # no Origin: not a browser, nothing to rebind
        scheme, sep, rest = value.strip().lower().partition("://")
        if not sep or "/" in rest:
            return False  # "null" (sandboxed pages, files) and anything that is not an origin
        name, port = _split_port(rest)
        return any(
            pattern.startswith(scheme + "://")
            and _matches(name, port, pattern[len(scheme) + 3 :], any_port_unless_given=False)
            for pattern in self.origins
        )

    def describe(self) -> list[str]:
        hosts = "any" if "*" in self.hosts else ", ".join(self.hosts)
        origins = "any" if "*" in self.origins else ", ".join(self.origins)
        return [
            f"Host names allowed: {hosts}",
            f"browser origins allowed: {origins} (requests without an Origin pass)",
        ]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``localhost``, ``127.0.0.1``, ``::1``…)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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


def _matches(
    name: str, port: str | None, pattern: str, *, any_port_unless_given: bool = True
) -> bool:
    """A name (and port) against ``name:*`` (any port), ``name:port``, or ``name``: any port
    for a host, none but the scheme's default for an origin (which then names no port)."""
    pattern_name, pattern_port = _split_port(pattern)
    if pattern_name != name:
        return False
    if pattern_port is None:
        return any_port_unless_given or port is None
    return pattern_port == "*" or pattern_port == port


def _merged(
    defaults: Sequence[str], given: Collection[str], normal: Callable[[str], str]
) -> tuple[str, ...]:
    merged = list(defaults)
    for pattern in given:
        if (checked := normal(pattern)) not in merged:
            merged.append(checked)
    return tuple(merged)


def _host_pattern(pattern: str) -> str:
    normal = pattern.strip().lower()
    name, port = _split_port(normal)
    if normal != "*" and (not name or "/" in normal or not _is_port(port)):
        raise ValueError(
            f"an allowed host is a name, name:port or name:* (like mcp.example.com), got {pattern!r}"
        )
    return normal


def _origin_pattern(pattern: str) -> str:
    normal = pattern.strip().lower().rstrip("/")
    scheme, sep, rest = normal.partition("://")
    name, port = _split_port(rest)
    if normal != "*" and (not (sep and scheme and name) or "/" in rest or not _is_port(port)):
        raise ValueError(
            "an allowed origin is scheme://name, scheme://name:port or scheme://name:* "
            f"(like https://app.example.com), got {pattern!r}"
        )
    return normal


def _is_port(port: str | None) -> bool:
    return port is None or port == "*" or port.isdigit()


class CheckHostsAndOrigins:
    """ASGI middleware: answers 421 to a ``Host`` and 403 to an ``Origin`` not allowed."""

    def __init__(self, app: ASGIApp, allowed: HostsAndOrigins) -> None:
        self.app = app
        self.allowed = allowed
        self.refusals = RefusalLog()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host, origin = headers.get("host"), headers.get("origin")
        if not self.allowed.host_allowed(host):
            self.refusals.warn(
                "host",
                "refused a request for Host %s, which is not allowed (allow a name with "
                "--allowed-host or allowed_hosts=)",
                shown(host),
            )
            await refusal(421, types.INVALID_REQUEST, "Host not allowed")(scope, receive, send)
        elif not self.allowed.origin_allowed(origin):
            self.refusals.warn(
                "origin",
                "refused a request from Origin %s, which is not allowed (allow one with "
                "--allowed-origin or allowed_origins=)",
                shown(origin),
            )
            await refusal(403, types.INVALID_REQUEST, "Origin not allowed")(scope, receive, send)
        else:
            await self.app(scope, receive, send)


# ── refusals ──────────────────────────────────────────────────────────────────────────────


def refusal(
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


class RefusalLog:
    """Warns about refused requests of one kind once a minute at most: a flood of refused
    requests must not flood the log."""

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._last: dict[str, float] = {}

    def warn(self, kind: str, message: str, *args: Any) -> None:
        now = self.clock()
        if now - self._last.get(kind, -math.inf) >= self.every:
            self._last[kind] = now
            log.warning(message, *args)
