"""Starting ``serve-mcp`` as MCP hosts do: from any working directory (``--app-dir``, a
``file.py:attr`` target), and the configuration ``mcp-config`` prints for each host."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from tooldesign.cli import main
from tooldesign.commands._targets import Target, parse_target
from tooldesign.contract.errors import UserError

from tests.support import REPO
from tests.support.generated import Generated

APP = """\
from tooldesign.runtime import Runtime


def build():
    from examples.netops.mcp_server import runtime

    return runtime()


not_a_runtime = 42
"""


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Path]:
    """A package ``hostapp`` (``hostapp/serving.py``) in a folder of its own."""
    package = tmp_path / "apps" / "hostapp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "serving.py").write_text(textwrap.dedent(APP))
    yield tmp_path / "apps"
    for name in [m for m in sys.modules if m == "hostapp" or m.startswith("hostapp.")]:
        del sys.modules[name]


def test_targets_by_module_or_by_file(app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    usage = "serve-mcp takes MODULE:ATTR"
    assert parse_target("hostapp.serving:build", usage=usage, app_dir=str(app)) == Target(
        "hostapp.serving", "build", app.resolve()
    )
    # A file inside a package is imported under its dotted name, from above the package.
    file = app / "hostapp" / "serving.py"
    assert parse_target(f"{file}:build", usage=usage) == Target(
        "hostapp.serving", "build", app.resolve()
    )
    monkeypatch.chdir(app / "hostapp")
    assert parse_target("serving.py:build", usage=usage).spelled == "hostapp.serving:build"
    with pytest.raises(UserError, match="no such file"):
        parse_target("missing.py:build", usage=usage)
    with pytest.raises(UserError, match="--app-dir /nowhere: no such folder"):
        parse_target("hostapp.serving:build", usage=usage, app_dir="/nowhere")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--port", "9000"], "--port applies to --transport http only; add --transport http"),
        (["--host", "0.0.0.0", "--port", "1"], "--host and --port apply to --transport http only"),
    ],
)
def test_http_options_without_http_are_usage_errors(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["serve-mcp", "examples.netops.mcp_server:runtime", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tooldesign: error: {message}")


def test_an_application_that_is_not_where_it_is_looked_for(
    app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve-mcp", "hostapp.serving:build", "--app-dir", str(app / "hostapp")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"tooldesign: error: no module named 'hostapp.serving' (looked in {app / 'hostapp'} and "
        "the installed packages; run from the folder that contains it, or give --app-dir)"
    )


def host_config(
    capsys: pytest.CaptureFixture[str], target: str, host: str, *options: str
) -> tuple[str, str]:
    assert main(["mcp-config", target, "--host", host, *options]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_each_host_gets_its_documented_format(
    app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"{app / 'hostapp' / 'serving.py'}:build"
    command = sys.executable
    args = ["-m", "tooldesign", "serve-mcp", "hostapp.serving:build", "--app-dir", str(app)]
    for host in ("claude-desktop", "cursor"):
        out, err = host_config(capsys, target, host, "--env", "LOG=debug")
        assert json.loads(out) == {
            "mcpServers": {"assistant": {"command": command, "args": args, "env": {"LOG": "debug"}}}
        }
    out, err = host_config(capsys, target, "vscode", "--name", "net ops")
    assert json.loads(out) == {
        "servers": {"net-ops": {"type": "stdio", "command": command, "args": args}}
    }
    assert err == "tooldesign: add it to .vscode/mcp.json in your workspace\n"
    out, err = host_config(capsys, target, "claude-code", "--env", "LOG=debug")
    assert shlex.split(out) == [
        "claude", "mcp", "add", "--transport", "stdio", "--env=LOG=debug", "assistant", "--",
        command, *args,
    ]  # fmt: skip
    assert "--scope project" in err


TENANT_DESIGN = """\
from tooldesign.dsl import *

with Service("tenants", "Tools of a tenant"):
    with Toolset("ts", "A toolset"):
        with Tool("whoami", "The tenant calling"):
            with Args():
                Attribute("tenant_id", String, "The tenant")
                Attribute("session_id", String, "The session")
                Required("tenant_id", "session_id")
            with Return():
                Attribute("tenant", String, "The tenant")
                Required("tenant")
            Inject("tenant_id", "session_id")
"""

TENANT_APP = """\
import dataclasses
import os

from tooldesign.runtime import Runtime

from {package}.tenants.toolsets.ts import executor


def build():
    return Runtime([executor.new_registration(handlers={{"whoami": whoami}})])


def whoami(args, meta):
    return {{"tenant": args.tenant_id}}


def meta_for(context):
    return dataclasses.replace(context.meta, labels={{"tenant_id": os.environ["TENANT_ID"]}})


def observe(result, context):
    pass
"""


def test_mcp_config_carries_meta_for_and_warns_of_values_nothing_provides(
    app: Path, capsys: pytest.CaptureFixture[str], gen_design: Callable[[str], Generated]
) -> None:
    generated = gen_design(TENANT_DESIGN)
    (app / "hostapp" / "tenants.py").write_text(TENANT_APP.format(package=generated.package))
    target, folder = "hostapp.tenants:build", ["--app-dir", str(app)]
    out, err = host_config(capsys, target, "claude-code", *folder)
    assert err == (
        "tooldesign: warning: whoami injects tenant_id, which MCP calls do not carry, so it "
        "answers that it cannot run; give --meta-for MODULE:FUNC, a function that sets "
        "tenant_id from each call (docs/mcp.md, Call metadata)\n"
        "tooldesign: run it in your project (add --scope project to share it in .mcp.json)\n"
    )
    callbacks = ["--meta-for", "hostapp.tenants:meta_for", "--on-result", "hostapp.tenants:observe"]
    out, err = host_config(
        capsys, target, "cursor", *folder, *callbacks, "--env", "TENANT_ID=acme",
        "--server-version", "1.4.0",
    )  # fmt: skip
    [entry] = json.loads(out)["mcpServers"].values()
    assert entry["args"] == [
        "-m", "tooldesign", "serve-mcp", target, *folder, *callbacks, "--server-version", "1.4.0"
    ]  # fmt: skip
    assert entry["env"] == {"TENANT_ID": "acme"}
    assert "warning" not in err
    # A callback that does not load, or cannot be called as the server calls it, is an error now.
    for callback, error in (
        ("hostapp.tenants:nothing", "module 'hostapp.tenants' has no attribute 'nothing'"),
        ("hostapp.tenants:whoami", "meta_for is called as meta_for(context)"),
    ):
        assert (
            main(["mcp-config", target, "--host", "cursor", *folder, "--meta-for", callback]) == 2
        )
        assert error in capsys.readouterr().err


@pytest.mark.slow
def test_serve_mcp_warns_of_values_nothing_provides(
    app: Path, gen_design: Callable[[str], Generated]
) -> None:
    generated = gen_design(TENANT_DESIGN)
    (app / "hostapp" / "tenants.py").write_text(TENANT_APP.format(package=generated.package))
    serve = [sys.executable, "-m", "tooldesign", "serve-mcp", "hostapp.tenants:build"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(generated.root)}

    def served(*options: str) -> str:
        done = subprocess.run(
            [*serve, "--app-dir", str(app), *options],
            stdin=subprocess.DEVNULL,  # the client is gone at once: the server stops
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and done.stdout == "", done.stderr
        return done.stderr

    assert served() == (
        "tooldesign: serving 1 tool(s) over MCP on stdio\n"
        "tooldesign: warning: whoami injects tenant_id, which MCP calls do not carry, so it "
        "answers that it cannot run; give --meta-for MODULE:FUNC, a function that sets "
        "tenant_id from each call (docs/mcp.md, Call metadata)\n"
    )
    told = served("--meta-for", "hostapp.tenants:meta_for")
    assert told == "tooldesign: serving 1 tool(s) over MCP on stdio\n"


def test_mcp_config_loads_the_target_first(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["mcp-config", "hostapp.serving:not_a_runtime", "--host", "cursor"]
    assert main([*argv, "--app-dir", str(app)]) == 2
    assert capsys.readouterr().err == (
        "tooldesign: error: hostapp.serving:not_a_runtime is an int, not a Runtime, a ToolServer "
        "or a function returning one\n"
    )


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_file_target_serves_from_another_working_directory(
    app: Path, tmp_path: Path
) -> None:
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tooldesign", "serve-mcp", f"{app / 'hostapp' / 'serving.py'}:build"],
        cwd=tmp_path,
        # The application imports the worked example: installed, as a host's server has it.
        env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)},
    )
    with anyio.fail_after(60):
        async with Client(server) as client:
            result = await client.call_tool("get_site", {"site_id": "sgp"})
    assert result.structured_content is not None
    assert result.structured_content["name"] == "Singapore office"
