"""``tooldesign init``: a project that works as written — its tests pass, it is clean under ruff
and mypy --strict, and it serves over MCP from any working directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from tooldesign.cli import main

from tests.support import tree_bytes

TIMEOUT = 60  # seconds for a subprocess: starting Python and importing the SDK takes a second

SCAFFOLD = [
    "README.md",
    "app/__init__.py",
    "app/handlers.py",
    "app/notes.py",
    "app/runtime.py",
    "design/notes_demo.py",
    "pyproject.toml",
    "tests/__init__.py",
    "tests/test_tools.py",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tooldesign init DIR --name notes_demo``, once for the tests of this module."""
    folder = tmp_path_factory.mktemp("first-hour") / "my-project"
    assert main(["init", str(folder), "--name", "notes_demo"]) == 0
    return folder


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env},
        check=False,
    )


def test_init_writes_a_project_and_generates_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "weather-tools"
    assert main(["init", str(folder)]) == 0
    out = capsys.readouterr().out
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert [f for f in files if not f.startswith("gen/")] == [
        f.replace("notes_demo", "weather_tools") for f in SCAFFOLD
    ]
    assert "gen/weather_tools/toolsets/notes/executor.py" in files
    assert "gen/.tooldesign-manifest.json" in files
    # It says what it made, then the three commands to run next, in order.
    assert out.startswith(f"tooldesign: created the weather_tools project in {folder}/ ")
    commands = out.split("Next:\n", 1)[1].splitlines()
    assert [line.split("#")[0].strip() for line in commands] == [
        f"cd {folder}",
        "python -m unittest",
        "tooldesign serve-mcp app.runtime:build_runtime",
        "tooldesign export --provider openai gen",
    ]


def test_init_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "proj"
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "notes.py").write_text("# mine\n")
    (folder / "README.md").write_text("# mine\n")
    before = tree_bytes(folder)
    assert main(["init", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"tooldesign: error: {folder}: README.md, app/notes.py already exist; init never "
        "overwrites files: choose a new folder (tooldesign init DIR) or another --name\n"
    )
    assert tree_bytes(folder) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "My Tools"], "--name 'My Tools': a project's name names its Python packages"),
        (["--name", "app"], "the project's name 'app' is taken by the project"),
        (["--name", "json"], "the project's name 'json' is taken by a module Python has"),
    ],
)
def test_names_that_cannot_name_the_packages_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["init", str(tmp_path / "p"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


@pytest.mark.slow
def test_the_scaffold_s_own_tests_pass(project: Path) -> None:
    done = run([sys.executable, "-m", "unittest", "-v"], project)
    assert done.returncode == 0, done.stderr
    assert "Ran 4 tests" in done.stderr and done.stderr.rstrip().endswith("OK")
    done = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], project)
    assert done.returncode == 0, done.stdout
    assert "4 passed" in done.stdout


@pytest.mark.slow
def test_renaming_the_example_toolset_needs_no_change_to_the_runtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "renamed"
    assert main(["init", str(folder), "--name", "renamed_demo"]) == 0
    capsys.readouterr()
    design = folder / "design" / "renamed_demo.py"
    design.write_text(design.read_text().replace('Toolset("notes"', 'Toolset("memos"'))
    gen = [sys.executable, "-m", "tooldesign", "gen", "design", "--out", "gen"]
    assert run(gen, folder).returncode == 0
    assert not (folder / "gen" / "renamed_demo" / "toolsets" / "notes").exists()
    done = run([sys.executable, "-m", "unittest"], folder)
    assert done.returncode == 0, done.stderr
    # A handler for a tool the design does not have is refused, not ignored.
    handlers = folder / "app" / "handlers.py"
    handlers.write_text(handlers.read_text() + '\nHANDLERS["add_notes"] = print\n')
    done = run([sys.executable, "-m", "unittest"], folder)
    assert "LookupError: HANDLERS names tools the design has not: add_notes" in done.stderr


@pytest.mark.slow
def test_the_scaffold_is_clean_under_ruff_and_mypy_strict(project: Path) -> None:
    from tooldesign.codegen.formatting import ruff_binary

    for check in (["check", "--no-cache", "."], ["format", "--check", "--no-cache", "."]):
        done = run([ruff_binary(), *check], project)
        assert done.returncode == 0, done.stdout + done.stderr
    done = run(
        [sys.executable, "-m", "mypy", "--cache-dir", os.devnull, "."],
        project,
        MYPY_FORCE_COLOR="0",
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("Success: no issues found")


@pytest.mark.slow
def test_the_scaffold_regenerates_to_the_same_bytes(project: Path) -> None:
    done = run(
        [sys.executable, "-m", "tooldesign", "gen", "design", "--out", "gen", "--check"], project
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_call_runs_one_tool_of_the_scaffold(project: Path) -> None:
    target = "app.runtime:build_runtime"
    done = run(
        [sys.executable, "-m", "tooldesign", "call", target, "add_note", '{"text": "milk"}'],
        project,
    )
    assert done.returncode == 0, done.stderr
    model_text, result = done.stdout.split("\n\nresult:\n")
    assert model_text == 'for the model:\n{"id":"note-1","text":"milk"}'
    shown = json.loads(result)
    assert shown["result"] == {"id": "note-1", "text": "milk"}
    assert shown["telemetry"]["outcome"] == "ok"


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_scaffold_serves_over_mcp_from_any_working_directory(
    project: Path, tmp_path: Path
) -> None:
    from mcp import Client, StdioServerParameters, types

    # What `mcp-config` prints is what a host runs, from a working directory of its own.
    done = run(
        [sys.executable, "-m", "tooldesign", "mcp-config", "app.runtime:build_runtime",
         "--host", "claude-desktop"],
        project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [(name, entry)] = json.loads(done.stdout)["mcpServers"].items()
    assert name == "notes_demo"
    assert entry["command"] == sys.executable
    assert entry["args"][-2:] == ["--app-dir", str(project.resolve())]
    server = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        cwd=tmp_path,
        env={"PYTHONDONTWRITEBYTECODE": "1"},  # hosts start servers with a small environment
    )
    with anyio.fail_after(TIMEOUT):
        async with Client(server) as client:
            listed = (await client.list_tools()).tools
            saved = await client.call_tool("add_note", {"text": "Buy milk"})
            found = await client.call_tool("search_notes", {"query": "milk"})
            wrong = await client.call_tool("search_notes", {"limit": 0})
    assert [tool.name for tool in listed] == ["add_note", "search_notes"]
    assert "session_id" not in json.dumps([tool.input_schema for tool in listed])
    assert saved.is_error is False
    # The session injected is the connection's, so the note is found again.
    assert found.structured_content is not None
    assert found.structured_content["notes"] == [{"id": "note-1", "text": "Buy milk"}]
    assert wrong.is_error is True
    [block] = wrong.content
    assert isinstance(block, types.TextContent)
    assert "- query: required field is missing" in block.text
