"""Per-caller catalogs over MCP: a verified token's scopes decide what ``tools/list`` shows, and
listing never grants — a hidden tool called by name is refused by the pipeline, audited with
who asked."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.server.auth.provider import AccessToken
from tooldesign.runtime import JsonLinesAudit, Principal, Runtime, verify_audit
from tooldesign.runtime.mcp import BearerTokens, mcp_server
from tooldesign.runtime.mcp.callers import principal_of

from examples.netops import mcp_server as netops
from examples.netops.agent import registrations
from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from tests.runtime.mcp.test_http import ALICE, MALLORY, RESTART, Restarts, client, http_app
from tests.support.netops import approve_all

pytestmark = pytest.mark.anyio

SCOPED = {"alice": ["devices:write"]}


@pytest.mark.slow  # serves over HTTP
async def test_a_caller_is_listed_only_what_its_scopes_allow_and_a_call_is_checked_again(
    tmp_path: Path,
) -> None:
    restarts = Restarts()
    trail = tmp_path / "audit.jsonl"
    runtime = netops.runtime(audit=JsonLinesAudit(trail))
    runtime.approver = approve_all  # restarts need approval (Confirm); access is the subject here
    runtime.unregister("assistant", "devices")
    runtime.register(
        devices.new_registration(
            service=DeviceService(Inventory()), handlers={"restart_device": restarts}
        )
    )
    server = mcp_server(runtime)
    tokens = BearerTokens({ALICE: "alice", MALLORY: "mallory"}, scopes=SCOPED)
    async with http_app(server, token_verifier=tokens) as live:
        async with client(live.url, ALICE) as alice:
            alice_sees = {tool.name for tool in (await alice.list_tools()).tools}
            allowed = await alice.call_tool("restart_device", RESTART)
        async with client(live.url, MALLORY) as mallory:
            mallory_sees = {tool.name for tool in (await mallory.list_tools()).tools}
            hidden = await mallory.call_tool("restart_device", RESTART)  # by name, unlisted
            plain = await mallory.call_tool("get_site", {"site_id": "hq"})

    assert "restart_device" in alice_sees and "restart_device" not in mallory_sees
    assert alice_sees - mallory_sees == {"restart_device"}
    assert allowed.is_error is False and plain.is_error is False
    assert hidden.is_error is True
    text = hidden.content[0].text  # type: ignore[union-attr]
    assert "do not grant the scope 'devices:write'" in text
    assert restarts.done == ["dev-00000000"]  # alice's call only
    verified = verify_audit(trail)
    assert verified.ok and verified.records == 3
    records = [line for line in trail.read_text().splitlines()]
    assert '"subject":"alice"' in records[0] and '"outcome":"ok"' in records[0]
    assert '"subject":"mallory"' in records[1] and '"outcome":"forbidden"' in records[1]


async def test_without_authentication_every_tool_is_listed() -> None:
    server = mcp_server(netops.runtime())
    async with Client(server.server) as anonymous:  # in memory: no token, no principal
        names = {tool.name for tool in (await anonymous.list_tools()).tools}
    assert "restart_device" in names


async def test_a_runtime_requiring_a_principal_lists_nothing_to_a_caller_without_one() -> None:
    runtime = Runtime(registrations(Inventory()), require_principal=True)
    async with Client(mcp_server(runtime).server) as anonymous:
        listed = (await anonymous.list_tools()).tools
        refused = await anonymous.call_tool("get_site", {"site_id": "hq"})
    assert listed == [] and refused.is_error is True


def test_a_token_is_the_principal_it_names() -> None:
    issued = AccessToken(
        token="t", client_id="console", scopes=["devices:write", "a"], subject="user-7"
    )
    assert principal_of(issued) == Principal.of("user-7", ["a", "devices:write"], "console")
    client_only = AccessToken(token="t", client_id="ci-bot", scopes=[])
    assert principal_of(client_only) == Principal.of("ci-bot", [], "ci-bot")
    assert principal_of(None) is None


def test_bearer_tokens_grant_each_holder_its_scopes() -> None:
    tokens = BearerTokens({ALICE: "alice", MALLORY: "mallory"}, scopes=SCOPED)
    alice = anyio.run(tokens.verify_token, ALICE)
    mallory = anyio.run(tokens.verify_token, MALLORY)
    assert alice is not None and alice.scopes == ["devices:write"]
    assert mallory is not None and mallory.scopes == []


@pytest.mark.parametrize(
    ("scopes", "error", "says"),
    [
        ({"bob": ["x"]}, ValueError, "names 'bob', which holds no token"),
        ({"alice": "devices:write"}, TypeError, "a list of scopes, not one string"),
        ({"alice": ["a b"]}, ValueError, "the scopes of 'alice': scope 'a b' is not an OAuth"),
        ({"alice": [""]}, ValueError, "a scope cannot be empty"),
    ],
)
def test_bearer_token_scopes_are_checked(
    scopes: dict[str, object], error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        BearerTokens({ALICE: "alice"}, scopes=scopes)  # type: ignore[arg-type]
