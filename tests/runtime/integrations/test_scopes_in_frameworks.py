"""The principal an application verifies reaches the pipeline from a framework integration's
``meta=`` function: a pydantic-ai agent acting for a user without ``devices:write`` is answered
that it lacks the scope — no person is asked, nothing runs — and the audit records the user;
acting for one who holds it, the call goes on to its approval."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from tooldesign.runtime import AuditRecord, Principal
from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

from tests.support.calls import ALICE
from tests.support.netops import Restarts, approve_all, example_runtime

RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}


def test_a_pydantic_ai_agent_acts_for_the_principal_its_meta_gives() -> None:
    restarts = Restarts()
    trail: list[AuditRecord] = []

    class Sink:
        def record(self, record: AuditRecord) -> None:
            trail.append(record)

    runtime = example_runtime(
        device_handlers={"restart_device": restarts}, audit=Sink(), approver=approve_all
    )

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("restart_device", RESTART, "c-1")])
        return ModelResponse(parts=[TextPart("done")])

    def meta(ctx: Any) -> Any:  # the application's verified user, never the model's words
        return dataclasses.replace(ALICE, principal=ctx.deps)

    agent = Agent(
        FunctionModel(respond),
        deps_type=Principal,
        toolsets=[tooldesign_toolset(runtime, meta=meta)],
    )
    viewer = Principal.of("bob", ["devices:read"])
    result = agent.run_sync("restart it", deps=viewer)

    [answer] = [
        part
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    assert "do not grant the scope 'devices:write'" in answer.model_response_str()
    assert restarts.ran == []
    assert [(r.principal, r.outcome) for r in trail] == [(viewer, "forbidden")]

    # A caller holding the scope reaches the tool's Confirm: a person is asked now.
    ops = Principal.of("ann", ["devices:write"])
    waiting = agent.run_sync("restart it", deps=ops, output_type=[str, DeferredToolRequests])
    assert isinstance(waiting.output, DeferredToolRequests)
    assert [call.tool_name for call in waiting.output.approvals] == ["restart_device"]
