"""The example agent on the OpenAI Agents SDK: the generated toolsets as ``FunctionTool``s.

The model is the SDK's ``ScriptedModel`` playing the script; the run's ``context`` is the
user's session, which the tools' ``meta`` turns into each call's metadata. The restart the
design confirms interrupts the run; the operator approves it and the run carries on. The SDK
decides whether a call needs approval before it runs, so the restart inside ``diagnose_site``'s
inner run is asked of the runtime's approver: the operator, here too.
"""

from __future__ import annotations

import json

from agents import Agent, RunConfig, Runner, ToolCallItem, ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from tooldesign.runtime import ApprovalDecision, ApprovalRequest, Runtime, ToolCallMeta
from tooldesign.runtime.integrations.openai_agents import ResultText, tooldesign_tools

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


def scripted_model() -> ScriptedModel:
    """Plays the script: the calls of each turn, then the answer."""
    steps = [
        [function_call(c.name, c.arguments, call_id=c.call_id) for c in turn] for turn in SCRIPT
    ]
    return ScriptedModel([*steps, [assistant_message(ANSWER)]])


def build_agent(runtime: Runtime) -> Agent[str]:
    tools = tooldesign_tools(runtime, meta=lambda ctx: session_meta(ctx.context))
    return Agent(name="netops", model=scripted_model(), tools=tools)


def operator(request: ApprovalRequest, meta: ToolCallMeta) -> ApprovalDecision:
    """The operator, asked by the runtime (an inner run's restart; a UI would show the prompt)."""
    show_approval(request.prompt)
    return request.approve(by=OPERATOR)


def run(runtime: Runtime) -> None:
    runtime.approver = operator  # inner runs' approvals; the SDK's own flow has the rest
    agent = build_agent(runtime)
    offline = RunConfig(tracing_disabled=True)
    result = Runner.run_sync(
        agent, "Which devices are offline at hq?", context=SESSION, run_config=offline
    )
    while result.interruptions:
        # The operator approves each call waiting for a person (a UI would show the design's
        # prompt: ``runtime.approval_for`` of the call).
        state = result.to_state()
        for pending in result.interruptions:
            state.approve(pending)
        result = Runner.run_sync(agent, state, context=SESSION, run_config=offline)
    turn, calls = 0, []
    for item in result.new_items:
        if isinstance(item, ToolCallItem):
            raw = item.raw_item
            calls.append((getattr(raw, "name", ""), json.loads(getattr(raw, "arguments", "{}"))))
            continue
        if calls:
            turn += 1
            show_calls(turn, calls)
            calls = []
        if isinstance(item, ToolCallOutputItem):
            output = item.output
            tool_result = output.result if isinstance(output, ResultText) else None
            show_answer(str(item.call_id), str(output), tool_result)
    print(f"\n── the model answers: {result.final_output}")
