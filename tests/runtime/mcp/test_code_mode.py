"""run_code served over MCP: the typed API is the tool's description, and an approval inside
the code goes out as MCP elicitation, as a direct call's does (both protocol modes).

Starts pydantic-monty's worker processes: slow."""

from __future__ import annotations

import pytest
from mcp import Client, types
from tooldesign.builtin.code_mode import code_mode_registration
from tooldesign.runtime.codemode import CodeMode
from tooldesign.runtime.mcp import mcp_server

from tests.runtime.mcp.test_control import MODES, served
from tests.support.mcp_host import Person
from tests.support.netops import Restarts

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CODE = """
online = list_devices(site_id="hq", status="online")["devices"]
r = restart_device(device_id=online[0]["id"], reason="code mode over MCP")
{"restarted": online[0]["id"], "accepted": r["accepted"]}
"""


@pytest.mark.parametrize("mode", MODES)
async def test_an_approval_inside_code_is_elicited_and_the_call_runs_once(mode: str) -> None:
    restarts, person = Restarts(), Person("accept")
    runtime = served(restarts)
    runtime.register(code_mode_registration(CodeMode(runtime)))
    server = mcp_server(runtime)
    async with Client(server.server, mode=mode, elicitation_callback=person) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "def restart_device(" in (listed["run_code"].description or "")
        result = await client.call_tool("run_code", {"code": CODE})
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    value = result.structured_content["value"]
    assert value["accepted"] is True and restarts.ran == [value["restarted"]]
    [question] = person.asked
    assert isinstance(question, types.ElicitRequestFormParams)
    assert question.message.startswith(f"Restart {value['restarted']}?")


@pytest.mark.parametrize("mode", MODES)
async def test_a_declined_approval_is_a_permission_error_in_the_code(mode: str) -> None:
    restarts, person = Restarts(), Person("decline")
    runtime = served(restarts)
    runtime.register(code_mode_registration(CodeMode(runtime)))
    code = """
online = list_devices(site_id="hq", status="online")["devices"]
try:
    r = restart_device(device_id=online[0]["id"], reason="code mode over MCP")
except PermissionError:
    r = {"accepted": False}
{"restarted": online[0]["id"], "accepted": r["accepted"]}
"""
    async with Client(mcp_server(runtime).server, mode=mode, elicitation_callback=person) as client:
        result = await client.call_tool("run_code", {"code": code})
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    assert result.structured_content["value"]["accepted"] is False and restarts.ran == []
