"""The worked example's toolsets as a pydantic-ai toolset, run by a real ``Agent`` with a
scripted ``FunctionModel`` (no network, no API key)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolDenied,
    ToolReturnPart,
    UnexpectedModelBehavior,
)
from pydantic_ai.messages import ModelMessage, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer
from pydantic_ai.tools import RunContext, ToolDefinition
from tooldesign.runtime import (
    ApprovalRequest,
    Bounds,
    CallNext,
    InputRequest,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)
from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset
from tooldesign.runtime.providers import export_tools

from examples.netops.agent import build_runtime
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

Turn = list[tuple[str, dict[str, Any], str]]


def scripted(turns: list[Turn], seen: list[list[ModelMessage]]) -> FunctionModel:
    """A model making ``turns`` of calls, then answering; it records what it is sent."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn >= len(turns):
            return ModelResponse(parts=[TextPart(ANSWER)])
        return ModelResponse(
            parts=[
                ToolCallPart(name, args, tool_call_id=ident) for name, args, ident in turns[turn]
            ]
        )

    return FunctionModel(respond)


def answers_in(messages: list[ModelMessage]) -> dict[str, Answer]:
    return {
        part.tool_call_id: Answer(
            part.model_response_str(wrap_if_error=False),
            part.metadata if isinstance(part.metadata, ToolResult) else None,
        )
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


SCRIPT: list[Turn] = [[(c.name, c.arguments, c.call_id) for c in turn] for turn in TURNS]


@pytest.mark.parametrize("path", ["sync", "async"])
def test_an_agent_runs_the_example_conversation(path: str) -> None:
    runtime, overlap = netops_runtime()
    seen: list[list[ModelMessage]] = []
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))
    agent = Agent(scripted(SCRIPT, seen), deps_type=str, toolsets=[toolset])
    prompt = "Which devices are offline at hq?"
    if path == "sync":
        result = agent.run_sync(prompt, deps=SESSION)
    else:
        result = asyncio.run(agent.run(prompt, deps=SESSION))
    assert result.output == ANSWER
    second_turn_input = "\n".join(p.model_response_str() for p in returns(seen[1][-1:]))
    check_conversation(answers_in(result.all_messages()), second_turn_input, overlap)
    # The invalid call was pydantic-ai's retry, on the tool's budget.
    first = next(p for p in returns(result.all_messages()) if p.tool_call_id == "call-1")
    assert first.outcome == "retried"


def test_tool_definitions_carry_the_exported_schemas_and_strict_where_the_design_can_be() -> None:
    runtime, _ = netops_runtime()
    seen: list[ToolDefinition] = []

    def look(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    for strict in (True, False):
        seen.clear()
        Agent(FunctionModel(look), toolsets=[tooldesign_toolset(runtime, strict=strict)]).run_sync(
            "hi"
        )
        exported = export_tools(
            runtime.specs(), "openai", strict=strict, api="responses", fallback=strict
        )
        assert [d.name for d in seen] == [t["name"] for t in exported]
        for definition, tool in zip(seen, exported, strict=True):
            assert definition.parameters_json_schema == tool["parameters"]
            assert definition.description == tool["description"]
            assert definition.strict is tool["strict"]
            if definition.strict:
                # What pydantic-ai sends OpenAI for a strict tool: it finds nothing to change.
                schema = copy.deepcopy(definition.parameters_json_schema)
                assert OpenAIJsonSchemaTransformer(schema, strict=True).walk() == tool["parameters"]
        by_name = {d.name: d for d in seen}
        # An open map cannot be strict: that tool alone goes without strict mode.
        assert by_name["update_preferences"].strict is False
        assert by_name["list_devices"].strict is strict
        assert "session_id" not in by_name["get_profile"].parameters_json_schema["properties"]


def test_a_strict_call_may_send_null_for_optional_fields() -> None:
    runtime, _ = netops_runtime()
    call = ("list_devices", {"site_id": "hq", "status": None, "limit": None}, "c1")
    agent = Agent(
        scripted([[call]], []),
        deps_type=str,
        toolsets=[tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))],
    )
    result = agent.run_sync("all devices at hq", deps=SESSION)
    (part,) = returns(result.all_messages())
    assert isinstance(part.metadata, ToolResult) and part.metadata.ok
    # The defaults apply: every status, up to the default limit.
    assert part.metadata.bounds == Bounds(returned=38, total=38)


def test_invalid_calls_use_up_the_tools_retry_budget() -> None:
    runtime, _ = netops_runtime()
    bad = ("list_devices", {"status": "offline"}, "c")
    seen: list[list[ModelMessage]] = []
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps), max_retries=2)
    agent = Agent(scripted([[bad]] * 5, seen), deps_type=str, toolsets=[toolset])
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries count of 2"):
        agent.run_sync("go", deps=SESSION)
    # Each retry sent the hint back: the model was asked three times in all.
    assert len(seen) == 3
    retried = returns(seen[-1][-1:])[0].model_response_str()
    assert "site_id: required field is missing" in retried
    # As docs/frameworks.md says: a retry's text ends with the recovery too.
    text = json.loads(retried)["error"]
    assert text.splitlines()[-1].startswith("Recovery: correct_call")


def test_a_failure_the_model_cannot_repair_is_a_failed_call_and_costs_no_retry() -> None:
    runtime, _ = netops_runtime()
    missing = ("get_device", {"device_id": "dev-ffffffff"}, "c")
    agent = Agent(
        scripted([[missing]] * 3, []),
        deps_type=str,
        toolsets=[tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))],
    )
    result = agent.run_sync("go", deps=SESSION)  # max_retries=1, three failures: still runs
    parts = returns(result.all_messages())
    assert [p.outcome for p in parts] == ["failed"] * 3
    assert "no device" in parts[0].model_response_str(wrap_if_error=False)
    # A failure that is not the model's to fix ends with the recovery, in words.
    last_line = parts[0].model_response_str(wrap_if_error=False).rstrip().splitlines()[-1]
    assert last_line.startswith("Recovery: replan")


def test_without_the_runs_metadata_a_tool_with_injected_fields_does_not_run() -> None:
    runtime, _ = netops_runtime()
    agent = Agent(
        scripted([[("get_profile", {"session_id": "sess-bob"}, "c")]], []),
        toolsets=[tooldesign_toolset(runtime)],
    )
    (part,) = returns(agent.run_sync("who am I?").all_messages())
    assert part.outcome == "failed"
    assert "cannot run in this context" in part.model_response_str(wrap_if_error=False)
    assert "u-bob" not in part.model_response_str()


def test_the_metadata_carries_the_runs_and_the_calls_ids() -> None:
    metas: list[ToolCallMeta] = []

    async def record(request: ToolRequest, meta: ToolCallMeta, call_next: CallNext) -> ToolResult:
        metas.append(meta)
        result: ToolResult = await call_next(request, meta)
        return result

    agent = Agent(
        scripted([[("get_site", {"site_id": "hq"}, "call-7")]], []),
        toolsets=[tooldesign_toolset(build_runtime(interceptors=[record]))],
    )
    result = agent.run_sync("hq?")
    assert metas[0].tool_call_id == "call-7"
    assert metas[0].run_id == result.run_id


RESTART = ("restart_device", {"device_id": "dev-00000000", "reason": "stuck port"}, "r1")


def approval_agent(runtime: Runtime) -> Agent[str, str | DeferredToolRequests]:
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))
    return Agent(
        scripted([[RESTART]], []),
        deps_type=str,
        toolsets=[toolset],
        output_type=[str, DeferredToolRequests],
    )


def test_a_call_the_design_confirms_waits_for_approval_then_runs_exactly_that_call() -> None:
    runtime, _ = netops_runtime()
    agent = approval_agent(runtime)
    waiting = agent.run_sync("restart it", deps=SESSION)
    assert isinstance(waiting.output, DeferredToolRequests)
    (call,) = waiting.output.approvals
    assert call.tool_name == "restart_device" and call.tool_call_id == "r1"
    # The design's approval request, bound to this exact call.
    request = ApprovalRequest.from_dict(waiting.output.metadata["r1"])
    assert request.prompt == (
        "Restart dev-00000000? It drops traffic for about a minute. Reason: stuck port"
    )
    assert request.arguments == {"device_id": "dev-00000000", "reason": "stuck port"}
    expected = asyncio.run(
        runtime.approval_for(
            ToolRequest("restart_device", RESTART[1], ToolCallMeta(session_id=SESSION))
        )
    )
    assert expected is not None and request.id == expected.id
    assert not returns(waiting.all_messages())  # nothing ran yet

    done = agent.run_sync(
        deps=SESSION,
        message_history=waiting.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={"r1": True}, metadata={"r1": {"by": "alice"}}
        ),
    )
    (part,) = returns(done.all_messages())
    assert isinstance(part.metadata, ToolResult) and part.metadata.ok
    assert part.model_response_str() == '{"accepted":true,"job_id":"restart-dev-00000000"}'
    # The runtime ran it under that approval, and knows who gave it.
    assert part.metadata.approval is not None and part.metadata.approval.id == request.id
    assert part.metadata.telemetry.approval is not None
    assert part.metadata.telemetry.approval.by == "alice"


def test_a_denied_call_never_runs_and_the_model_reads_the_designs_text() -> None:
    runtime, _ = netops_runtime()
    agent = approval_agent(runtime)
    waiting = agent.run_sync("restart it", deps=SESSION)
    assert isinstance(waiting.output, DeferredToolRequests)
    confirm = runtime.spec("restart_device").confirm  # type: ignore[union-attr]
    assert confirm is not None
    done = agent.run_sync(
        deps=SESSION,
        message_history=waiting.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"r1": ToolDenied(confirm.denied)}),
    )
    (part,) = returns(done.all_messages())
    assert part.outcome == "denied" and part.metadata is None
    assert part.model_response_str() == confirm.denied


def test_a_call_the_design_does_not_select_runs_without_approval() -> None:
    runtime, _ = netops_runtime()
    agent = Agent(
        scripted([[("schedule_maintenance", SHORT_WINDOW, "m1")]], []),
        deps_type=str,
        toolsets=[tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))],
        output_type=[str, DeferredToolRequests],
    )
    done = agent.run_sync("a short window", deps=SESSION)
    assert done.output == ANSWER
    (part,) = returns(done.all_messages())
    assert isinstance(part.metadata, ToolResult) and part.metadata.ok


def test_a_toolset_of_chosen_toolsets() -> None:
    runtime, _ = netops_runtime()
    toolset = tooldesign_toolset(runtime, ["devices", "assistant.docs"])
    assert sorted(toolset._tools) == sorted(
        [s.name for s in runtime.specs("devices")] + [s.name for s in runtime.specs("docs")]
    )
    with pytest.raises(ValueError, match=r"no toolset 'nope' in this runtime \(registered: "):
        tooldesign_toolset(runtime, "nope")


def test_a_rich_results_blocks_follow_its_return_as_user_content() -> None:
    runtime, _ = netops_runtime()
    search = ("search_docs", {"query": "offline access point"}, "c")
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))
    agent = Agent(scripted([[search]], []), deps_type=str, toolsets=[toolset])
    result = agent.run_sync("go", deps=SESSION)
    [part] = returns(result.all_messages())
    assert json.loads(part.model_response_str())["returned"] == 3  # the data, as before
    sent = [
        content
        for message in result.all_messages()
        for p in message.parts
        if isinstance(p, UserPromptPart) and not isinstance(p.content, str)
        for content in p.content
    ]
    assert "[Replace an offline access point: docs://runbooks/rb-9]" in sent


def test_what_a_tool_asks_is_answered_with_the_runs_context() -> None:
    runtime, _ = netops_runtime()
    asked: list[tuple[InputRequest, str]] = []

    def answer(request: InputRequest, ctx: RunContext[str]) -> dict[str, Any]:
        asked.append((request, ctx.deps))
        return {"action": "accept", "content": {"host": "core.hq", "probes": 2}}

    probe = ("check_reachability", {"value": ""}, "p1")
    agent = Agent(
        scripted([[probe]], []),
        deps_type=str,
        toolsets=[tooldesign_toolset(runtime, answer=answer)],
    )
    (part,) = returns(agent.run_sync("probe", deps="alice").all_messages())
    assert isinstance(part.metadata, ToolResult) and part.metadata.result.raw["sent"] == 2
    ((request, deps),) = asked
    assert request.method == "elicitation/create" and deps == "alice"
    # Without an answerer, the tool does without (it asks only when someone can answer).
    plain = Agent(scripted([[probe]], []), toolsets=[tooldesign_toolset(runtime)])
    (unasked,) = returns(plain.run_sync("probe").all_messages())
    assert isinstance(unasked.metadata, ToolResult)
    assert unasked.metadata.result.raw == {"host": "", "sent": 5, "received": 0}
