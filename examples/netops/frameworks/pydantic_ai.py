"""The example agent on pydantic-ai: the generated toolsets as one toolset of an ``Agent``.

The model is a ``FunctionModel`` playing the script; the run's ``deps`` is the user's session,
which the toolset's ``meta`` turns into each call's metadata. The restart the design confirms
ends the run as a deferred tool request; the operator approves it and the run carries on. So does
the restart inside ``diagnose_site``'s inner run (its request is the deferred call's metadata).
"""

from __future__ import annotations

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from tooldesign.runtime import ApprovalRequest, Runtime, ToolResult
from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

from examples.netops.frameworks.script import (
    ANSWER,
    OPERATOR,
    SCRIPT,
    SESSION,
    session_meta,
    show_answer,
    show_approval,
    show_calls,
)


def scripted_model() -> FunctionModel:
    """Plays the script: the calls of the next turn, then the answer."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn == len(SCRIPT):
            return ModelResponse(parts=[TextPart(ANSWER)])
        return ModelResponse(
            parts=[ToolCallPart(c.name, c.arguments, tool_call_id=c.call_id) for c in SCRIPT[turn]]
        )

    return FunctionModel(respond)


def build_agent(runtime: Runtime) -> Agent[str, str | DeferredToolRequests]:
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))
    return Agent(
        scripted_model(),
        deps_type=str,
        toolsets=[toolset],
        output_type=[str, DeferredToolRequests],
    )


def approve_all(waiting: DeferredToolRequests) -> DeferredToolResults:
    """The operator's decisions on the calls waiting for one: each approved, saying who. (A UI
    would show each call's ``ApprovalRequest.from_dict(waiting.metadata[call_id]).prompt``.)"""
    decided = DeferredToolResults()
    for call in waiting.approvals:
        show_approval(ApprovalRequest.from_dict(waiting.metadata[call.tool_call_id]).prompt)
        decided.approvals[call.tool_call_id] = True
        decided.metadata[call.tool_call_id] = {"by": OPERATOR}
    return decided


def run(runtime: Runtime) -> None:
    agent = build_agent(runtime)
    result = agent.run_sync("Which devices are offline at hq?", deps=SESSION)
    while isinstance(result.output, DeferredToolRequests):
        result = agent.run_sync(
            deps=SESSION,
            message_history=result.all_messages(),
            deferred_tool_results=approve_all(result.output),
        )
    turn = 0
    for message in result.all_messages():
        if isinstance(message, ModelResponse) and message.tool_calls:
            turn += 1
            show_calls(turn, [(c.tool_name, c.args) for c in message.tool_calls])
        elif isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart):
                    result_ = part.metadata if isinstance(part.metadata, ToolResult) else None
                    text = part.model_response_str(wrap_if_error=False)
                    show_answer(part.tool_call_id, text, result_)
    print(f"\n── the model answers: {result.output}")
