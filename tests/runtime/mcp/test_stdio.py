"""``tooldesign serve-mcp`` on stdio, in a subprocess, with the SDK's real client."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.session import IncomingMessage
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from tooldesign.runtime.providers import export_tools

from examples.netops.mcp_server import runtime as netops_runtime
from tests.support import REPO
from tests.support.netops import not_found

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # serve-mcp on stdio in a subprocess

TIMEOUT = 30  # seconds for a whole session: starting Python and the SDK takes about one


def serve_mcp(target: str, **env: str) -> StdioServerParameters:
    """The ``tooldesign serve-mcp`` console script of this environment, from the repo root.

    The SDK starts servers with a minimal environment; no bytecode is written, so the
    repository's committed folders (``gen/``) stay exactly as generated.
    """
    script = shutil.which("tooldesign", path=str(Path(sys.executable).parent))
    assert script is not None, "the tooldesign console script is not installed"
    return StdioServerParameters(
        command=script,
        args=["serve-mcp", target],
        cwd=REPO,
        env={"PYTHONDONTWRITEBYTECODE": "1", **env},
    )


async def test_the_worked_example_over_stdio() -> None:
    with anyio.fail_after(TIMEOUT):
        async with Client(serve_mcp("examples.netops.mcp_server:runtime")) as client:
            listed = (await client.list_tools()).tools
            result = await client.call_tool("get_site", {"site_id": "sgp"})
            invalid = await client.call_tool("list_devices", {"site": "hq", "limit": 0})
            failed = await client.call_tool("get_device", {"device_id": "dev-0000abcd"})
            index = await client.call_tool("tool_index", {"tag": "telemetry"})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("format_disk", {})

    specs = netops_runtime().specs()
    assert [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed] == [
        types.Tool.model_validate(tool).model_dump(by_alias=True, exclude_none=True, mode="json")
        for tool in export_tools(specs, "mcp")
    ]
    assert "session_id" not in json.dumps([t.input_schema for t in listed])

    assert result.is_error is False
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert result.structured_content == json.loads(block.text)
    assert result.structured_content["name"] == "Singapore office"

    assert invalid.is_error is True
    [block] = invalid.content
    assert isinstance(block, types.TextContent)
    assert "- site_id: required field is missing" in block.text
    assert "- limit: must be >= 1 and <= 500 (got 0)" in block.text
    assert "- site: unknown field" in block.text

    assert failed.is_error is True
    assert [c.model_dump(exclude_none=True) for c in failed.content] == [
        {
            "type": "text",
            "text": f"Error: {not_found('dev-0000abcd')}\n"
            'Recovery: replan — do not repeat this call to "get_device" now; take another step.',
        }
    ]

    assert index.is_error is False and index.structured_content is not None
    assert [t["name"] for t in index.structured_content["tools"]] == [
        "get_time_series",
        "check_reachability",
    ]

    assert unknown.value.code == types.INVALID_PARAMS


CHANGING_SERVER = """
    '''The example runtime whose restart_device call toggles the profiles toolset.'''

    from examples.netops import agent, mcp_server
    from examples.netops.services import DeviceService, Inventory, ProfileService
    from gen.assistant.toolsets.devices import executor as devices
    from gen.assistant.toolsets.profiles import executor as profiles


    class ToggleProfiles:
        def __init__(self, runtime):
            self.runtime = runtime

        async def __call__(self, request, meta, call_next):
            result = await call_next(request, meta)
            if self.runtime.spec("get_profile") is None:
                self.runtime.register(profiles.new_registration(service=ProfileService()))
            else:
                self.runtime.unregister("assistant", "profiles")
            return result


    async def runtime():  # an async factory: serve-mcp awaits it
        served = mcp_server.runtime()
        served.unregister("assistant", "devices")
        served.approver = lambda request, meta: True  # restarts need approval (Confirm)
        served.register(
            devices.new_registration(
                service=DeviceService(Inventory()),
                handlers={"restart_device": agent.restart_device},
                interceptors=[ToggleProfiles(served)],
            )
        )
        return served
"""


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_changed_over_stdio(mode: str, tmp_path: Path) -> None:
    (tmp_path / "changing_server.py").write_text(textwrap.dedent(CHANGING_SERVER))
    notices: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notices.append(message)

    params = serve_mcp("changing_server:runtime", PYTHONPATH=str(tmp_path))
    restart = {"device_id": "dev-00000000", "reason": "test"}
    with anyio.fail_after(TIMEOUT):
        async with Client(params, mode=mode, message_handler=on_message) as client:
            before = {t.name for t in (await client.list_tools()).tools}
            if mode == "legacy":
                await client.call_tool("restart_device", restart)
                await wait_for(lambda: len(notices) == 1)
            else:
                async with client.listen(tools_list_changed=True) as subscription:
                    await client.call_tool("restart_device", restart)
                    await subscription.__anext__()
            after = {t.name for t in (await client.list_tools()).tools}
    assert before - after == {"get_profile", "update_preferences"}


async def wait_for(condition: Any) -> None:
    while not condition():
        await anyio.sleep(0.01)


NOISY_SERVER = """
    "A runtime whose application prints and logs, at import, when built and on each call."

    import logging
    import subprocess
    import sys

    from tooldesign.runtime import Runtime

    from examples.netops.services import Inventory, SiteService
    from gen.assistant.toolsets.sites import executor as sites

    print("loading the inventory", flush=True)  # at import, before the server runs
    log = logging.getLogger("noisy")


    async def chatty(request, meta, call_next):
        print("calling", request.name)
        sys.stdout.flush()
        subprocess.run([sys.executable, "-c", "print('a child process speaks')"], check=True)
        log.warning("about to call %s", request.name)
        log.info("details nobody asked for")
        return await call_next(request, meta)


    def runtime():
        print("building the runtime", flush=True)
        registration = sites.new_registration(service=SiteService(Inventory()))
        return Runtime([registration], interceptors=[chatty])
"""


async def test_stdout_carries_only_the_protocol(tmp_path: Path) -> None:
    (tmp_path / "noisy_server.py").write_text(textwrap.dedent(NOISY_SERVER))
    received: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        received.append(message)

    params = serve_mcp("noisy_server:runtime", PYTHONPATH=str(tmp_path))
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        with anyio.fail_after(TIMEOUT):
            async with Client(stdio_client(params, errlog=errlog), message_handler=on_message) as c:
                result = await c.call_tool("get_site", {"site_id": "hq"})
        errlog.seek(0)
        stderr = errlog.read()
    assert result.is_error is False
    # A line on stdout that is not JSON-RPC would reach the client as an exception.
    assert [m for m in received if isinstance(m, Exception)] == []
    lines = stderr.splitlines()
    for printed in (
        "loading the inventory",
        "building the runtime",
        "calling assistant.sites.get_site",
        "a child process speaks",
    ):
        assert printed in lines, stderr
    # Log records say when, how serious and where from; below warnings they are left out.
    assert any(
        re.fullmatch(r"\S+ \S+ WARNING noisy: about to call assistant.sites.get_site", line)
        for line in lines
    ), stderr
    assert "details nobody asked for" not in stderr


PRINTING_SERVER = """
    '''A runtime whose tool and observer print without flushing, as application code does.'''

    import asyncio

    from examples.netops import agent, mcp_server
    from examples.netops.services import DeviceService, Inventory
    from gen.assistant.toolsets.devices import executor as devices


    async def restart_device(args, meta):
        await asyncio.sleep(float(__import__("os").environ.get("TOOL_SECONDS", "0")))
        print("restarting", args.device_id)  # left in the buffer of standard output
        return await agent.restart_device(args, meta)


    def observe(result, context):
        print("observed", context.tool)


    def runtime():
        served = mcp_server.runtime()
        served.unregister("assistant", "devices")
        served.approver = lambda request, meta: True  # restarts need approval (Confirm)
        served.register(
            devices.new_registration(
                service=DeviceService(Inventory()), handlers={"restart_device": restart_device}
            )
        )
        return served
"""

RESTART = {"device_id": "dev-00000000", "reason": "stuck after update"}


async def test_prints_never_reach_stdout_even_when_the_process_exits_right_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "printing_server.py").write_text(textwrap.dedent(PRINTING_SERVER))
    received: list[IncomingMessage] = []

    async def on_message(message: IncomingMessage) -> None:
        received.append(message)

    params = serve_mcp("printing_server:runtime", PYTHONPATH=str(tmp_path))
    params.args += ["--on-result", "printing_server:observe"]
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        with anyio.fail_after(TIMEOUT):
            async with Client(stdio_client(params, errlog=errlog), message_handler=on_message) as c:
                result = await c.call_tool("restart_device", RESTART)
            # The client has closed the server's input; the server exits with what it printed.
        errlog.seek(0)
        stderr = errlog.read()
    assert result.is_error is False
    assert [m for m in received if isinstance(m, Exception)] == []
    assert "Failed to parse JSONRPC message" not in caplog.text
    assert "restarting dev-00000000" in stderr.splitlines()
    assert "observed restart_device" in stderr.splitlines()


async def test_a_call_sent_just_before_input_ends_is_answered(tmp_path: Path) -> None:
    (tmp_path / "printing_server.py").write_text(textwrap.dedent(PRINTING_SERVER))
    params = serve_mcp("printing_server:runtime", PYTHONPATH=str(tmp_path), TOOL_SECONDS="0.5")
    sent = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "pipe", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "restart_device", "arguments": RESTART},
        },
    ]
    with anyio.fail_after(TIMEOUT):
        # Everything is written and standard input closed at once, while the call runs.
        done = await anyio.run_process(
            [params.command, *params.args],
            input="".join(json.dumps(m) + "\n" for m in sent).encode(),
            cwd=params.cwd,
            env={**params.env, "PATH": os.environ["PATH"]} if params.env else None,
            check=False,
        )
    answers = {a["id"]: a for a in map(json.loads, done.stdout.decode().splitlines())}
    assert done.returncode == 0
    assert "error" not in answers[2], answers[2]
    assert answers[2]["result"]["structuredContent"] == {
        "accepted": True,
        "job_id": "restart-dev-00000000",
    }
    assert "restarting dev-00000000" in done.stderr.decode()
