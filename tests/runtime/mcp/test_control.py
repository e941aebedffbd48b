"""Control over what tools do, served over MCP to the SDK's own client: approval through
elicitation (mid-call on the handshake protocol, ``input_required`` round trips on
2026-07-28), progress notifications, and W3C trace context from ``_meta`` and HTTP headers.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tooldesign.runtime import (
    ApprovalRequest,
    ApprovalRequested,
    CallEvent,
    Runtime,
    ToolCallMeta,
    ToolResult,
    Tracing,
)
from tooldesign.runtime.mcp import McpCallContext, mcp_server, streamable_http_app
from tooldesign.runtime.mcp.control import APPROVAL_META_KEY

from tests.runtime.mcp.test_server import serving
from tests.support.mcp_host import Person
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]  # 2026-07-28 in memory, and the initialize handshake
RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


def served(restarts: Restarts, **options: Any) -> Runtime:
    return example_runtime(
        "devices", "metrics", "sites", device_handlers={"restart_device": restarts}, **options
    )


# ── approval through elicitation ─────────────────────────────────────────────────────────


async def test_an_approved_call_runs_after_the_person_is_asked(mode: str) -> None:
    restarts, person = Restarts(), Person("accept")
    seen: list[ToolResult] = []
    server = mcp_server(served(restarts), on_result=lambda result, context: seen.append(result))
    async with Client(server.server, mode=mode, elicitation_callback=person) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is False and restarts.ran == ["dev-0a1b2c3d"]
    assert result.structured_content == {"accepted": True, "job_id": "restart-dev-0a1b2c3d"}
    [question] = person.asked
    assert isinstance(question, types.ElicitRequestFormParams)
    assert question.message.startswith(
        "Restart dev-0a1b2c3d? It drops traffic for about a minute. Reason: stuck after update"
    )
    assert question.requested_schema["required"] == ["approve"]
    # The audit trail reaches on_result: who decided (the client), and when.
    [full] = seen
    assert full.telemetry.approval is not None and full.telemetry.approval.granted
    assert full.telemetry.approval.by is not None and full.telemetry.approval.by.startswith(
        "mcp client"
    )


@pytest.mark.parametrize(("action", "approve"), [("decline", True), ("accept", False)])
async def test_a_refusal_answers_the_designs_denied_text(
    mode: str, action: str, approve: bool
) -> None:
    restarts = Restarts()
    async with Client(
        mcp_server(served(restarts)).server, mode=mode, elicitation_callback=Person(action, approve)
    ) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is True and restarts.ran == []
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text.startswith("Error: A person declined this call, so it did not run.")
    assert block.text.splitlines()[-1].startswith("Recovery: replan")


@pytest.mark.parametrize(
    "content", [{"approve": True, "force": True}, {"yes": True}, {"approve": "yes"}, {}], ids=repr
)
async def test_an_answer_that_does_not_match_the_form_is_no_refusal(
    mode: str, content: dict[str, Any]
) -> None:
    """Fields the form did not ask for, or a missing or mistyped ``approve``, say nothing of
    what the person chose: the call stays awaiting approval, and the model is not told that a
    person declined it."""
    restarts = Restarts()
    person = Person("accept", content=content)
    async with Client(
        mcp_server(served(restarts)).server, mode=mode, elicitation_callback=person
    ) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is True and restarts.ran == []
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "declined" not in block.text and "needs a person's approval" in block.text
    assert result.meta is not None and APPROVAL_META_KEY in result.meta


async def test_a_dismissed_question_leaves_the_call_awaiting_approval(mode: str) -> None:
    restarts = Restarts()
    async with Client(
        mcp_server(served(restarts)).server, mode=mode, elicitation_callback=Person("cancel")
    ) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is True and restarts.ran == []
    assert result.meta is not None
    pending = ApprovalRequest.from_dict(result.meta[APPROVAL_META_KEY])
    assert pending.arguments == RESTART


async def test_a_client_that_cannot_be_asked_gets_the_pending_approval(mode: str) -> None:
    restarts = Restarts()
    async with Client(mcp_server(served(restarts)).server, mode=mode) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is True and restarts.ran == []
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "needs a person's approval" in block.text and "Do not call it again" in block.text
    assert result.meta is not None
    pending = ApprovalRequest.from_dict(result.meta[APPROVAL_META_KEY])
    assert pending.tool == "restart_device" and pending.arguments == RESTART


async def test_the_runtimes_own_approver_decides_instead_of_the_client(mode: str) -> None:
    restarts, person = Restarts(), Person("decline")
    decided: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        decided.append(request)
        return True

    server = mcp_server(served(restarts, approver=approver))
    async with Client(server.server, mode=mode, elicitation_callback=person) as client:
        result = await client.call_tool("restart_device", RESTART)
    assert result.is_error is False and person.asked == [] and len(decided) == 1


async def test_an_answer_unlocks_only_the_call_it_was_asked_about() -> None:
    restarts = Restarts()
    server = mcp_server(served(restarts))
    # A client that can be asked, driving the round trips itself.
    async with Client(
        server.server, mode="2026-07-28", elicitation_callback=Person("accept")
    ) as client:
        first = await client.session.call_tool("restart_device", RESTART, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests is not None and "approval" in first.input_requests
        yes = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
        # The same answer and state sent back with other arguments are for another call: the
        # sealed state is bound to the arguments it was asked about, and refused.
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool(
                "restart_device",
                {**RESTART, "device_id": "dev-ffffffff"},
                input_responses=yes,
                request_state=first.request_state,
                allow_input_required=True,
            )
        assert restarts.ran == []
        done = await client.session.call_tool(
            "restart_device",
            RESTART,
            input_responses=yes,
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert isinstance(done, types.CallToolResult) and done.is_error is False
    assert restarts.ran == ["dev-0a1b2c3d"]


async def test_an_approved_round_sent_again_does_not_run_the_call_again() -> None:
    # A client that retries after a lost answer (or replays the request) sends the approved
    # round again: the sealed state is still valid, but the person approved one run, and a
    # restart must not happen twice. The round's one run answers every copy of it.
    restarts = Restarts()
    server = mcp_server(served(restarts))
    async with Client(
        server.server, mode="2026-07-28", elicitation_callback=Person("accept")
    ) as client:
        first = await client.session.call_tool("restart_device", RESTART, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        yes = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
        answers = [
            await client.session.call_tool(
                "restart_device",
                RESTART,
                input_responses=yes,
                request_state=first.request_state,
                allow_input_required=True,
            )
            for _ in range(3)
        ]
        assert restarts.ran == ["dev-0a1b2c3d"]
        assert all(isinstance(done, types.CallToolResult) for done in answers)
        assert {str(done.structured_content) for done in answers} == {
            str({"accepted": True, "job_id": "restart-dev-0a1b2c3d"})
        }
        # The same call asked about afresh is another decision, and runs again once approved.
        again = await client.session.call_tool("restart_device", RESTART, allow_input_required=True)
        assert isinstance(again, types.InputRequiredResult)
        assert again.request_state != first.request_state
        await client.session.call_tool(
            "restart_device",
            RESTART,
            input_responses=yes,
            request_state=again.request_state,
            allow_input_required=True,
        )
    assert restarts.ran == ["dev-0a1b2c3d", "dev-0a1b2c3d"]


async def test_event_subscribers_see_approvals_asked_over_mcp(mode: str) -> None:
    runtime = served(Restarts())
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    async with Client(
        mcp_server(runtime).server, mode=mode, elicitation_callback=Person("accept")
    ) as client:
        await client.call_tool("restart_device", RESTART)
    subscription.close()
    assert any(isinstance(e, ApprovalRequested) for e in events)


# ── progress notifications ───────────────────────────────────────────────────────────────


async def test_progress_reaches_a_client_that_asked_for_it(mode: str) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with Client(mcp_server(served(Restarts())).server, mode=mode) as client:
        result = await client.call_tool(
            "check_reachability", {"value": "core.hq"}, progress_callback=on_progress
        )
        quiet = await client.call_tool("check_reachability", {"value": "core.hq"})
    assert result.is_error is False and quiet.is_error is False
    assert updates == [
        (n, 5.0, f"probe {int(n)} of 5 sent to core.hq") for n in (1.0, 2.0, 3.0, 4.0, 5.0)
    ]


# ── trace context ────────────────────────────────────────────────────────────────────────


async def test_the_trace_in_meta_parents_the_calls_span_and_travels_on(
    mode: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    runtime = served(Restarts(), tracing=Tracing(tracer_provider=provider))
    metas: list[ToolCallMeta] = []

    def observe(result: ToolResult, context: McpCallContext) -> None:
        metas.append(context.meta)

    async with Client(mcp_server(runtime, on_result=observe).server, mode=mode) as client:
        await client.call_tool("get_site", {"site_id": "hq"}, meta={"traceparent": PARENT})
    [span] = exporter.get_finished_spans()
    assert span.name == "execute_tool get_site"
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert span.parent is not None
    assert [m.trace for m in metas] == [{"traceparent": PARENT}]  # on to workers


@pytest.mark.slow
async def test_the_trace_in_http_headers_parents_the_calls_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    runtime = served(Restarts(), tracing=Tracing(tracer_provider=provider))
    http = create_mcp_http_client(headers={"traceparent": PARENT})
    async with (
        serving(streamable_http_app(mcp_server(runtime))) as url,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool("get_site", {"site_id": "hq"})
    assert result.is_error is False
    [span] = exporter.get_finished_spans()
    assert format(span.context.trace_id, "032x") == TRACE_ID


# ── log messages ─────────────────────────────────────────────────────────────────────────


async def test_log_messages_reach_a_handshake_client_at_the_level_it_set() -> None:
    heard: list[tuple[str, str | None, Any]] = []

    async def on_log(message: types.LoggingMessageNotificationParams) -> None:
        heard.append((message.level, message.logger, message.data))

    server = mcp_server(served(Restarts()))
    async with Client(server.server, mode="legacy", logging_callback=on_log) as client:
        assert client.server_capabilities.logging is not None
        await client.call_tool("check_reachability", {"value": "core.hq"})
        with pytest.warns(UserWarning, match="deprecated"):  # the SDK's client says so
            await client.set_logging_level("notice")
        await client.call_tool("check_reachability", {"value": "core.hq"})
        await client.call_tool("check_reachability", {"value": "gone.invalid"})
    assert heard == [
        ("info", "check_reachability", "core.hq: 5 of 5 probes answered"),
        ("notice", "check_reachability", "gone.invalid: no answer to 5 probes"),
    ]


async def test_the_level_set_on_one_connection_leaves_the_others_alone() -> None:
    heard: list[str] = []

    async def on_log(message: types.LoggingMessageNotificationParams) -> None:
        heard.append(message.data)

    server = mcp_server(served(Restarts()))
    async with (
        Client(server.server, mode="legacy") as quiet,
        Client(server.server, mode="legacy", logging_callback=on_log) as loud,
    ):
        with pytest.warns(UserWarning):
            await quiet.set_logging_level("emergency")
        await loud.call_tool("check_reachability", {"value": "core.hq"})
    assert heard == ["core.hq: 5 of 5 probes answered"]


async def test_a_2026_client_gets_log_messages_only_when_the_request_asks() -> None:
    heard: list[str] = []

    async def on_log(message: types.LoggingMessageNotificationParams) -> None:
        heard.append(f"{message.level} {message.data}")

    server = mcp_server(served(Restarts()))
    async with Client(server.server, logging_callback=on_log) as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool("check_reachability", {"value": "core.hq"})  # nobody asked
        assert heard == []
        await client.call_tool(
            "check_reachability",
            {"value": "core.hq"},
            meta={"io.modelcontextprotocol/logLevel": "info"},
        )
        await client.call_tool(
            "check_reachability",
            {"value": "core.hq"},
            meta={"io.modelcontextprotocol/logLevel": "warning"},
        )
    assert heard == ["info core.hq: 5 of 5 probes answered"]


async def test_log_messages_and_progress_arrive_in_the_order_reported() -> None:
    seen: list[str] = []

    async def on_log(message: types.LoggingMessageNotificationParams) -> None:
        seen.append(f"log {message.data}")

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(f"progress {progress:g}")

    server = mcp_server(served(Restarts()))
    async with Client(server.server, mode="legacy", logging_callback=on_log) as client:
        await client.call_tool(
            "check_reachability", {"value": "core.hq"}, progress_callback=on_progress
        )
    assert seen == [f"progress {n}" for n in range(1, 6)] + ["log core.hq: 5 of 5 probes answered"]
