"""The HTTP MCP app's security: authentication, Host and Origin checks, session limits, and
error answers that say nothing of the server's internals.

A real uvicorn server each time (``tests.runtime.mcp.test_server.serving``), the SDK's client for what a
user's client does, and raw HTTP requests for what an attacker sends.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from tooldesign.runtime import Runtime, ToolCallMeta
from tooldesign.runtime.mcp import (
    BearerTokens,
    McpCallContext,
    SessionLimits,
    ToolServer,
    mcp_server,
)
from tooldesign.runtime.mcp.access import HostsAndOrigins

from examples.netops import mcp_server as netops
from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from tests.runtime.mcp.test_server import serving
from tests.support.netops import approve_all

pytestmark = pytest.mark.anyio

ALICE = "alice-token-0123456789abcdef"
MALLORY = "mallory-token-0123456789abcdef"
RESTART = {"device_id": "dev-00000000", "reason": "stuck after update"}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Restarts:
    """A restart_device handler that records every restart; ``hold`` makes calls wait."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.hold = threading.Event()
        self.hold.set()

    def __call__(
        self, args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        self.hold.wait(10)
        self.done.append(args.device_id)
        return device_types.RestartDeviceResult(accepted=True, job_id=f"restart-{args.device_id}")


def served(restarts: Restarts, **options: Any) -> ToolServer:
    runtime: Runtime = netops.runtime()
    runtime.approver = approve_all  # restarts need approval (Confirm); access is the subject here
    runtime.unregister("assistant", "devices")
    runtime.register(
        devices.new_registration(
            service=DeviceService(Inventory()), handlers={"restart_device": restarts}
        )
    )
    return mcp_server(runtime, **options)


def client(url: str, token: str | None = None, **headers: str) -> Client:
    """The SDK's client, as a user connects it (with a bearer token, when given)."""
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    http = create_mcp_http_client(headers=headers)
    return Client(streamable_http_client(url, http_client=http))


def message(method: str, params: dict[str, Any] | None = None, id: int | None = 1) -> str:
    sent: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if id is not None:
        sent["id"] = id
    return json.dumps(sent)


INITIALIZE = message(
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
)


async def open_session(http: httpx2.AsyncClient, url: str, **headers: str) -> httpx2.Response:
    """A raw ``initialize``: what a flood of session openings sends."""
    return await http.post(url, content=INITIALIZE, headers={**ACCEPT, **headers})


def error_of(response: httpx2.Response) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


@asynccontextmanager
async def raw_http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(timeout=10) as http:
        yield http


class Served:
    """A ToolServer's HTTP app, served: its URL and the sessions it holds."""

    def __init__(self, app: Any, url: str) -> None:
        self.app = app
        self.url = url

    @property
    def sessions(self) -> Any:
        return self.app.state.mcp_sessions


@asynccontextmanager
async def http_app(server: ToolServer, **options: Any) -> AsyncIterator[Served]:
    app = server.streamable_http_app(**options)
    async with serving(app) as url:
        yield Served(app, url)


# ── authentication ────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
async def test_unauthenticated_requests_get_401_and_never_reach_a_tool() -> None:
    restarts = Restarts()
    contexts: list[McpCallContext] = []

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        contexts.append(context)
        token = context.access_token
        # The authenticated identity is the application's user id, never the model's.
        user = {"user_id": token.subject} if token is not None and token.subject else {}
        return dataclasses.replace(context.meta, labels=user)

    server = served(restarts, meta_for=meta_for)
    tokens = BearerTokens({ALICE: "alice"}, scopes={"alice": ["devices:write"]})
    async with http_app(server, token_verifier=tokens) as live, raw_http() as http:
        url = live.url
        call = message("tools/call", {"name": "restart_device", "arguments": RESTART})
        for headers in ({}, {"Authorization": f"Bearer {MALLORY}"}, {"Authorization": ALICE}):
            for body in (INITIALIZE, call):
                answer = await http.post(url, content=body, headers={**ACCEPT, **headers})
                assert answer.status_code == 401
                assert answer.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
        with pytest.raises(Exception):  # noqa: B017 (the SDK's client, without the token)
            async with client(url) as anonymous:
                await anonymous.call_tool("restart_device", RESTART)
        assert restarts.done == [] and contexts == []

        async with client(url, ALICE) as alice:
            result = await alice.call_tool("restart_device", RESTART)
    assert result.is_error is False
    assert restarts.done == ["dev-00000000"]
    [context] = contexts
    assert context.access_token is not None
    assert (context.access_token.client_id, context.access_token.subject) == ("alice", "alice")


def test_bearer_tokens_are_long_enough_and_compared_whole() -> None:
    with pytest.raises(ValueError, match="shorter than 16 characters"):
        BearerTokens("short")
    with pytest.raises(ValueError, match="at least one token"):
        BearerTokens({})
    tokens = BearerTokens({ALICE: "alice", MALLORY: "mallory"})

    def holder(token: str) -> str | None:
        verified = anyio.run(tokens.verify_token, token)
        return verified.client_id if verified is not None else None

    assert holder(ALICE) == "alice" and holder(MALLORY) == "mallory"
    assert holder(ALICE[:-1]) is None and holder(ALICE + "x") is None and holder("") is None
    assert tokens.identities == ("alice", "mallory")


class IssuedTokens:
    """A token verifier for an authorization server elsewhere: what introspection would say."""

    def __init__(self, resource: str) -> None:
        self.tokens = {
            "good-token": AccessToken(
                token="good-token",
                client_id="app",
                scopes=["tools", "devices:write"],  # restart_device needs it (Scopes)
                resource=resource,
            ),
            "no-scope": AccessToken(
                token="no-scope", client_id="app", scopes=[], resource=resource
            ),
            "elsewhere": AccessToken(
                token="elsewhere",
                client_id="app",
                scopes=["tools"],
                resource="https://other.example.com/mcp",
            ),
        }

    async def verify_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)


@pytest.mark.slow
async def test_an_oauth_resource_server_as_the_sdk_supports_it() -> None:
    restarts = Restarts()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    resource = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    auth = AuthSettings(
        issuer_url="https://auth.example.com",
        resource_server_url=resource,
        required_scopes=["tools"],
        validate_token_resource=True,
    )
    app = served(restarts).streamable_http_app(token_verifier=IssuedTokens(resource), auth=auth)
    async with serving(app, listener) as url, raw_http() as http:
        metadata = await http.get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
        assert metadata.status_code == 200
        assert metadata.json()["authorization_servers"] == ["https://auth.example.com"]
        refused = await open_session(http, url)
        assert refused.status_code == 401
        assert f'resource_metadata="{metadata.url}"' in refused.headers["www-authenticate"]
        scopeless = await open_session(http, url, Authorization="Bearer no-scope")
        assert scopeless.status_code == 403
        assert scopeless.json()["error"] == "insufficient_scope"
        other = await open_session(http, url, Authorization="Bearer elsewhere")
        assert other.status_code == 401  # issued for another resource
        async with client(url, "good-token") as app_client:
            result = await app_client.call_tool("restart_device", RESTART)
    assert result.is_error is False and restarts.done == ["dev-00000000"]


# ── Host and Origin ───────────────────────────────────────────────────────────────────────


@pytest.mark.slow
async def test_origin_and_host_are_checked_on_every_host() -> None:
    restarts = Restarts()
    server = served(restarts)
    # Listening on every interface, where the SDK alone turns its checks off.
    async with http_app(server, host="0.0.0.0") as live, raw_http() as http:
        url = live.url
        opened = await open_session(http, url)
        assert opened.status_code == 200
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        call = message("tools/call", {"name": "restart_device", "arguments": RESTART}, id=2)
        evil = await http.post(
            url, content=call, headers={**ACCEPT, **session, "Origin": "http://evil.example"}
        )
        assert evil.status_code == 403
        assert error_of(evil)["message"] == "Origin not allowed"
        rebound = await http.post(
            url, content=call, headers={**ACCEPT, **session, "Host": "evil.example:8000"}
        )
        assert rebound.status_code == 421
        assert error_of(rebound)["message"] == "Host not allowed"
        assert restarts.done == []
        # A page served from this machine, and a client that is not a browser, get through.
        async with client(url, Origin=url.split("/mcp")[0]) as local:
            assert (await local.call_tool("restart_device", RESTART)).is_error is False
    assert restarts.done == ["dev-00000000"]


@pytest.mark.slow
async def test_allowed_hosts_and_origins_are_added_to_the_loopback_ones() -> None:
    restarts = Restarts()
    server = served(restarts)
    options = {"allowed_hosts": ["mcp.example.com"], "allowed_origins": ["https://app.example.com"]}
    async with http_app(server, **options) as live, raw_http() as http:
        url = live.url
        by_name = await open_session(
            http, url, Host="mcp.example.com", Origin="https://app.example.com"
        )
        assert by_name.status_code == 200
        other = await open_session(http, url, Host="mcp.example.com", Origin="https://example.com")
        assert other.status_code == 403


def test_host_and_origin_patterns() -> None:
    anywhere = HostsAndOrigins.for_host("0.0.0.0")
    assert anywhere.hosts == ("localhost", "127.0.0.1", "[::1]")
    assert HostsAndOrigins.for_host("10.1.2.3").hosts[-1] == "10.1.2.3"
    assert HostsAndOrigins.for_host("::1").hosts == ("localhost", "127.0.0.1", "[::1]")
    for allowed in ("localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST:1"):
        assert anywhere.host_allowed(allowed), allowed
    for refused in ("evil.example", "localhost.evil.example:8000", "evil.localhost", None, ""):
        assert not anywhere.host_allowed(refused), refused
    for allowed_origin in ("http://localhost:5173", "https://127.0.0.1", "http://[::1]:1", None):
        assert anywhere.origin_allowed(allowed_origin), allowed_origin
    for refused_origin in ("null", "http://evil.example", "http://localhost.evil.example", "x"):
        assert not anywhere.origin_allowed(refused_origin), refused_origin

    given = HostsAndOrigins.for_host(
        "0.0.0.0",
        allowed_hosts=["MCP.example.com:8443", "tools.example.com"],
        allowed_origins=["https://app.example.com", "http://dev.example.com:*"],
    )
    assert given.host_allowed("mcp.example.com:8443") and not given.host_allowed("mcp.example.com")
    assert given.host_allowed("tools.example.com:1234")
    assert given.origin_allowed("https://app.example.com")
    assert not given.origin_allowed("https://app.example.com:444")
    assert not given.origin_allowed("http://app.example.com")
    assert given.origin_allowed("http://dev.example.com:3000")
    everyone = HostsAndOrigins.for_host("0.0.0.0", allowed_hosts=["*"], allowed_origins=["*"])
    assert everyone.host_allowed("anything") and everyone.origin_allowed("null")
    with pytest.raises(ValueError, match="an allowed host is a name"):
        HostsAndOrigins.for_host("0.0.0.0", allowed_hosts=["https://mcp.example.com"])
    with pytest.raises(ValueError, match="an allowed origin is scheme://name"):
        HostsAndOrigins.for_host("0.0.0.0", allowed_origins=["app.example.com"])


# ── error answers ─────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
@pytest.mark.parametrize("stateless", [False, True])
async def test_malformed_messages_get_short_stable_errors(stateless: bool) -> None:
    server = served(Restarts())
    async with http_app(server, stateless=stateless) as live, raw_http() as http:
        url = live.url
        not_json = await http.post(url, content=b"{nope", headers=ACCEPT)
        not_a_message = await http.post(
            url, content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": 5}), headers=ACCEPT
        )
        batch = await http.post(url, content=json.dumps([1, 2]), headers=ACCEPT)
    assert not_json.status_code == 400
    assert error_of(not_json) == {
        "code": types.PARSE_ERROR,
        "message": "Parse error: the body is not JSON",
    }
    for answer in (not_a_message, batch):
        assert answer.status_code == 400
        assert error_of(answer) == {
            "code": types.INVALID_REQUEST,
            "message": "Invalid request: the body is not a JSON-RPC message",
        }
        assert "validation" not in answer.text.lower() and "pydantic" not in answer.text


async def test_a_handler_s_unexpected_failure_says_nothing_of_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refuse(context: McpCallContext) -> ToolCallMeta:
        raise MCPError(types.INVALID_REQUEST, "not for you")

    server = served(Restarts(), meta_for=refuse)

    async def failing(ctx: Any, params: Any) -> types.ListToolsResult:
        raise RuntimeError("the database password is hunter2")

    server.server.add_request_handler("tools/list", types.PaginatedRequestParams, failing)
    async with Client(server.server) as connected:
        with pytest.raises(MCPError) as failed:
            await connected.list_tools()
        with pytest.raises(MCPError) as refused:
            await connected.call_tool("get_site", {"site_id": "hq"})
    assert (failed.value.code, failed.value.message) == (types.INTERNAL_ERROR, "Internal error")
    assert "hunter2" not in str(failed.value.error)
    assert "hunter2" in caplog.text  # the operator sees it, in the log
    assert refused.value.message == "not for you"


# ── versions ──────────────────────────────────────────────────────────────────────────────


async def discover(http: httpx2.AsyncClient, url: str, version: str) -> httpx2.Response:
    """A 2026-07-28 ``server/discover`` asking for ``version``, header and envelope agreeing."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    headers = {**ACCEPT, "MCP-Protocol-Version": version, "Mcp-Method": "server/discover"}
    body = message("server/discover", {"_meta": meta}, id=7)
    return await http.post(url, content=body, headers=headers)


@pytest.mark.slow
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
async def test_an_unsupported_version_is_told_the_versions_discover_offers(
    stateless: bool,
) -> None:
    # The worked example's list_devices injects session_id: a stateful app offers the handshake
    # versions, where sessions exist; a stateless one the 2026-07-28 wire. A client reads one
    # list from discover and from the error, and negotiates from either.
    async with http_app(served(Restarts()), stateless=stateless) as app, raw_http() as http:
        offered = (await discover(http, app.url, "2026-07-28")).json()["result"]
        refused = await discover(http, app.url, "v999.0.0")
    assert refused.status_code == 400
    error = error_of(refused)
    assert error["code"] == types.UNSUPPORTED_PROTOCOL_VERSION
    assert error["data"] == {"supported": offered["supportedVersions"], "requested": "v999.0.0"}
    assert refused.json()["id"] == 7
    assert ("2026-07-28" in offered["supportedVersions"]) is stateless


# ── sessions ──────────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
async def test_a_flood_of_sessions_neither_grows_without_bound_nor_locks_clients_out() -> None:
    restarts = Restarts()
    server = served(restarts)
    limits = SessionLimits(max_sessions=20)
    async with http_app(server, sessions=limits) as live, raw_http() as http:
        url = live.url
        first = await open_session(http, url)
        flood = [first] + [await open_session(http, url) for _ in range(199)]
        assert {answer.status_code for answer in flood} == {200}
        table = live.sessions
        assert len(table) <= 20
        # The longest-idle sessions made room: the first one is gone.
        gone = await http.post(
            url,
            content=message("tools/list", id=2),
            headers={**ACCEPT, "mcp-session-id": first.headers["mcp-session-id"]},
        )
        assert gone.status_code == 404
        async with client(url) as newcomer:
            assert (await newcomer.call_tool("restart_device", RESTART)).is_error is False
        assert len(table) <= 20
    assert restarts.done == ["dev-00000000"]


@pytest.mark.slow
async def test_unauthenticated_floods_open_no_session_at_all() -> None:
    server = served(Restarts())
    tokens = BearerTokens({ALICE: "alice"})
    async with http_app(server, token_verifier=tokens) as live, raw_http() as http:
        url = live.url
        answers = [await open_session(http, url) for _ in range(100)]
        assert {answer.status_code for answer in answers} == {401}
        assert len(live.sessions) == 0
        async with client(url, ALICE) as alice:
            assert (await alice.call_tool("get_site", {"site_id": "hq"})).is_error is False


@pytest.mark.slow
async def test_one_client_cannot_take_every_session() -> None:
    restarts = Restarts()
    server = served(restarts)
    # Both may restart devices (Scopes): mallory's calls hold her sessions busy.
    everyone = {"alice": ["devices:write"], "mallory": ["devices:write"]}
    tokens = BearerTokens({ALICE: "alice", MALLORY: "mallory"}, scopes=everyone)
    limits = SessionLimits(max_sessions=10, per_client=3)
    mallory = {"Authorization": f"Bearer {MALLORY}"}
    async with (
        http_app(server, token_verifier=tokens, sessions=limits) as live,
        raw_http() as http,
    ):
        url = live.url
        flood = [await open_session(http, url, **mallory) for _ in range(30)]
        assert {answer.status_code for answer in flood} == {200}
        table = live.sessions
        assert sum(1 for s in table.sessions.values() if s.client[0] == "mallory") == 3
        async with client(url, ALICE) as alice:
            assert (await alice.call_tool("get_site", {"site_id": "hq"})).is_error is False

            # Mallory's sessions all busy (a call in flight each): the next one is refused,
            # nothing of hers is ended, and alice still gets in.
            restarts.hold.clear()
            held = [answer.headers["mcp-session-id"] for answer in flood[-3:]]
            async with anyio.create_task_group() as calls:
                for number, session_id in enumerate(held):
                    calls.start_soon(busy_call, http, url, session_id, mallory, number)
                await wait_until(lambda: busy(table, "mallory") == 3)
                refused = await open_session(http, url, **mallory)
                assert refused.status_code == 503
                assert error_of(refused)["message"] == "Too many open sessions for this client"
                assert refused.headers["retry-after"] == "5"
                async with client(url, ALICE) as again:
                    assert (await again.call_tool("get_site", {"site_id": "hq"})).is_error is False
                restarts.hold.set()
    assert len(restarts.done) == 3


@pytest.mark.slow
async def test_a_full_server_ends_the_idlest_session_of_the_client_holding_most() -> None:
    server = served(Restarts())
    tokens = BearerTokens({ALICE: "alice", MALLORY: "mallory"})
    limits = SessionLimits(max_sessions=4, per_client=4)
    alice, mallory = ({"Authorization": f"Bearer {t}"} for t in (ALICE, MALLORY))
    async with (
        http_app(server, token_verifier=tokens, sessions=limits) as live,
        raw_http() as http,
    ):
        url = live.url
        mine = (await open_session(http, url, **alice)).headers["mcp-session-id"]
        for _ in range(3):
            await open_session(http, url, **mallory)
        # Full: a newcomer ends one of mallory's (she holds most), never alice's older one.
        await open_session(http, url, **alice)
        table = live.sessions
        assert mine in table.sessions
        assert sorted(s.client[0] for s in table.sessions.values()) == [
            "alice",
            "alice",
            "mallory",
            "mallory",
        ]


@pytest.mark.slow
async def test_idle_sessions_end() -> None:
    server = served(Restarts())
    async with (
        http_app(server, sessions=SessionLimits(idle_timeout=0.3)) as live,
        raw_http() as http,
    ):
        url = live.url
        opened = await open_session(http, url)
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        await anyio.sleep(1.0)
        later = await http.post(
            url, content=message("tools/list", id=2), headers={**ACCEPT, **session}
        )
        assert later.status_code == 404
        await wait_until(lambda: len(live.sessions) == 0)  # as the request finishes


def test_session_limits_are_checked() -> None:
    for bad in ({"max_sessions": 0}, {"per_client": 0}, {"idle_timeout": 0}):
        with pytest.raises(ValueError):
            SessionLimits(**bad)
    assert SessionLimits().describe() == (
        "at most 1000 (100 per authenticated client); idle ones end after 600 s"
    )


async def busy_call(
    http: httpx2.AsyncClient, url: str, session_id: str, headers: dict[str, str], number: int
) -> None:
    call = message("tools/call", {"name": "restart_device", "arguments": RESTART}, id=10 + number)
    await http.post(url, content=call, headers={**ACCEPT, **headers, "mcp-session-id": session_id})


def busy(table: Any, client: str) -> int:
    return sum(1 for s in table.sessions.values() if s.client[0] == client and s.calls)


async def wait_until(condition: Any, seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.01)
