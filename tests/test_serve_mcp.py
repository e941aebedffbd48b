"""``tooldesign serve-mcp``: what it accepts, the errors it gives, and serving over HTTP."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, types
from tooldesign.cli import main
from tooldesign.commands import serve_mcp
from tooldesign.commands._targets import load, split_target
from tooldesign.contract.errors import UserError
from tooldesign.runtime.mcp import ToolServer

from tests.support import REPO

TARGETS = """
    import dataclasses

    from tooldesign.runtime import Runtime
    from tooldesign.runtime.mcp import ToolServer

    answer = 42


    def not_a_runtime():
        return {"tools": []}


    def broken():
        raise RuntimeError("the inventory database is down")


    def configured():
        return ToolServer(Runtime(), name="configured")


    def netops():
        from examples.netops.mcp_server import runtime

        return runtime()


    def as_alice(context):
        return dataclasses.replace(context.meta, session_id="sess-alice")


    observed = []


    async def observe(result, context):
        observed.append((result.name, context.tool))


    def observe_the_result_only(result):
        pass
"""


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module of good and bad targets in the current directory; yields its name."""
    name = f"serve_targets_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(TARGETS))
    (tmp_path / f"{name}_raises.py").write_text("raise ValueError('bad config')\n")
    (tmp_path / f"{name}_needs.py").write_text("import a_package_nobody_installed\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the current directory
    yield name
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def error_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.err.strip()


def test_the_target_must_be_module_colon_attribute(capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(["serve-mcp", "examples.netops.mcp_server"], capsys) == (
        "tooldesign: error: serve-mcp takes MODULE:ATTR (for example "
        "examples.netops.mcp_server:runtime), got 'examples.netops.mcp_server'"
    )


def test_missing_modules_and_attributes(targets: str, capsys: pytest.CaptureFixture[str]) -> None:
    message = error_of(["serve-mcp", "no_such_module_here:runtime"], capsys)
    assert message.startswith("tooldesign: error: no module named 'no_such_module_here'")
    message = error_of(["serve-mcp", f"{targets}:runtime"], capsys)
    assert message == f"tooldesign: error: module '{targets}' has no attribute 'runtime'"
    message = error_of(["serve-mcp", f"{targets}_needs:runtime"], capsys)
    assert message.startswith(f"tooldesign: error: importing '{targets}_needs' failed: ")
    assert "No module named 'a_package_nobody_installed'" in message
    message = error_of(["serve-mcp", f"{targets}_raises:runtime"], capsys)
    assert f"importing '{targets}_raises' failed: ValueError: bad config (" in message
    assert f"{targets}_raises.py:1)" in message


def test_targets_that_are_not_runtimes(targets: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(["serve-mcp", f"{targets}:answer"], capsys) == (
        f"tooldesign: error: {targets}:answer is a int, not a Runtime, a ToolServer or a "
        "function returning one"
    )
    assert error_of(["serve-mcp", f"{targets}:not_a_runtime"], capsys) == (
        f"tooldesign: error: {targets}:not_a_runtime returned a dict, not a Runtime or a ToolServer"
    )
    message = error_of(["serve-mcp", f"{targets}:broken"], capsys)
    assert message.startswith(
        f"tooldesign: error: calling {targets}:broken failed: "
        "RuntimeError: the inventory database is down ("
    )
    assert error_of(["serve-mcp", f"{targets}:configured", "--name", "x"], capsys) == (
        f"tooldesign: error: {targets}:configured is a ToolServer, which is configured "
        "already: drop --name (set it in code, where the ToolServer is built)"
    )


def test_without_the_mcp_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # what an environment without it imports
    message = error_of(["serve-mcp", "examples.netops.mcp_server:runtime"], capsys)
    assert message.startswith("tooldesign: error: serving over MCP needs the mcp package")
    assert message.endswith("install it with: pip install 'tooldesign[mcp]'")


def test_a_busy_port(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["serve-mcp", "examples.netops.mcp_server:runtime", "--transport", "http"]
        message = error_of([*argv, "--port", str(port)], capsys)
    assert message.startswith(f"tooldesign: error: cannot listen on 127.0.0.1:{port}: ")
    assert error_of([*argv, "--port", "70000"], capsys) == (
        "tooldesign: error: --port must be between 0 and 65535, got 70000"
    )


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_serves_the_worked_example_over_http(anyio_backend: str) -> None:
    script = shutil.which("tooldesign", path=str(Path(sys.executable).parent))
    assert script is not None
    command = [script, "serve-mcp", "examples.netops.mcp_server:runtime", "--transport", "http"]
    process = await anyio.open_process(
        [*command, "--port", "0", "--name", "netops"],
        cwd=REPO,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # keep gen/ as generated
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert process.stderr is not None
        with anyio.fail_after(30):  # the server's first line says where it listens
            said = b""
            async for chunk in process.stderr:
                said += chunk
                if b"\n" in said:
                    break
        line = said.decode().splitlines()[0] if said else "(nothing)"
        found = re.fullmatch(r"tooldesign: serving 14 tool\(s\) over MCP at (http://\S+)", line)
        assert found, said.decode()
        with anyio.fail_after(30):
            # The SDK's default client, as a user would connect: it gets a session.
            async with Client(found.group(1)) as client:
                assert client.server_info is not None
                assert client.server_info.name == "netops"
                result = await client.call_tool("list_sites", {"region": "apac"})
                profile = await client.call_tool("get_profile", {})
    finally:
        process.terminate()
        with anyio.fail_after(10):
            await process.wait()
        await process.aclose()
    assert result.is_error is False
    assert result.structured_content is not None
    assert [s["id"] for s in result.structured_content["sites"]] == ["sgp"]
    # The tool ran with the connection's session (which has no profile), not without one.
    assert [wired.text for wired in profile.content if isinstance(wired, types.TextContent)] == [
        "Error: no profile for this session"
    ]
    [block] = result.content
    assert isinstance(block, types.TextContent)


def serve_args(target: str, **options: str) -> argparse.Namespace:
    """What ``tooldesign serve-mcp TARGET --meta-for … --on-result …`` parses to."""
    defaults = {"transport": "stdio", "name": None, "meta_for": None, "on_result": None}
    return argparse.Namespace(target=target, **{**defaults, **options})


def serve_error(args: argparse.Namespace) -> str:
    with pytest.raises(UserError) as caught:
        anyio.run(resolve, args)
    return str(caught.value)


async def resolve(args: argparse.Namespace) -> ToolServer:
    target = load(*split_target(args.target, usage=serve_mcp.USAGE))
    return await serve_mcp._resolve(target, serve_mcp._callbacks(args), args)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_meta_for_and_on_result_by_import_path(anyio_backend: str, targets: str) -> None:
    args = serve_args(
        f"{targets}:netops", meta_for=f"{targets}:as_alice", on_result=f"{targets}:observe"
    )
    server = await resolve(args)
    async with Client(server.server) as client:
        profile = await client.call_tool("get_profile", {})
    # The session came from meta_for: alice's profile, which the default metadata never gives.
    assert profile.is_error is False and profile.structured_content is not None
    assert profile.structured_content["user_id"] == "u-alice"
    observed = sys.modules[targets].observed
    assert observed == [("assistant.profiles.get_profile", "get_profile")]


def test_callbacks_that_cannot_serve_are_clear_errors(targets: str) -> None:
    message = serve_error(
        serve_args(f"{targets}:netops", on_result=f"{targets}:observe_the_result_only")
    )
    assert message.startswith(
        "on_result is called as on_result(result, context) (context: an McpCallContext), but "
    )
    message = serve_error(serve_args(f"{targets}:netops", meta_for=f"{targets}:answer"))
    assert message == "meta_for must be a function called as meta_for(context), not 42"
    message = serve_error(serve_args(f"{targets}:netops", meta_for=f"{targets}"))
    assert message == (
        f"--meta-for takes MODULE:FUNC (for example app.mcp:meta_for), got '{targets}'"
    )
    message = serve_error(serve_args(f"{targets}:netops", on_result=f"{targets}:nothing"))
    assert message == f"module '{targets}' has no attribute 'nothing'"
    message = serve_error(serve_args(f"{targets}:configured", meta_for=f"{targets}:as_alice"))
    assert message == (
        f"{targets}:configured is a ToolServer, which is configured already: drop --meta-for "
        "(set it in code, where the ToolServer is built)"
    )
