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
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest
from tooldesign.cli import main
from tooldesign.commands import serve_mcp
from tooldesign.commands._targets import load, split_target
from tooldesign.contract.errors import UserError

from tests.support import REPO

if TYPE_CHECKING:
    from tooldesign.runtime.mcp import ToolServer

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
        f"tooldesign: error: {targets}:answer is an int, not a Runtime, a ToolServer or a "
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


@asynccontextmanager
async def serving_over_http(
    *options: str, lines: int = 1, env: Mapping[str, str] | None = None
) -> AsyncIterator[tuple[str, list[str]]]:
    """``tooldesign serve-mcp`` with the worked example over HTTP on a free port, in a
    subprocess; yields its URL and the first ``lines`` lines it wrote on standard error."""
    script = shutil.which("tooldesign", path=str(Path(sys.executable).parent))
    assert script is not None
    command = [script, "serve-mcp", "examples.netops.mcp_server:runtime", "--transport", "http"]
    process = await anyio.open_process(
        [*command, "--port", "0", *options],
        cwd=REPO,
        # Without bytecode, gen/ stays as generated.
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert process.stderr is not None
        with anyio.fail_after(30):  # the server's first line says where it listens
            said = b""
            async for chunk in process.stderr:
                said += chunk
                if said.count(b"\n") >= lines:
                    break
        told = said.decode().splitlines()
        line = told[0] if told else "(nothing)"
        found = re.fullmatch(r"tooldesign: serving 16 tool\(s\) over MCP at (http://\S+)", line)
        assert found, said.decode()
        yield found.group(1), told[:lines]
    finally:
        process.terminate()
        with anyio.fail_after(10):
            await process.wait()
        await process.aclose()


@pytest.mark.slow
@pytest.mark.anyio
async def test_serves_the_worked_example_over_http() -> None:
    from mcp import Client, types

    async with serving_over_http("--name", "netops") as (url, _):
        with anyio.fail_after(30):
            # The SDK's default client, as a user would connect: it gets a session.
            async with Client(url) as client:
                assert client.server_info is not None
                assert client.server_info.name == "netops"
                result = await client.call_tool("list_sites", {"region": "apac"})
                profile = await client.call_tool("get_profile", {})
    assert result.is_error is False
    assert result.structured_content is not None
    assert [s["id"] for s in result.structured_content["sites"]] == ["sgp"]
    # The tool ran with the connection's session (which has no profile), not without one.
    assert [wired.text for wired in profile.content if isinstance(wired, types.TextContent)] == [
        (
            "Error: no profile for this session\n"
            'Recovery: replan — do not repeat this call to "get_profile" now; take another step.'
        )
    ]
    [block] = result.content
    assert isinstance(block, types.TextContent)


@pytest.mark.slow
@pytest.mark.anyio
async def test_stateless_offers_2026_07_28_to_every_client() -> None:
    from mcp import Client, types

    # A client that speaks only 2026-07-28 does not give up; tools that need a session say
    # they cannot run without one (no --meta-for here).
    async with serving_over_http("--stateless") as (url, _):
        with anyio.fail_after(30):
            async with Client(url) as client:
                version = client.protocol_version
                result = await client.call_tool("list_sites", {"region": "apac"})
                profile = await client.call_tool("get_profile", {})
    assert version == "2026-07-28"
    assert result.is_error is False
    assert profile.is_error is True
    [block] = profile.content
    assert isinstance(block, types.TextContent) and "cannot run in this context" in block.text


def test_stateless_takes_no_session_limits(capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of([*HTTP, "--stateless", "--max-sessions", "5"], capsys) == (
        "tooldesign: error: --max-sessions limit sessions, which --stateless has none of"
    )
    stdio = ["serve-mcp", "examples.netops.mcp_server:runtime", "--stateless"]
    assert "--stateless applies to --transport http only" in error_of(stdio, capsys)


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
    return await serve_mcp.resolve_server(target, serve_mcp._callbacks(args), args)


@pytest.mark.anyio
async def test_meta_for_and_on_result_by_import_path(targets: str) -> None:
    from mcp import Client

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


# ── security over HTTP ────────────────────────────────────────────────────────────────────

TOKEN = "serve-mcp-test-token-0123456789"
HTTP = ["serve-mcp", "examples.netops.mcp_server:runtime", "--transport", "http"]


def test_http_security_options_and_their_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    monkeypatch.setenv("SHORT_TOKEN", "abc")
    stdio = ["serve-mcp", "examples.netops.mcp_server:runtime"]
    assert error_of([*stdio, "--auth-token-env", "X", "--max-sessions", "5"], capsys) == (
        "tooldesign: error: --auth-token-env and --max-sessions apply to --transport http only; "
        "add --transport http to serve over HTTP (stdio, the default, takes none of them)"
    )
    assert error_of([*HTTP, "--auth-token-env", "NO_SUCH_TOKEN_VAR"], capsys) == (
        "tooldesign: error: --auth-token-env NO_SUCH_TOKEN_VAR: the environment variable "
        "NO_SUCH_TOKEN_VAR is not set or empty"
    )
    assert error_of([*HTTP, "--auth-token-env", "SHORT_TOKEN"], capsys).startswith(
        "tooldesign: error: --auth-token-env SHORT_TOKEN: the token is shorter than 16 characters"
    )
    assert error_of([*HTTP, "--host", "0.0.0.0"], capsys) == (
        "tooldesign: error: --host 0.0.0.0 serves beyond this machine without authentication, "
        "so anyone who reaches the port could call every tool: pass --auth-token-env NAME (a "
        "token in the environment variable NAME), or --no-auth to serve openly anyway"
    )
    assert error_of([*HTTP, "--allowed-origin", "app.example.com"], capsys).startswith(
        "tooldesign: error: --allowed-origin is scheme://name, scheme://name:port or "
    )
    assert error_of([*HTTP, "--max-sessions", "0"], capsys) == (
        "tooldesign: error: --max-sessions must be at least 1, got 0"
    )
    assert error_of([*HTTP, "--session-idle-timeout", "-1"], capsys) == (
        "tooldesign: error: --session-idle-timeout must be positive seconds, got -1.0"
    )
    # Beyond loopback, openly when asked to, or with a token; the limits as given.
    options = serve_mcp._http_security(
        http_args(host="0.0.0.0", no_auth=True, max_sessions_per_client=7)
    )
    assert options["token_verifier"] is None
    assert (options["sessions"].max_sessions, options["sessions"].per_client) == (1000, 7)
    monkeypatch.setenv("MCP_TOKEN", TOKEN)
    options = serve_mcp._http_security(http_args(host="0.0.0.0", auth_token_env=["MCP_TOKEN"]))
    assert options["token_verifier"].identities == ("MCP_TOKEN",)
    assert options["authentication"] == "bearer token from $MCP_TOKEN"


def test_token_scopes_give_each_token_its_scopes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPS_TOKEN", TOKEN)
    monkeypatch.setenv("BOT_TOKEN", TOKEN[::-1])
    options = serve_mcp._http_security(
        http_args(
            auth_token_env=["OPS_TOKEN", "BOT_TOKEN"],
            token_scopes=["OPS_TOKEN=devices:write  devices:read"],
        )
    )
    assert options["token_verifier"].scopes == {"OPS_TOKEN": ("devices:read", "devices:write")}
    base = [*HTTP, "--auth-token-env", "OPS_TOKEN"]
    assert error_of([*base, "--token-scopes", "devices:write"], capsys) == (
        "tooldesign: error: --token-scopes takes NAME=SCOPES (for example "
        "OPS_TOKEN='devices:write'), got 'devices:write'"
    )
    assert error_of([*base, "--token-scopes", "OTHER=x"], capsys) == (
        "tooldesign: error: --token-scopes OTHER: no --auth-token-env OTHER gives that token"
    )
    assert error_of([*base, "--token-scopes", 'OPS_TOKEN=a"b'], capsys).startswith(
        "tooldesign: error: --token-scopes OPS_TOKEN: scope 'a\"b' is not an OAuth scope token"
    )
    stdio = ["serve-mcp", "examples.netops.mcp_server:runtime", "--token-scopes", "A=b"]
    assert "--token-scopes applies to --transport http only" in error_of(stdio, capsys)


def test_session_defaults_in_help_are_session_limits_own() -> None:
    from tooldesign.runtime.mcp import SessionLimits

    limits = SessionLimits()
    assert serve_mcp.SESSION_DEFAULTS == {
        "max_sessions": limits.max_sessions,
        "per_client": limits.per_client,
        "idle_timeout": limits.idle_timeout,
    }


def http_args(**options: object) -> argparse.Namespace:
    return argparse.Namespace(**{"transport": "http", "host": "127.0.0.1", **options})


@pytest.mark.slow
@pytest.mark.anyio
async def test_serves_over_http_with_a_token_from_the_environment() -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    options = ["--auth-token-env", "MCP_TOKEN", "--allowed-origin", "https://app.example.com"]
    async with serving_over_http(
        *options, "--max-sessions", "50", lines=5, env={"MCP_TOKEN": TOKEN}
    ) as (url, lines):
        assert lines[1:5] == [
            "tooldesign: authentication: bearer token from $MCP_TOKEN",
            "tooldesign: Host names allowed: localhost, 127.0.0.1, [::1]",
            (
                "tooldesign: browser origins allowed: http://localhost:*, http://127.0.0.1:*, "
                "http://[::1]:*, https://localhost:*, https://127.0.0.1:*, https://[::1]:*, "
                "https://app.example.com (requests without an Origin pass)"
            ),
            (
                "tooldesign: sessions: at most 50 (100 per authenticated client); idle ones end "
                "after 600 s"
            ),
        ]
        assert all(TOKEN not in line for line in lines)
        with anyio.fail_after(30):
            async with httpx2.AsyncClient() as http:
                anonymous = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert anonymous.status_code == 401
            http_client = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
            async with Client(streamable_http_client(url, http_client=http_client)) as client:
                result = await client.call_tool("list_sites", {"region": "apac"})
    assert result.is_error is False


# ── discovery: a loading plan on the command line ───────────────────────────────────────────


def plan_args(target: str, **plan: object) -> argparse.Namespace:
    args = serve_args(target)
    defaults: dict[str, object] = {
        "defer": [],
        "eager": [],
        "default_loading": None,
        "read_only_eager": False,
    }
    for key, value in {**defaults, **plan}.items():
        setattr(args, key, value)
    return args


@pytest.mark.anyio
async def test_a_loading_plan_serves_the_catalog_as_discovery(targets: str) -> None:
    from mcp import Client
    from tooldesign.runtime.mcp.discovery import DiscoveryServer

    server = await resolve(plan_args(f"{targets}:netops", defer=["devices,metrics"]))
    assert isinstance(server, DiscoveryServer)
    listed = {tool.name for tool in server.tools()}
    assert "search_tools" in listed and "tool_index" in listed and "get_site" in listed
    assert not {"list_devices", "restart_device", "get_time_series"} & listed
    async with Client(server.server, mode="legacy") as client:
        found = await client.call_tool("search_tools", {"query": "sites", "limit": 10})
        assert found.structured_content is not None
        # The tool_index registered with the plan searches the deferred tools only.
        names = {t["name"] for t in found.structured_content["tools"]}
        deferred = {spec.name for spec in server.runtime.specs()} - listed
        assert names and names <= deferred
        assert names <= {tool.name for tool in (await client.list_tools()).tools}


def test_a_loading_plan_that_cannot_serve_is_a_clear_error(targets: str) -> None:
    message = serve_error(plan_args(f"{targets}:netops", defer=["nothing_like_this"]))
    assert "'nothing_like_this'" in message and "toolsets: devices" in message
    message = serve_error(plan_args(f"{targets}:configured", default_loading="deferred"))
    assert message.endswith(
        "drop --default-loading (set it in code, where the ToolServer is built)"
    )
