"""Stateful HTTP sessions within limits, and messages checked before the SDK sees them.

The SDK's session manager refuses new sessions once it holds its maximum, until some end: a
flood of sessions (nothing stops an unauthenticated client opening thousands) would lock every
other client out for as long as the idle timeout. Here the server, when full, ends the
longest-idle session of the client holding the most instead; an authenticated client may hold
only so many; and the SDK ends sessions idle for too long, as before.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp import types
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from tooldesign.runtime.mcp.access import RefusalLog, client_of, log, refusal

SESSION_HEADER = "mcp-session-id"
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"


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


# ── the open sessions ─────────────────────────────────────────────────────────────────────


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
class SessionTable:
    """The open sessions and the openings under way, by client; decides admissions."""

    limits: SessionLimits
    clock: Callable[[], float] = time.monotonic
    sessions: dict[str, _Session] = field(default_factory=dict)
    by_client: dict[Hashable | None, dict[str, _Session]] = field(default_factory=dict)
    opening: dict[Hashable | None, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sessions)

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


# ── the app in front of the SDK's session manager ─────────────────────────────────────────


class MessagesAndSessions:
    """ASGI app in front of the SDK's session manager: answers a body that is not a JSON-RPC
    message with a short error (the SDK's would quote pydantic), admits new sessions within
    the limits, ends the sessions admission evicts, and follows each session's activity.

    Only the handshake wire has sessions and is checked here: requests of the 2026-07-28 wire
    (a protocol version header the handshake does not know) are the SDK's to validate.
    """

    def __init__(self, manager: ASGIApp, path: str, table: SessionTable | None) -> None:
        self.manager = manager
        self.path = path
        self.table = table
        self.refusals = RefusalLog()

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
        client = client_of(scope)
        refused, ended = table.admit(client)
        for session in ended:
            await self._end(session)
        if refused is not None:
            self.refusals.warn("full", "refused a new MCP session: %s", refused.lower())
            await refusal(503, types.INTERNAL_ERROR, refused, {"Retry-After": "5"})(
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
        session = table.get(session_id, client_of(scope))
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
    except (ValueError, RecursionError):
        return None, refusal(400, types.PARSE_ERROR, "Parse error: the body is not JSON")
    try:
        return types.jsonrpc_message_adapter.validate_python(raw, by_name=False), None
    except ValidationError:
        return None, refusal(
            400, types.INVALID_REQUEST, "Invalid request: the body is not a JSON-RPC message"
        )
