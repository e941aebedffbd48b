"""run_code in a LangGraph agent graph: an approval inside the code interrupts the graph with
the inner call's request, and resumed (LangGraph runs the tool node again from its start), the
code carries on where it paused and the call runs once — or, denied, never.

A real graph with LangChain's ``GenericFakeChatModel``; starts pydantic-monty's worker
processes: slow."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from tooldesign.builtin.code_mode import TOOL_ID, code_mode_registration
from tooldesign.runtime import (
    ApprovalDecided,
    ApprovalRequest,
    CallEvent,
    CallFinished,
    ToolResult,
)
from tooldesign.runtime.codemode import CodeMode

from tests.runtime.integrations.test_langchain import PROMPT, UserContext, answers_in, graph_of
from tests.support.frameworks import SESSION
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.slow

CODE = """
online = list_devices(site_id="hq", status="online")["devices"]
try:
    r = restart_device(device_id=online[0]["id"], reason="restart from code")
except PermissionError:
    r = {"accepted": False}
{"restarted": online[0]["id"], "accepted": r["accepted"]}
"""


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize("answer", [True, "approve-by-bob", "not now"], ids=repr)
def test_an_approval_inside_code_interrupts_the_graph_and_resumes_the_code(
    answer: object, path: str
) -> None:
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts})
    runtime.register(code_mode_registration(CodeMode(runtime)))
    events: list[CallEvent] = []
    runtime.subscribe(events.append)
    graph = graph_of(
        runtime, [[("run_code", {"code": CODE}, "c1")]], [], checkpointer=InMemorySaver()
    )
    thread: Any = {"configurable": {"thread_id": "t1"}}
    context = UserContext(SESSION)

    def run(value: Any) -> dict[str, Any]:
        if path == "sync":
            return graph.invoke(value, thread, context=context)  # type: ignore[no-any-return]
        return asyncio.run(graph.ainvoke(value, thread, context=context))  # type: ignore[no-any-return]

    waiting = run(PROMPT)
    (interrupt,) = waiting["__interrupt__"]
    # The person is asked about the call inside the code, as a direct call would ask.
    request = ApprovalRequest.from_dict(interrupt.value)
    assert request.tool == "restart_device" and request.arguments["reason"] == "restart from code"
    assert request.prompt.startswith(f"Restart {request.arguments['device_id']}?")
    assert not answers_in(waiting["messages"]) and restarts.ran == []

    if answer == "approve-by-bob":
        answer = request.approve(by="bob").to_dict()
    done = run(Command(resume=answer))
    (message,) = answers_in(done["messages"]).values()
    assert isinstance(message.result, ToolResult) and message.result.ok, message.text
    result = json.loads(message.text)["value"]
    finished = [e for e in events if isinstance(e, CallFinished) and e.tool != TOOL_ID]
    # The list ran once: the resumed node's run_code carried on from the pause.
    assert [e.tool for e in finished].count("assistant.devices.list_devices") == 1
    if answer == "not now":
        assert result["accepted"] is False and restarts.ran == []
    else:
        assert result["accepted"] is True and restarts.ran == [request.arguments["device_id"]]
        ran = [e for e in finished if e.tool.endswith("restart_device") and e.ok]
        assert len(ran) == 1
    (decided,) = [e for e in events if isinstance(e, ApprovalDecided)]
    assert decided.request.id == request.id
    assert decided.decision.granted is (answer != "not now")
    assert decided.decision.by == ("bob" if isinstance(answer, dict) else None)
