"""An agent-implemented tool in a LangGraph agent: its inner run's approval interrupts the outer
graph like a ``Confirm`` of its own, and the resumed graph answers with the approved run (the
worked example's ``diagnose_site``, its agent a plain async function). Each invocation here has
an event loop of its own, so the waiting run cannot be resumed: it starts again, and the
decision applies to the same inner call, which runs once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from tooldesign.runtime import ApprovalRequest, CallEvent, CallFinished

from tests.runtime.integrations.test_langchain import PROMPT, UserContext, graph_of
from tests.support.frameworks import SESSION, netops_runtime

DIAGNOSE = ("diagnose_site", {"site_id": "hq"}, "d1")


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize("answer", [True, False])
def test_an_inner_approval_interrupts_the_outer_graph_and_the_run_resumes(
    path: str, answer: bool
) -> None:
    runtime, _ = netops_runtime()
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    graph = graph_of(runtime, [[DIAGNOSE]], [], checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t1"}}
    context = UserContext(SESSION)

    def run(value: Any) -> dict[str, Any]:
        if path == "sync":
            return graph.invoke(value, thread, context=context)  # type: ignore[no-any-return]
        return asyncio.run(graph.ainvoke(value, thread, context=context))  # type: ignore[no-any-return]

    waiting = run(PROMPT)
    (interrupt,) = waiting["__interrupt__"]
    request = ApprovalRequest.from_dict(interrupt.value)
    assert request.tool == "restart_device" and request.session_id == SESSION
    done = run(Command(resume=answer))
    subscription.close()
    (message,) = [m for m in done["messages"] if isinstance(m, ToolMessage)]
    assert ('"action":"restart"' if answer else '"action":"escalate"') in str(message.content)
    restarted = [e for e in events if isinstance(e, CallFinished) and e.name == "restart_device"]
    # The call that ran (or was refused) did so once, under the person's decision; the first
    # attempt waited (cancelled with its event loop, or never finished).
    outcomes = [e.outcome for e in restarted]
    assert outcomes[-1] == ("ok" if answer else "approval_denied")
    assert outcomes.count("ok") + outcomes.count("approval_denied") == 1
