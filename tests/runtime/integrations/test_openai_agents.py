"""The worked example's toolsets as ``FunctionTool``s, run by a real Agents SDK ``Runner``
with the SDK's ``ScriptedModel`` (no network, no API key)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, ToolCallOutputItem
from agents.items import ToolApprovalItem
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ScriptedModel, assistant_message, function_call
from tooldesign.runtime import (
    ApprovalRequest,
    ImageContent,
    InputRequest,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)
from tooldesign.runtime.integrations.openai_agents import ResultText, tooldesign_tools
from tooldesign.runtime.providers import export_tools

from tests.support.frameworks import (
    ANSWER,
    SESSION,
    SHORT_WINDOW,
    TURNS,
    Answer,
    check_conversation,
    netops_runtime,
    session_meta,
)

OFFLINE = RunConfig(tracing_disabled=True)


def scripted(turns: list[list[tuple[str, dict[str, Any], str]]]) -> ScriptedModel:
    steps = [[function_call(name, args, call_id=ident) for name, args, ident in t] for t in turns]
    return ScriptedModel([*steps, [assistant_message(ANSWER)]])


def answers_in(items: list[Any]) -> dict[str, Answer]:
    return {
        str(item.call_id): Answer(
            str(item.output),
            item.output.result if isinstance(item.output, ResultText) else None,
        )
        for item in items
        if isinstance(item, ToolCallOutputItem)
    }


SCRIPT = [[(c.name, c.arguments, c.call_id) for c in turn] for turn in TURNS]


@pytest.mark.parametrize("path", ["sync", "async"])
def test_an_agent_runs_the_example_conversation(path: str) -> None:
    runtime, overlap = netops_runtime()
    model = scripted(SCRIPT)
    tools = tooldesign_tools(runtime, meta=lambda ctx: session_meta(ctx.context))
    agent = Agent[str](name="netops", model=model, tools=tools)
    prompt = "Which devices are offline at hq?"
    if path == "sync":
        result = Runner.run_sync(agent, prompt, context=SESSION, run_config=OFFLINE)
    else:
        result = asyncio.run(Runner.run(agent, prompt, context=SESSION, run_config=OFFLINE))
    assert result.final_output == ANSWER
    model.assert_complete()
    # What the model was sent before its second turn: the first call's output, as the SDK
    # replays it.
    sent = model.calls[1].input
    assert isinstance(sent, list)
    second_turn_input = "\n".join(
        str(item["output"]) for item in sent if item.get("type") == "function_call_output"
    )
    check_conversation(answers_in(result.new_items), second_turn_input, overlap)


def test_function_tools_carry_the_strict_export_the_sdk_finds_nothing_to_change_in() -> None:
    runtime, _ = netops_runtime()
    for strict in (True, False):
        tools = tooldesign_tools(runtime, strict=strict)
        exported = export_tools(
            runtime.specs(), "openai", strict=strict, api="responses", fallback=strict
        )
        assert [t.name for t in tools] == [t["name"] for t in exported]
        for tool, definition in zip(tools, exported, strict=True):
            assert isinstance(tool, FunctionTool)
            assert tool.params_json_schema == definition["parameters"]
            assert tool.strict_json_schema is definition["strict"]
            if tool.strict_json_schema:
                schema = copy.deepcopy(tool.params_json_schema)
                assert ensure_strict_json_schema(schema) == tool.params_json_schema
        by_name = {t.name: t for t in tools if isinstance(t, FunctionTool)}
        assert by_name["update_preferences"].strict_json_schema is False  # an open map
        assert "session_id" not in by_name["get_profile"].params_json_schema["properties"]


def test_the_call_id_comes_from_the_tool_context() -> None:
    runtime, _ = netops_runtime()
    model = scripted([[("get_site", {"site_id": "hq"}, "call-9")]])
    agent = Agent(name="netops", model=model, tools=tooldesign_tools(runtime))
    result = Runner.run_sync(agent, "hq?", run_config=OFFLINE)
    (answer,) = answers_in(result.new_items).values()
    assert answer.result is not None and answer.result.ok
    assert answer.result.tool_call_id == "call-9"


RESTART = ("restart_device", {"device_id": "dev-00000000", "reason": "stuck port"}, "r1")


def test_a_call_the_design_confirms_interrupts_the_run_until_approved() -> None:
    runtime, _ = netops_runtime()
    tools = tooldesign_tools(runtime, meta=lambda ctx: session_meta(ctx.context))
    by_name = {t.name: t for t in tools if isinstance(t, FunctionTool)}
    # Only the tools whose design has Confirm ask: the others never interrupt a run.
    assert by_name["list_devices"].needs_approval is False
    assert callable(by_name["restart_device"].needs_approval)
    agent = Agent[str](name="netops", model=scripted([[RESTART]]), tools=tools)
    waiting = Runner.run_sync(agent, "restart it", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    assert isinstance(interruption, ToolApprovalItem)
    assert interruption.tool_name == "restart_device"
    assert not answers_in(waiting.new_items)  # nothing ran yet
    # What to show the person: the design's prompt for this exact call.
    arguments = json.loads(str(interruption.arguments))
    request = asyncio.run(
        runtime.approval_for(
            ToolRequest("restart_device", arguments, ToolCallMeta(session_id=SESSION))
        )
    )
    assert request is not None
    assert request.prompt.startswith("Restart dev-00000000? It drops traffic")

    state = waiting.to_state()
    state.approve(interruption)
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert answer.text == '{"accepted":true,"job_id":"restart-dev-00000000"}'
    assert isinstance(answer.result, ToolResult) and answer.result.ok
    # The runtime ran it under the approval of exactly that call.
    assert answer.result.approval is not None and answer.result.approval.id == request.id
    assert answer.result.telemetry.approval is not None
    assert answer.result.telemetry.approval.granted


def test_a_rejected_call_never_runs_and_the_model_reads_the_designs_text() -> None:
    runtime, _ = netops_runtime()
    tools = tooldesign_tools(runtime, meta=lambda ctx: session_meta(ctx.context))
    agent = Agent[str](name="netops", model=scripted([[RESTART]]), tools=tools)
    waiting = Runner.run_sync(agent, "restart it", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    confirm = runtime.spec("restart_device").confirm  # type: ignore[union-attr]
    assert confirm is not None
    state = waiting.to_state()
    state.reject(interruption, rejection_message=confirm.denied)
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert answer.text == confirm.denied and answer.result is None


def test_a_call_the_design_does_not_select_runs_without_approval() -> None:
    runtime, _ = netops_runtime()
    tools = tooldesign_tools(runtime, meta=lambda ctx: session_meta(ctx.context))
    model = scripted([[("schedule_maintenance", SHORT_WINDOW, "m1")]])
    agent = Agent[str](name="netops", model=model, tools=tools)
    done = Runner.run_sync(agent, "a short window", context=SESSION, run_config=OFFLINE)
    assert not done.interruptions and done.final_output == ANSWER
    (answer,) = answers_in(done.new_items).values()
    assert answer.result is not None and answer.result.ok


def test_who_approved_is_recorded_when_the_application_says() -> None:
    """The SDK keeps that a call was approved, not by whom: ``approved_by`` names them."""
    runtime, _ = netops_runtime()
    approvers: dict[str, str] = {}  # what the application keeps when it approves, by call id

    def approved_by(ctx: Any, request: ApprovalRequest) -> str | None:
        return approvers.get(ctx.tool_call_id)

    tools = tooldesign_tools(
        runtime, meta=lambda ctx: session_meta(ctx.context), approved_by=approved_by
    )
    agent = Agent[str](name="netops", model=scripted([[RESTART]]), tools=tools)
    waiting = Runner.run_sync(agent, "restart it", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    state = waiting.to_state()
    approvers[str(interruption.call_id)] = "alice"
    state.approve(interruption)
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert answer.result is not None and answer.result.telemetry.approval is not None
    assert answer.result.telemetry.approval.by == "alice"


def test_a_rich_results_blocks_are_named_in_the_text_the_model_reads() -> None:
    image = ImageContent(b"\x89PNG", "image/png")
    result = ToolResult("svc.ts.chart", result={"points": 3}, content=(image,))
    text = ResultText(result)
    assert text.startswith('{"points": 3}')
    assert text.endswith(
        "[Not shown here: image (image/png) (the Agents SDK tool answers text here).]"
    )
    assert text.result.content == (image,)  # the application still has it


def test_what_a_tool_asks_is_answered_with_the_tool_context() -> None:
    runtime, _ = netops_runtime()
    asked: list[tuple[InputRequest, str]] = []

    def answer(request: InputRequest, ctx: Any) -> dict[str, Any]:
        asked.append((request, ctx.tool_call_id))
        return {"action": "accept", "content": {"host": "core.hq", "probes": 2}}

    model = scripted([[("check_reachability", {"value": ""}, "p1")]])
    agent = Agent(name="netops", model=model, tools=tooldesign_tools(runtime, answer=answer))
    result = Runner.run_sync(agent, "probe", run_config=OFFLINE)
    (outcome,) = answers_in(result.new_items).values()
    assert outcome.result is not None and outcome.result.result.raw["sent"] == 2
    ((request, call_id),) = asked
    assert request.method == "elicitation/create" and call_id == "p1"
