"""The MCP server with the SDK's real client: in memory (both protocol eras) and over HTTP.

``mode="auto"`` negotiates the 2026-07-28 protocol (change events over
``subscriptions/listen``) in memory and on a stateless HTTP app, the handshake on a stateful
one; ``mode="legacy"`` the initialize handshake (change notifications on the connection). The stdio transport is tested against a subprocess in ``test_mcp_stdio.py``.
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
import pytest
import uvicorn
from mcp import Client, types
from mcp.client.session import IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.mcp import McpCallContext, ToolServer, mcp_server, streamable_http_app
from tooldesign.runtime.providers import export_tools

from examples.netops.mcp_server import runtime as netops_runtime
from examples.netops.services import (
    DeviceService,
    DocumentService,
    Inventory,
    Profile,
    ProfileService,
)
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.profiles import executor as profiles
from tests.support.netops import approve_all, example_runtime, not_found

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


def wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


class RecordingProfiles(ProfileService):
    """Profiles that remember which session each call was for."""

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[str] = []

    def get_profile(self, session_id: str) -> Profile:
        self.sessions.append(session_id)
        return super().get_profile(session_id)


def with_profiles(service: ProfileService) -> Runtime:
    """The example's runtime, its profiles served by ``service``."""
    runtime = netops_runtime()
    runtime.unregister("assistant", "profiles")
    runtime.register(profiles.new_registration(service=service))
    return runtime


# ── tools/list ────────────────────────────────────────────────────────────────────────────


async def test_list_is_the_mcp_export_of_the_registered_tools(mode: str) -> None:
    runtime = netops_runtime()
    server = mcp_server(runtime)
    async with Client(server.server, mode=mode) as client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        listed = (await client.list_tools()).tools
    exported = export_tools(runtime.specs(), "mcp")
    assert [wire(tool) for tool in listed] == [
        wire(types.Tool.model_validate(tool)) for tool in exported
    ]
    assert [tool.name for tool in listed] == [spec.name for spec in runtime.specs()]
    for tool, spec in zip(listed, runtime.specs(), strict=True):
        assert tool.input_schema == exported[runtime.specs().index(spec)]["inputSchema"]
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        for hidden in spec.injected:  # injected fields are the runtime's to fill
            assert hidden not in tool.input_schema.get("properties", {})
            assert hidden not in tool.input_schema.get("required", [])
    devices = next(tool for tool in listed if tool.name == "list_devices")
    assert devices.title == "List devices"
    assert devices.annotations is not None and devices.annotations.read_only_hint is True


# ── tools/call ────────────────────────────────────────────────────────────────────────────


async def test_a_result_is_structured_content_and_the_same_json_as_text(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        result = await client.call_tool("list_devices", {"site_id": "hq", "limit": 2})
    assert result.is_error is False
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert result.structured_content == json.loads(block.text)
    data = result.structured_content
    assert [d["site_id"] for d in data["devices"]] == ["hq", "hq"]
    assert (data["returned"], data["total"], data["truncated"]) == (2, 38, True)
    assert data["refinement_hint"].startswith("38 devices match")


async def test_a_non_object_result_is_wrapped_and_valid(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        # The client checks structuredContent against the tool's outputSchema itself.
        result = await client.call_tool("answer_question", {"question": "Why is a device offline?"})
    assert result.is_error is False
    schema = tools["answer_question"].output_schema
    assert schema is not None and schema["type"] == "object"
    [block] = result.content
    assert isinstance(block, types.TextContent)
    direct = await netops_runtime().execute(
        ToolRequest("answer_question", {"question": "Why is a device offline?"})
    )
    assert block.text == direct.for_model()  # what a model reads, as the runtime gives it
    # The object root holds the result's value under one property.
    assert direct.result_json is not None
    answer = json.loads(direct.result_json)
    assert isinstance(answer, str) and answer.startswith("Check power")
    assert result.structured_content == {"result": answer}


async def test_invalid_arguments_are_an_error_result_with_the_retry_hint(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        result = await client.call_tool("list_devices", {"limit": 900, "colour": 1})
    assert result.is_error is True
    assert result.structured_content is None
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text == (
        "Error: The arguments for tool 'list_devices' are invalid:\n"
        "- site_id: required field is missing (expected string) — Site identifier\n"
        "- limit: must be >= 1 and <= 500 (got 900) — Maximum results\n"
        "- colour: unknown field; allowed fields are: limit, site_id, status\n"
        'Example of valid arguments: {"site_id": "hq", "status": "online", "limit": 20}\n'
        "Call 'list_devices' again with corrected arguments.\n"
        'Recovery: correct_call — fix the arguments, then call "list_devices" again.'
    )


async def test_tool_errors_are_error_results_that_leak_nothing(mode: str) -> None:
    def broken(args: device_types.RestartDevicePayload, meta: ToolCallMeta) -> Any:
        raise RuntimeError("database password is hunter2")

    runtime = netops_runtime()
    runtime.approver = approve_all  # restart_device needs approval (Confirm)
    runtime.unregister("assistant", "devices")
    runtime.register(
        devices.new_registration(
            service=DeviceService(Inventory()), handlers={"restart_device": broken}
        )
    )
    async with Client(mcp_server(runtime).server, mode=mode) as client:
        missing = await client.call_tool("get_device", {"device_id": "dev-ffffffff"})
        crashed = await client.call_tool(
            "restart_device", {"device_id": "dev-00000000", "reason": "stuck"}
        )
    assert missing.is_error is True
    assert [wire(b) for b in missing.content] == [
        {
            "type": "text",
            "text": f"Error: {not_found('dev-ffffffff')}\n"
            'Recovery: replan — do not repeat this call to "get_device" now; take another step.',
        }
    ]
    assert crashed.is_error is True
    [block] = crashed.content
    assert isinstance(block, types.TextContent)
    assert "internal error" in block.text and "hunter2" not in block.text


async def test_an_unknown_tool_is_a_json_rpc_error(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        for name in ("reboot_everything", "assistant.devices.list_devices"):
            with pytest.raises(MCPError) as raised:
                await client.call_tool(name, {})
            assert raised.value.code == types.INVALID_PARAMS
            assert raised.value.message == f"Unknown tool: {json.dumps(name)}"
            assert "list_devices" in raised.value.data["available"]


async def test_an_unknown_name_is_echoed_cut_short(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("x" * 100_000, {})
    assert raised.value.message == 'Unknown tool: "' + "x" * 78 + "…"
    assert raised.value.data["tool"] == "x" * 79 + "…"
    assert len(json.dumps(raised.value.error.model_dump())) < 2_000


# The client's models warn when they serialize params they would not have validated.
bypassing_the_client_checks = pytest.mark.filterwarnings(
    "ignore:Pydantic serializer warnings:UserWarning"
)


async def send_call(client: Client, name: Any, arguments: Any) -> types.CallToolResult:
    """A ``tools/call`` as a client that does not check its params would send it."""
    params = types.CallToolRequestParams.model_construct(name=name, arguments=arguments)
    request = types.CallToolRequest.model_construct(method="tools/call", params=params)
    return await client.session.send_request(request, types.CallToolResult)


@bypassing_the_client_checks
async def test_arguments_that_are_not_an_object_get_a_retry_hint(mode: str) -> None:
    observed: list[ToolResult] = []
    server = mcp_server(netops_runtime(), on_result=lambda result, _: observed.append(result))
    async with Client(server.server, mode=mode) as client:
        answers = {
            repr(arguments): await send_call(client, "get_device", arguments)
            for arguments in ([1, 2], 5, '{"device_id": "dev-00000000"}', True)
        }
        after = await client.call_tool("get_device", {"device_id": "dev-00000000"})
    said = {
        "[1, 2]": "got array [1, 2]",
        "5": "got integer 5",
        # JSON text is not the object it spells: MCP arguments are an object.
        """'{"device_id": "dev-00000000"}'""": "got string",
        "True": "got boolean true",
    }
    for key, answer in answers.items():
        assert answer.is_error is True, key
        [block] = answer.content
        assert isinstance(block, types.TextContent)
        # The runtime's words for arguments that are not an object, and what they were.
        assert "\n- arguments: " in block.text and said[key] in block.text, block.text
        assert "Call 'get_device' again with corrected arguments." in block.text
    # They ran through the runtime like any call (observers see them), and the next call is
    # unaffected.
    assert len(observed) == 5 and all(r.retry_hint is not None for r in observed[:4])
    assert after.is_error is False


@bypassing_the_client_checks
async def test_a_name_that_is_not_a_string_is_an_unknown_tool(mode: str) -> None:
    async with Client(mcp_server(netops_runtime()).server, mode=mode) as client:
        # Shown as the JSON it was: visibly not a name.
        for name, shown in ((5, "5"), (["get_device"], '["get_device"]')):
            with pytest.raises(MCPError) as raised:
                await send_call(client, name, {})
            assert raised.value.code == types.INVALID_PARAMS
            assert raised.value.message == f"Unknown tool: {shown}"


async def test_callbacks_that_cannot_be_called_as_the_server_calls_them_are_refused() -> None:
    def one_argument(result: ToolResult) -> None:
        pass

    with pytest.raises(TypeError) as caught:
        mcp_server(netops_runtime(), on_result=one_argument)
    assert str(caught.value).startswith(
        "on_result is called as on_result(result, context) (context: an McpCallContext), but "
    )
    assert "one_argument(result: 'ToolResult')" in str(caught.value)
    with pytest.raises(TypeError, match=r"meta_for is called as meta_for\(context\)"):
        mcp_server(netops_runtime(), meta_for=lambda: ToolCallMeta())
    with pytest.raises(TypeError, match="meta_for must be a function"):
        mcp_server(netops_runtime(), meta_for="app:meta_for")  # type: ignore[arg-type]
    # Anything callable that way is taken: extra arguments with defaults, *args, methods.
    mcp_server(netops_runtime(), on_result=lambda *seen: None)
    mcp_server(netops_runtime(), meta_for=lambda context, table=None: context.meta)


async def test_server_data_reaches_observers_never_the_client(mode: str) -> None:
    observed: list[ToolResult] = []
    server = mcp_server(netops_runtime(), on_result=lambda result, _: observed.append(result))
    arguments = {"device_id": "dev-00000000", "metric": "latency", "window": "1h"}
    async with Client(server.server, mode=mode) as client:
        result = await client.call_tool("get_time_series", arguments)
    assert result.is_error is False
    assert [item.kind for item in observed[0].server_data] == ["atlas.thresholds"]
    sent = json.dumps(wire(result))
    for secret in ("thresholds", "warning", "critical", "series"):
        assert secret not in sent
    assert set(result.structured_content or {}) == {
        "device_id",
        "metric",
        "unit",
        "minimum",
        "maximum",
        "mean",
        "points",
    }


async def test_without_an_observer_no_server_data_is_produced() -> None:
    seen: list[ToolCallMeta] = []

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        seen.append(context.meta)
        return context.meta

    server = mcp_server(netops_runtime(), meta_for=meta_for)
    async with Client(server.server) as client:
        await client.call_tool("get_time_series", {"device_id": "dev-00000000", "metric": "cpu"})
    assert seen[0].server_data == {"atlas.time_series": False, "atlas.thresholds": False}


# ── injected values from the MCP request ─────────────────────────────────────────────────


async def test_session_comes_from_the_connection_and_the_model_cannot_set_it(mode: str) -> None:
    service = RecordingProfiles()
    contexts: list[McpCallContext] = []
    results: list[ToolResult] = []

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        contexts.append(context)
        return context.meta

    server = mcp_server(
        with_profiles(service),
        meta_for=meta_for,
        on_result=lambda result, _: results.append(result),
    )
    async with Client(server.server, mode=mode) as first:
        answer = await first.call_tool("get_profile", {"session_id": "sess-alice"})
        await first.call_tool("get_profile", {})
    async with Client(server.server, mode=mode) as second:
        await second.call_tool("get_profile", {})
    sessions = [c.session_id for c in contexts]
    assert sessions[0] is not None and sessions[0] == sessions[1] != sessions[2]
    assert service.sessions == sessions  # what the tool got: the connection's, never alice's
    assert results[0].telemetry.discarded_injected == ("session_id",)
    assert answer.is_error is True
    assert [wire(b) for b in answer.content] == [
        {
            "type": "text",
            "text": "Error: no profile for this session\n"
            'Recovery: replan — do not repeat this call to "get_profile" now; take another step.',
        }
    ]
    # tool_call_id is the JSON-RPC request id.
    assert [r.tool_call_id for r in results] == [c.request_id for c in contexts]
    assert all(c.request_id for c in contexts)
    assert contexts[0].meta == ToolCallMeta(
        session_id=sessions[0], tool_call_id=contexts[0].request_id
    )


async def test_meta_for_maps_the_request_to_the_application_s_session(mode: str) -> None:
    users = {"alice": "sess-alice", "bob": "sess-bob"}

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        user = context.request_meta.get("example.com/user")
        return dataclasses.replace(context.meta, session_id=users.get(str(user)))

    server = mcp_server(with_profiles(ProfileService()), meta_for=meta_for)
    async with Client(server.server, mode=mode) as client:
        bob = await client.call_tool("get_profile", {}, meta={"example.com/user": "bob"})
        nobody = await client.call_tool("get_profile", {})
    assert bob.is_error is False
    assert (
        bob.structured_content is not None and bob.structured_content["display_name"] == "Bob Net"
    )
    assert nobody.is_error is True
    [block] = nobody.content
    assert isinstance(block, types.TextContent)
    # The model learns the call cannot run here, never the hidden field behind it.
    assert "cannot run in this context" in block.text and "session_id" not in block.text


async def test_meta_for_can_refuse_a_call_and_its_bugs_do_not_leak(mode: str) -> None:
    def meta_for(context: McpCallContext) -> ToolCallMeta:
        if context.tool == "restart_device":
            raise MCPError(-32001, "restarts need an operator login")
        raise KeyError("internal table users_v2")

    async def failing_async(context: McpCallContext) -> ToolCallMeta:
        return meta_for(context)

    for hook in (meta_for, failing_async):
        async with Client(mcp_server(netops_runtime(), meta_for=hook).server, mode=mode) as c:
            with pytest.raises(MCPError) as refused:
                await c.call_tool("restart_device", {"device_id": "dev-00000000", "reason": "x"})
            assert (refused.value.code, refused.value.message) == (
                -32001,
                "restarts need an operator login",
            )
            with pytest.raises(MCPError) as broken:
                await c.call_tool("get_site", {"site_id": "hq"})
            assert broken.value.code == types.INTERNAL_ERROR
            assert "users_v2" not in str(broken.value)


async def test_a_failing_observer_does_not_change_the_result() -> None:
    def observer(result: ToolResult, context: McpCallContext) -> None:
        raise RuntimeError("observer bug")

    async with Client(mcp_server(netops_runtime(), on_result=observer).server) as client:
        result = await client.call_tool("get_site", {"site_id": "hq"})
    assert result.is_error is False and result.structured_content is not None


# ── registrations changing at run time ───────────────────────────────────────────────────


async def wait_for(condition: Any, seconds: float = 5.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.01)


async def test_list_changed_notification_on_handshake_connections() -> None:
    runtime = netops_runtime()
    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    server = mcp_server(runtime)
    async with Client(server.server, mode="legacy", message_handler=on_message) as client:
        # The connection follows changes once the SDK has handled its `initialized`.
        await wait_for(lambda: len(server._listeners) == 1)
        runtime.unregister("assistant", "docs")
        await wait_for(lambda: len(notices) == 1)
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "search_docs" not in names and len(names) == 14
        runtime.register(docs.new_registration(service=DocumentService()))
        await wait_for(lambda: len(notices) == 2)
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names[-2:] == ["search_docs", "answer_question"]
    await wait_for(lambda: len(server._listeners) == 0)  # closed connections stop watching


async def test_an_unregistered_tool_is_unknown_at_once(mode: str) -> None:
    runtime = netops_runtime()
    async with Client(mcp_server(runtime).server, mode=mode) as client:
        assert (await client.call_tool("get_site", {"site_id": "hq"})).is_error is False
        runtime.unregister("assistant", "sites")
        with pytest.raises(MCPError) as raised:
            await client.call_tool("get_site", {"site_id": "hq"})
        assert raised.value.code == types.INVALID_PARAMS


async def test_list_changed_events_on_listen_streams() -> None:
    runtime = netops_runtime()
    async with Client(mcp_server(runtime).server) as client:
        assert client.protocol_version == "2026-07-28"
        async with client.listen(tools_list_changed=True) as subscription:
            runtime.unregister("assistant", "docs")
            with anyio.fail_after(5):
                event = await subscription.__anext__()
            assert type(event).__name__ == "ToolsListChanged"
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert "search_docs" not in names


async def test_a_registration_from_another_thread_reaches_the_client() -> None:
    runtime = netops_runtime()
    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    server = mcp_server(runtime)
    async with Client(server.server, mode="legacy", message_handler=on_message):
        await wait_for(lambda: len(server._listeners) == 1)
        worker = threading.Thread(target=runtime.unregister, args=("assistant", "docs"))
        worker.start()
        worker.join()
        await wait_for(lambda: len(notices) == 1)


# ── streamable HTTP ───────────────────────────────────────────────────────────────────────


@asynccontextmanager
async def http_server(server: ToolServer, **options: Any) -> AsyncIterator[str]:
    """Serve ``server`` with uvicorn on a free port in a thread; yields the MCP URL."""
    async with serving(streamable_http_app(server, **options)) as url:
        yield url


@asynccontextmanager
async def serving(app: Any, listener: socket.socket | None = None) -> AsyncIterator[str]:
    """Serve the ASGI ``app`` with uvicorn in a thread, on ``listener`` or a free port of
    127.0.0.1; yields the MCP URL."""
    if listener is None:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        await wait_for(lambda: uv.started or not thread.is_alive())
        assert uv.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        uv.should_exit = True
        await anyio.to_thread.run_sync(thread.join, 10)
        listener.close()


@pytest.mark.slow
async def test_http_sessions_reach_injected_fields_with_the_default_client() -> None:
    contexts: list[McpCallContext] = []
    service = RecordingProfiles()
    runtime = with_profiles(service)
    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        contexts.append(context)
        return context.meta

    server = mcp_server(runtime, meta_for=meta_for)
    # The SDK's default client negotiates: a stateful app offers the handshake wire, where
    # sessions exist, so the tools that inject session_id work out of the box.
    async with (
        http_server(server) as url,
        Client(url, message_handler=on_message) as client,
    ):
        assert client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        result = await client.call_tool("list_devices", {"site_id": "ber", "limit": 1})
        assert result.is_error is False
        assert result.structured_content is not None
        assert result.structured_content["devices"][0]["site_id"] == "ber"
        profile = await client.call_tool("get_profile", {"session_id": "sess-alice"})
        assert profile.is_error is True  # the HTTP session has no profile; alice's is not used
        await wait_for(lambda: len(server._listeners) == 1)
        runtime.unregister("assistant", "docs")  # from this thread, served on uvicorn's
        await wait_for(lambda: len(notices) == 1)
        assert len((await client.list_tools()).tools) == 14
    assert contexts[0].headers is not None
    assert contexts[0].session_id == contexts[0].headers["mcp-session-id"]
    assert contexts[0].session_id == contexts[1].session_id
    assert service.sessions == [contexts[0].session_id]  # the session, never alice's


@pytest.mark.slow
async def test_a_stateful_app_whose_tools_need_no_session_offers_2026_07_28() -> None:
    server = mcp_server(example_runtime("sites"))
    async with http_server(server) as url, Client(url) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("get_site", {"site_id": "hq"})
    assert result.is_error is False


@pytest.mark.slow
async def test_http_without_sessions_tells_the_operator_what_to_do(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = mcp_server(with_profiles(ProfileService()))
    async with http_server(server, stateless=True) as url, Client(url) as client:
        for _ in range(2):
            answer = await client.call_tool("get_profile", {})
            assert answer.is_error is True
    [block] = answer.content
    assert isinstance(block, types.TextContent)
    assert "cannot run in this context" in block.text and "session_id" not in block.text
    told = [r.getMessage() for r in caplog.records if r.name == "tooldesign.runtime.mcp"]
    assert len(told) == 1  # once per tool, not per call
    assert "tool get_profile needs the injected field(s) session_id" in told[0]
    assert "streamable_http_app(stateless=False)" in told[0] and "meta_for" in told[0]


async def test_with_meta_for_the_operator_is_told_what_it_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def as_given(context: McpCallContext) -> ToolCallMeta:
        return dataclasses.replace(context.meta, session_id=None)

    server = mcp_server(with_profiles(ProfileService()), meta_for=as_given)
    async with Client(server.server) as client:
        assert (await client.call_tool("get_profile", {})).is_error is True
    [told] = [r.getMessage() for r in caplog.records if r.name == "tooldesign.runtime.mcp"]
    assert told.endswith(
        "meta_for (test_with_meta_for_the_operator_is_told_what_it_left_out.<locals>.as_given) "
        "returned no session_id for this call: set session_id in the ToolCallMeta it returns"
    )
    assert "--meta-for" not in told  # it was given


async def test_the_server_s_version_is_the_catalog_s_or_the_one_given(mode: str) -> None:
    from tooldesign.contract.catalog import toolset_version

    runtime = netops_runtime()
    server = mcp_server(runtime)
    async with Client(server.server, mode=mode) as client:
        assert client.server_info is not None
        served = client.server_info.version
    assert served == toolset_version(runtime.specs())
    assert len(served) == 12
    runtime.unregister("assistant", "docs")  # what models see changed: so does the version
    async with Client(server.server, mode=mode) as client:
        assert client.server_info is not None
        assert client.server_info.version not in ("", served)
    async with Client(mcp_server(runtime, version="2.1.0").server, mode=mode) as client:
        assert client.server_info is not None
        assert client.server_info.version == "2.1.0"


@pytest.mark.slow
async def test_a_client_forcing_the_2026_wire_on_a_stateful_app_has_no_session() -> None:
    contexts: list[McpCallContext] = []

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        contexts.append(context)
        return context.meta

    server = mcp_server(netops_runtime(), meta_for=meta_for)
    async with http_server(server) as url, Client(url, mode="2026-07-28") as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool("get_site", {"site_id": "hq"})).is_error is False
        assert (await client.call_tool("get_profile", {})).is_error is True
    assert [c.session_id for c in contexts] == [None, None]


@pytest.mark.slow
async def test_http_2026_calls_and_listen() -> None:
    contexts: list[McpCallContext] = []
    runtime = netops_runtime()

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        contexts.append(context)
        return context.meta

    server = mcp_server(runtime, meta_for=meta_for)
    async with http_server(server, stateless=True) as url, Client(url) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("get_site", {"site_id": "hq"})
        assert result.is_error is False
        assert result.structured_content is not None
        assert result.structured_content["name"] == "Headquarters"
        invalid = await client.call_tool("get_site", {})
        assert invalid.is_error is True
        # This wire has no session: a tool that injects one says it cannot run here.
        sessionless = await client.call_tool("get_profile", {})
        assert sessionless.is_error is True
        [block] = sessionless.content
        assert isinstance(block, types.TextContent)
        assert "cannot run in this context" in block.text
        with pytest.raises(MCPError):
            await client.call_tool("no_such_tool", {})
        async with client.listen(tools_list_changed=True) as subscription:
            runtime.unregister("assistant", "docs")  # from this thread, served on uvicorn's
            with anyio.fail_after(5):
                await subscription.__anext__()
    assert contexts[0].session_id is None and contexts[0].http_request is not None


def test_a_server_of_several_services_gets_a_name_every_mcp_host_takes() -> None:
    from types import SimpleNamespace

    from tooldesign.runtime.mcp import default_server_name
    from tooldesign.runtime.providers.targets import check_targets

    infos = [SimpleNamespace(service=name) for name in ("billing", "netops", "builtin", "netops")]
    runtime = SimpleNamespace(toolsets=lambda: infos)

    name = default_server_name(runtime)  # type: ignore[arg-type]

    assert name == "billing-netops"
    assert check_targets(name, [], ["claude-code", "cursor", "claude-desktop"]) == []
