"""``DiscoveryServer``: a large catalog served as a search and the tools each connection found,
through the SDK's own client (in memory), on the handshake wire and on 2026-07-28."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client, types
from mcp.client.session import IncomingMessage
from tooldesign.builtin.tool_index import tool_index_registration
from tooldesign.runtime import Runtime, ToolCallMeta
from tooldesign.runtime.mcp.discovery import LOADED_META_KEY, DiscoveryServer
from tooldesign.runtime.providers import LoadingPlan, PlanError

from examples.netops.agent import registrations
from examples.netops.services import Inventory

pytestmark = pytest.mark.anyio

PLAN = LoadingPlan(deferred=["devices", "metrics"])
DEFERRED = {"list_devices", "get_device", "restart_device", "get_time_series"}


def discovery_runtime(plan: LoadingPlan = PLAN, *, search: bool = True) -> Runtime:
    runtime = Runtime(registrations(Inventory()))
    if search:
        runtime.register(tool_index_registration(runtime, plan=plan))
    return runtime


async def names(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def test_a_search_loads_what_it_found_into_this_connection_and_says_so() -> None:
    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    server = DiscoveryServer(discovery_runtime(), plan=PLAN)
    first = await names_of(server)
    assert "search_tools" in first and "get_site" in first and not DEFERRED & first
    async with (
        Client(server.server, mode="legacy", message_handler=on_message) as client,
        Client(server.server, mode="legacy") as other,
    ):
        assert await names(client) == first
        found = await client.call_tool("search_tools", {"query": "restart a device", "limit": 2})
        assert found.is_error is False and found.structured_content is not None
        hits = [t["name"] for t in found.structured_content["tools"]]
        assert hits[0] == "restart_device" and set(hits) <= DEFERRED
        with anyio.fail_after(5):
            while not notices:
                await anyio.sleep(0.01)
        assert await names(client) == first | set(hits)
        assert await names(other) == first  # another connection found nothing
        # The same search again loads nothing new: no second notice.
        await client.call_tool("search_tools", {"query": "restart a device", "limit": 2})
        await anyio.sleep(0.05)
        assert len(notices) == 1
        # What it found runs, as any served tool.
        called = await client.call_tool("get_device", {"device_id": "dev-00000000"})
        assert called.is_error is False


async def names_of(server: DiscoveryServer) -> set[str]:
    return {tool.name for tool in server.tools()}


async def test_on_2026_07_28_the_answer_carries_the_found_definitions() -> None:
    server = DiscoveryServer(discovery_runtime(), plan=PLAN)
    async with Client(server.server) as client:
        assert client.protocol_version not in ("2025-11-25", "2025-06-18")
        found = await client.call_tool("search_tools", {"query": "time series metrics"})
        assert found.meta is not None
        loaded = [types.Tool.model_validate(d) for d in found.meta[LOADED_META_KEY]]
        assert loaded and loaded[0].name == "get_time_series"
        assert loaded[0].input_schema == server.definition("get_time_series").input_schema  # type: ignore[union-attr]
        # A deferred tool runs by name whether or not it was listed (per-request loading).
        called = await client.call_tool("list_devices", {"site_id": "hq"})
        assert called.is_error is False


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_deferred_tool_called_unsearched_still_needs_its_approval(mode: str) -> None:
    """Listing is not access, and not listing is no way around a person: restart_device,
    deferred and never searched for, called by name, still waits for its approval (the
    pending approval in _meta when the client cannot be asked, the person's refusal when it
    can), observers see the call, and nothing restarts."""
    from tooldesign.runtime import ApprovalRequested, CallEvent, CallFinished
    from tooldesign.runtime.mcp.control import APPROVAL_META_KEY

    from tests.support.mcp_host import Person

    runtime = discovery_runtime()
    events: list[CallEvent] = []
    runtime.subscribe(events.append)
    server = DiscoveryServer(runtime, plan=PLAN)
    restart = {"device_id": "dev-00000000", "reason": "stuck after update"}
    async with Client(server.server, mode=mode) as client:
        assert "restart_device" not in await names(client)
        waiting = await client.call_tool("restart_device", restart)
    assert waiting.is_error is True and waiting.meta is not None
    assert APPROVAL_META_KEY in waiting.meta
    person = Person("decline")
    async with Client(server.server, mode=mode, elicitation_callback=person) as client:
        declined = await client.call_tool("restart_device", restart)
    assert declined.is_error is True and len(person.asked) == 1
    assert "declined" in declined.content[0].text  # type: ignore[union-attr]

    def seen() -> tuple[list[ApprovalRequested], list[CallFinished]]:
        asked = [e for e in events if isinstance(e, ApprovalRequested)]
        done = [e for e in events if isinstance(e, CallFinished) and e.name == "restart_device"]
        return asked, done

    with anyio.fail_after(5):  # events reach subscribers after the answer
        while len(seen()[0]) < 2 or len(seen()[1]) < 2:
            await anyio.sleep(0.01)
    asked, finished = seen()
    assert all(e.request.tool == "restart_device" for e in asked)
    assert not any(e.ok for e in finished)


async def test_a_plan_naming_no_tool_or_a_runtime_without_search_is_refused() -> None:
    with pytest.raises(PlanError, match="'nothing'"):
        DiscoveryServer(discovery_runtime(), plan=LoadingPlan(deferred=["nothing"]))
    with pytest.raises(PlanError, match="search_tools"):
        DiscoveryServer(discovery_runtime(search=False), plan=PLAN)


@pytest.mark.slow
async def test_over_http_each_session_gets_its_own_list_and_notice() -> None:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from tests.runtime.mcp.test_server import serving

    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    def connect(url: str, **options: object) -> Client:
        transport = streamable_http_client(url, http_client=create_mcp_http_client())
        return Client(transport, **options)  # type: ignore[arg-type]

    server = DiscoveryServer(discovery_runtime(), plan=PLAN)
    first = await names_of(server)
    async with (
        serving(server.streamable_http_app()) as url,
        connect(url, message_handler=on_message) as alice,
        connect(url) as bob,
    ):
        # A tool injects session_id: a stateful app offers the handshake wire, with sessions.
        assert alice.protocol_version == bob.protocol_version == "2025-11-25"
        found = await alice.call_tool("search_tools", {"query": "restart a device"})
        assert found.structured_content is not None
        hits = {t["name"] for t in found.structured_content["tools"]}
        assert "restart_device" in hits
        with anyio.fail_after(10):
            while not notices:
                await anyio.sleep(0.02)
        assert await names(alice) == first | hits
        assert await names(bob) == first


@pytest.mark.slow
async def test_over_stateless_http_a_search_loads_per_request_and_another_request_calls() -> None:
    # 2026-07-28 over stateless streamable HTTP: no session, no connection from one request to
    # the next, no list_changed. The search's answer carries what it found (its definitions in
    # _meta), and a later request, from another client, calls a found tool by name.
    import dataclasses

    from tooldesign.runtime.mcp import McpCallContext

    from tests.runtime.mcp.test_server import http_server

    def from_the_request(context: McpCallContext) -> ToolCallMeta:
        # Stateless apps have no session: the application names the conversation (here its
        # _meta), as a deployment would from its own headers or token.
        conversation = context.request_meta.get("conversation")
        return dataclasses.replace(context.meta, session_id=conversation)

    server = DiscoveryServer(discovery_runtime(), plan=PLAN, meta_for=from_the_request)
    first = await names_of(server)
    async with http_server(server, stateless=True) as url:
        async with Client(url) as searcher:
            assert searcher.protocol_version == "2026-07-28"
            assert await names(searcher) == first  # deferred tools are not listed
            found = await searcher.call_tool("search_tools", {"query": "restart a device"})
            assert found.is_error is False and found.meta is not None
            assert found.structured_content is not None
            hits = [t["name"] for t in found.structured_content["tools"]]
            assert hits[0] == "restart_device" and "get_device" in hits
            assert not set(hits) & first  # all deferred
            loaded = [types.Tool.model_validate(d) for d in found.meta[LOADED_META_KEY]]
            assert [tool.name for tool in loaded] == hits
            for tool in loaded:  # the definitions tools/list would give, whole
                assert tool == server.definition(tool.name)
            # Stateless: nothing was remembered, the list is the eager one still.
            assert await names(searcher) == first
        async with Client(url) as caller:
            assert caller.protocol_version == "2026-07-28"
            device = await caller.call_tool("get_device", {"device_id": "dev-00000000"})
            assert device.is_error is False, device.content
            arguments = {"device_id": "dev-00000000", "reason": "Stuck after an update"}
            restart = await caller.call_tool(
                "restart_device", arguments, meta={"conversation": "conv-1"}
            )
            # It ran through the runtime's own checks: this approval-gated tool waits for a
            # person (it is not refused as unknown or unlisted), as it would had it been listed.
            [block] = restart.content
            assert isinstance(block, types.TextContent)
            assert "needs a person's approval before it runs" in block.text
