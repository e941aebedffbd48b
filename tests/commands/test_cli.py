"""The command line itself: each command's arguments, and a ``--help`` that stays quick."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from tests.support import REPO

# What commands need only when they run: loading them would make every `tooldesign --help`,
# and every usage error, wait for them.
HEAVY = ("tooldesign.runtime", "tooldesign.importers", "tooldesign.codegen", "tooldesign.eval",
         "tooldesign.ir", "tooldesign.binding", "pydantic", "asyncio", "mcp", "uvicorn")  # fmt: skip


@pytest.mark.slow
def test_help_loads_none_of_what_the_commands_run_on() -> None:
    script = (
        "import json, sys\n"
        "from tooldesign.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert [m for m in loaded if m.startswith(HEAVY)] == []


def tooldesign(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tooldesign", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_version_and_python_dash_m() -> None:
    import tooldesign as package

    done = tooldesign("--version")
    assert (done.returncode, done.stdout) == (0, f"tooldesign {package.__version__}\n")


@pytest.mark.slow
def test_a_bare_tooldesign_prints_its_help() -> None:
    done = tooldesign()
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: tooldesign [-h] [--version] COMMAND ...")
    for command in ("init", "gen", "call", "export", "serve-mcp", "mcp-config"):
        assert f"\n    {command} " in done.stdout or f"\n    {command}\n" in done.stdout
    assert "tooldesign init DIR" in done.stdout


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    # `tooldesign export … | head -1`: writing to a pipe whose reader is gone fails (EPIPE).
    script = (
        "import sys\n"
        "from tooldesign.cli import main\n"
        "class Gone:\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(sys.__stdout__, name)\n"
        "    def write(self, text):\n"
        "        raise BrokenPipeError(32, 'Broken pipe')\n"
        "sys.stdout = Gone()\n"
        "sys.exit(main(['export', '--format', 'prompt', 'gen']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (141, "", "")


@pytest.mark.slow
def test_a_usage_error_shows_the_command_s_own_usage_and_names_near_misses() -> None:
    done = tooldesign("mcp-config", "app:build", "--host", "cursor", "--app-dri", "app")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: tooldesign mcp-config ")
    assert done.stderr.endswith(
        "tooldesign: error: unrecognized arguments: --app-dri (did you mean --app-dir?) app\n"
    )
    done = tooldesign("gen", "design", "--out", "gen", "--chek=1", "--bogus")
    assert done.stderr.startswith("usage: tooldesign gen ")
    assert done.stderr.endswith(
        "error: unrecognized arguments: --chek=1 (did you mean --check?) --bogus\n"
    )
    # A misspelt option that leaves a required one out: the near miss is named too.
    done = tooldesign("mcp-config", "app:build", "--hots", "cursor")
    assert done.stderr.endswith(
        "error: the following arguments are required: --host (--hots: did you mean --host?)\n"
    )
    done = tooldesign("import", "python", "x.py", "--froce")
    assert done.stderr.startswith("usage: tooldesign import python ")
    done = tooldesign("--bogus")
    assert done.stderr.startswith("usage: tooldesign [-h] [--version] COMMAND")
    assert done.stderr.endswith("error: unrecognized argument: --bogus\n")


def test_every_option_of_every_command_has_help() -> None:
    from tooldesign.cli import build_parser

    parser = build_parser()
    pending = [parser]
    while pending:
        current = pending.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action.choices.values())
            elif action.option_strings:
                assert action.help, f"{current.prog} {action.option_strings[-1]} has no help"
