"""``tooldesign gen`` as people run it: errors in their own code, progress on a terminal, and
Ctrl-C."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import tree_bytes

pytestmark = pytest.mark.slow  # tooldesign gen in a subprocess

DESIGN = """\
from tooldesign.dsl import *

from app.tools import lookup

with Service("svc", "A service"):
{toolsets}
"""

TOOLSET = """\
    with Toolset("t{n}", "Toolset {n}"):
        with Tool("lookup_{n}", "Look things up"):
            with Args():
                Attribute("name", String, "A name")
                Required("name")
            Return(String, "The answer")
            BindTo(lookup)
"""

APP = """\
import time

SETTINGS = {"region": "eu"}


def setting(key):
    return SETTINGS[key]


def limits():
    return {"rows": setting("max_rows")}


def lookup(name: str) -> str:
    return name
"""


def project(root: Path, *, toolsets: int = 1, app: str = APP) -> Path:
    """A design (``design/d.py``) that imports ``app.tools``; returns ``root``."""
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "tools.py").write_text(textwrap.dedent(app))
    (root / "design").mkdir()
    body = "".join(TOOLSET.format(n=n) for n in range(toolsets))
    (root / "design" / "d.py").write_text(DESIGN.format(toolsets=body))
    return root


def gen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tooldesign", "gen", "design", "--out", "gen", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_error_in_the_application_names_its_own_line(tmp_path: Path) -> None:
    root = project(tmp_path, app=APP + "\nLIMITS = limits()\n")
    done = gen(root)
    assert done.returncode == 2
    assert done.stderr == (
        "tooldesign: the design has 1 error:\n"
        "  design/d.py:3: KeyError: 'max_rows'\n"
        "      raised at app/tools.py:7 in setting: return SETTINGS[key]\n"
        "tooldesign: gen --traceback shows the full traceback\n"
    )
    assert not (root / "gen").exists()
    done = gen(root, "--traceback")
    assert done.returncode == 2
    _, _, traceback = done.stderr.partition("return SETTINGS[key]\n")
    # From the design's own line on: none of tooldesign's frames.
    assert traceback.startswith("Traceback (most recent call last):\n")
    assert f'File "{root / "design" / "d.py"}", line 3, in <module>' in traceback
    assert "LIMITS = limits()" in traceback
    assert "tooldesign/eval" not in traceback and "importlib" not in traceback
    assert traceback.endswith("KeyError: 'max_rows'\n")


def test_run_from_outside_the_project_it_says_where_the_application_is(tmp_path: Path) -> None:
    root = project(tmp_path / "notes")

    def gen_from(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "tooldesign", "gen", "notes/design", "--out", "out"]
        return subprocess.run(
            [*command, *args], cwd=cwd, capture_output=True, text=True, check=False
        )

    done = gen_from(tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(
        "tooldesign: the design has 1 error:\n"
        "  notes/design/d.py:3: ModuleNotFoundError: No module named 'app'\n"
        "      'app' is in notes/, which is not importable from here: run from notes/, or give "
        "--app-dir notes\n"
    )
    done = gen_from(tmp_path, "--app-dir", "notes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "svc").is_dir() and not (root / "out").exists()
    done = gen_from(tmp_path, "--app-dir", "nowhere")
    assert (done.returncode, done.stderr) == (
        2,
        "tooldesign: error: --app-dir nowhere: no such folder\n",
    )


def test_an_error_in_the_design_itself_names_only_its_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    design = root / "design" / "d.py"
    design.write_text(design.read_text().replace('String, "A name"', 'Strng, "A name"'))
    done = gen(root)
    assert done.returncode == 2
    assert "  design/d.py:9: NameError: name 'Strng' is not defined\n" in done.stderr
    assert "raised at" not in done.stderr


def read_terminal(fd: int, process: subprocess.Popen[bytes]) -> str:
    """Everything written to the pseudo-terminal ``fd`` until ``process`` ends."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    return b"".join(chunks).decode()


def gen_on_a_terminal(root: Path, *args: str) -> tuple[int, str, str]:
    """``gen`` with its standard error on a pseudo-terminal: exit code, stdout, terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tooldesign", "gen", "design", "--out", "gen", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=follower,
    )
    os.close(follower)
    try:
        terminal = read_terminal(leader, process)
    finally:
        os.close(leader)
    stdout, _ = process.communicate(timeout=60)
    return process.returncode, stdout.decode(), terminal


def test_progress_shows_on_a_terminal_and_is_erased(tmp_path: Path) -> None:
    root = project(tmp_path, toolsets=3)
    code, out, terminal = gen_on_a_terminal(root)
    assert code == 0
    shown = [part.removeprefix("\x1b[K") for part in terminal.split("\r")]
    assert "tooldesign: evaluating the design…" in shown
    assert "tooldesign: rendering 3/3 toolsets" in shown
    assert "tooldesign: formatting…" in shown and "tooldesign: writing…" in shown
    assert terminal.endswith("\r\x1b[K")  # erased: the summary line stands alone
    assert out.startswith("tooldesign: 1 service(s), 3 toolset(s), 3 tool(s); wrote ")


def test_no_progress_off_a_terminal_or_with_quiet(tmp_path: Path) -> None:
    root = project(tmp_path, toolsets=2)
    done = gen(root)
    assert done.returncode == 0 and done.stderr == ""
    code, out, terminal = gen_on_a_terminal(root, "--quiet")
    assert (code, out, terminal) == (0, "", "")


@pytest.mark.parametrize("phase", ["evaluating the design", "rendering"])
def test_ctrl_c_exits_130_with_one_line_and_leaves_the_output_as_it_was(
    tmp_path: Path, phase: str
) -> None:
    root = project(tmp_path, toolsets=12)
    assert gen(root).returncode == 0
    before = tree_bytes(root / "gen")
    design = root / "design" / "d.py"
    # Every toolset's models change, so rendering takes a while.
    text = design.read_text().replace('"A name"', '"A name, as the user wrote it"')
    if phase == "evaluating the design":  # the design is still running when Ctrl-C comes
        text = text.replace("import lookup", "import lookup\nimport time\ntime.sleep(30)")
    design.write_text(text)
    leader, follower = pty.openpty()
    # Ctrl-C on a terminal signals the whole process group: the workers that render too.
    # The child starts with Ctrl-C at its default, as a foreground job on a terminal does,
    # even when these tests run in a background job (which inherits SIGINT ignored).
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "tooldesign", "gen", "design", "--out", "gen"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=follower,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGINT, saved)
    os.close(follower)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while phase.encode() not in seen and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.1)[0]:
                seen += os.read(leader, 65536)
        assert phase.encode() in seen, seen
        os.killpg(process.pid, signal.SIGINT)
        terminal = seen.decode() + read_terminal(leader, process)
    finally:
        os.close(leader)
    out, _ = process.communicate(timeout=60)
    assert (process.returncode, out) == (130, b"")
    # The progress line is erased; one line says what happened; no traceback from any process.
    assert terminal.endswith("\r\x1b[Ktooldesign: interrupted\r\n")
    assert "Traceback" not in terminal
    assert tree_bytes(root / "gen") == before
    assert [p.name for p in root.iterdir() if p.name.startswith(".gen")] == []
