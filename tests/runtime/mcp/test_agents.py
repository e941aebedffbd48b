"""An agent-implemented tool served over MCP to the SDK's own client: the inner run's approval
is asked of the person through the client (elicitation), and the result is the tool's
``Return`` as structured content."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client, types
from tooldesign.runtime import ToolCallMeta
from tooldesign.runtime.mcp import McpCallContext, mcp_server

from examples.netops.diagnosis import diagnose_site
from gen.assistant.toolsets.diagnosis import executor as diagnosis
from tests.support.mcp_host import Person
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.anyio


def served(restarts: Restarts) -> Any:
    runtime = example_runtime("devices", "metrics", device_handlers={"restart_device": restarts})
    runtime.register(diagnosis.new_registration(handlers={"diagnose_site": diagnose_site}))

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        return ToolCallMeta(session_id="sess-mcp", tool_call_id="mcp-1")

    return mcp_server(runtime, meta_for=meta_for)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_inner_runs_approval_is_asked_through_the_client(mode: str) -> None:
    restarts, person = Restarts(), Person("accept")
    async with Client(served(restarts).server, mode=mode, elicitation_callback=person) as client:
        listed = await client.list_tools()
        assert "diagnose_site" in [tool.name for tool in listed.tools]
        result = await client.call_tool("diagnose_site", {"site_id": "hq"})
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    assert result.structured_content["action"] == "restart"
    assert len(restarts.ran) == 1
    [question] = person.asked
    assert isinstance(question, types.ElicitRequestFormParams)
    assert question.message.startswith(f"Restart {restarts.ran[0]}?")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_person_declining_through_the_client_leaves_the_inner_agent_to_answer(
    mode: str,
) -> None:
    restarts = Restarts()
    async with Client(
        served(restarts).server, mode=mode, elicitation_callback=Person("decline")
    ) as client:
        result = await client.call_tool("diagnose_site", {"site_id": "hq"})
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["action"] == "escalate"
    assert restarts.ran == []
