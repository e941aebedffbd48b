"""The README and docs/ cannot rot: every code block in them runs.

Each fenced block names its language, and a code block (``python``, ``sh``, ``console``) says
whether it runs: ``run``, or ``no-run: why`` (it needs the network or a server that keeps
running). A page's blocks run in order, offline, in scratch folders:

- ``in=repo`` (the default): a copy of the worked example (``design/``, ``gen/``,
  ``examples/``); ``in=scratch``: an empty folder of the page's own; ``cwd=PATH``: a folder
  below it (``cwd=notes``, made by an earlier block);
- ``python`` blocks share one interpreter per folder (top-level ``await`` works), so a block
  may use what an earlier one defined;
- ``sh`` blocks run in bash and must exit 0;
- ``console`` blocks are ``$ command`` lines, each followed by its output: the output must be
  what the command prints (standard output and error, in the order a terminal shows them),
  where a line ``...`` stands for any number of lines; commands run with ``PYTHONUNBUFFERED``
  unset, whatever this run's environment, so a command that writes to standard error without
  flushing standard output first fails here as it would on a user's pipe;
- a ``text output`` block right after a ``python`` block is what that block prints;
- ``file=PATH``: the block is not run but written to ``PATH``, for later blocks to use.

Before comparing, timings and folders are written as the docs write them (``0.12s``;
``/home/you`` for the scratch folder, ``/home/you/tooldesign`` for the worked example's; this
Python as ``/home/you/.venv/bin/python``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
CODE = {"python", "sh", "console"}
HOME = "/home/you"
PYTHON = "/home/you/.venv/bin/python"
TIMEOUT = 120


@dataclass
class Block:
    page: Path
    line: int
    language: str
    options: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    reason: str = ""
    text: str = ""

    @property
    def where(self) -> str:
        shown = self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page
        return f"{shown}:{self.line}"

    @property
    def runs(self) -> bool:
        return "run" in self.flags


FENCE = re.compile(r"^(`{3,})(.*)$")


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, with their info strings read."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, info = opened.group(1), opened.group(2).strip()
        language, _, rest = info.partition(" ")
        block = Block(page, i + 1, language)
        if rest.startswith("no-run"):
            block.flags.add("no-run")
            block.reason = rest.removeprefix("no-run").lstrip(": ").strip()
        else:
            for word in rest.split():
                key, sep, value = word.partition("=")
                if sep:
                    block.options[key] = value
                else:
                    block.flags.add(word)
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        block.text = "\n".join(body) + "\n"
        found.append(block)
        i += 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]


CODE_LINE = re.compile(r"^(\$ |tooldesign |python |pip |from \S+ import |import |await )")
"""A line of a block without a language that is code, not text: it must say what it is."""

SKIPPED_FOR = ("the network", "a Redis server", "serves over HTTP until stopped", "API key")
"""Why a code block may be left unrun: it needs the network or a server that keeps running."""


def test_every_block_says_what_it_is_and_code_says_whether_it_runs() -> None:
    unmarked = [
        b.where
        for b in ALL
        if not b.language and any(CODE_LINE.match(line) for line in b.text.splitlines())
    ]
    assert not unmarked, f"code blocks without a language (python, sh, console): {unmarked}"
    undecided = [
        b.where
        for b in ALL
        if b.language in CODE and not (b.runs or ("no-run" in b.flags and b.reason))
    ]
    assert not undecided, f"code blocks that say neither `run` nor `no-run: why`: {undecided}"
    skipped = [b for b in ALL if "no-run" in b.flags]
    unjustified = [b.where for b in skipped if not any(why in b.reason for why in SKIPPED_FOR)]
    assert not unjustified, f"blocks left unrun for another reason than {SKIPPED_FOR}"


def test_code_left_unrun_still_compiles() -> None:
    for block in ALL:
        if block.language == "python" and "no-run" in block.flags:
            compile(block.text, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def test_json_blocks_are_json() -> None:
    for block in ALL:
        if block.language == "json":
            try:
                json.loads(block.text)
            except ValueError as exc:
                pytest.fail(f"{block.where}: not JSON: {exc}")


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(page: Path) -> list[tuple[int, str]]:
    found = []
    inside = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            inside = not inside
        elif not inside and (m := re.match(r"^(#{2,3}) (.+)$", line)):
            found.append((len(m.group(1)), m.group(2)))
    return found


@pytest.mark.parametrize(
    "page", [p for p in PAGES if p.parent.name == "docs"], ids=lambda p: p.name
)
def test_each_docs_page_has_a_table_of_contents(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    listed = re.findall(r"^ *- \[(.+?)\]\(#([^)]+)\)$", text.split("\n## ", 1)[0], re.MULTILINE)
    sections = [(title, anchor(title)) for level, title in headings(page) if level == 2]
    assert [(re.sub(r"`", "", t), a) for t, a in listed] == [
        (re.sub(r"`", "", t), a) for t, a in sections
    ], f"{page.name}: the contents list does not match its sections"


def test_top_level_await_is_explained_where_it_first_appears() -> None:
    """A snippet that awaits at the top level fails pasted into a ``.py`` file: where a page
    first shows one, it says how to run it (the asyncio REPL, or ``asyncio.run``)."""
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for block in blocks(page):
            if block.language != "python" or "file" in block.options:
                continue
            try:
                compile(block.text, block.where, "exec")
            except SyntaxError:  # only top-level await (every block compiles with it)
                before = " ".join(" ".join(lines[: block.line]).split())  # lines rewrapped
                told = "python -m asyncio" in before or "asyncio.run(" in block.text
                assert told, f"{block.where}: awaits at the top level; say how to run it"
                break


def test_links_between_pages_resolve() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target, fragment in re.findall(r"\]\((?!https?:)([^)#\s]*)(?:#([^)\s]+))?\)", text):
            linked = (page.parent / target).resolve() if target else page
            assert linked.exists(), f"{page.name}: a link to {target}, which does not exist"
            if fragment and linked.suffix == ".md":
                anchors = {anchor(title) for _, title in headings(linked)}
                if linked == REPO / "README.md":
                    anchors |= {anchor(line[2:]) for line in linked.read_text().splitlines()
                                if line.startswith("# ")}  # fmt: skip
                assert fragment in anchors, f"{page.name}: no section #{fragment} in {linked.name}"


# ── running a page ────────────────────────────────────────────────────────────────────────


DRIVER = r"""
import ast, asyncio, contextlib, io, json, sys, traceback
protocol = sys.stdout
namespace = {"__name__": "__main__"}
loop = asyncio.new_event_loop()
for line in sys.stdin:
    block = json.loads(line)
    printed = io.StringIO()
    try:
        code = compile(block["code"], block["name"], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        with contextlib.redirect_stdout(printed):
            result = eval(code, namespace)
            if asyncio.iscoroutine(result):
                loop.run_until_complete(result)
        answer = {"ok": True, "printed": printed.getvalue()}
    except BaseException:
        answer = {"ok": False, "printed": printed.getvalue(), "error": traceback.format_exc()}
    protocol.write(json.dumps(answer) + "\n")
    protocol.flush()
"""


class PythonSession:
    """One interpreter that runs blocks in a shared namespace, in a folder."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", DRIVER],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, block: Block) -> dict[str, object]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"code": block.text, "name": block.where}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"{block.where}: the interpreter ended"
        result: dict[str, object] = json.loads(answer)
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=TIMEOUT)


def normalized(text: str, root: Path) -> str:
    """``text`` as the docs write it: timings, the page's folders and this Python."""
    # This Python by any of its names in its folder (a console script may run python3).
    here = re.escape(os.path.dirname(sys.executable))
    text = re.sub(rf"{here}/python[0-9.]*\b", PYTHON, text)
    text = text.replace(str(root / "repo"), f"{HOME}/tooldesign").replace(
        str(root / "scratch"), HOME
    )
    text = re.sub(r"\b\d+\.\d+s\b", "0.12s", text)
    text = re.sub(r'"duration_ms": [0-9.e-]+', '"duration_ms": 0.5', text)
    return text


def matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected``, a line ``...`` standing for any number of lines."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n"
        for line in expected.splitlines()
    )
    return re.fullmatch(pattern, actual) is not None


def commands(block: Block) -> Iterator[tuple[str, str]]:
    """A ``console`` block's ``$ command`` lines, each with the output it shows."""
    command: list[str] = []
    output: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command:
                yield "\n".join(command), "".join(f"{o}\n" for o in output)
            command, output = [line[2:]], []
        elif command and command[-1].endswith("\\") and not output:
            command.append(line)
        else:
            output.append(line)
    if command:
        yield "\n".join(command), "".join(f"{o}\n" for o in output)


class Page:
    """The folders, interpreters and environment one page's blocks run in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Commands run as on a normal shell whatever this run's environment: standard output
        # buffered when piped (a command flushes it before writing to standard error, or the
        # two streams come out in another order than a terminal shows them).
        self.env = {
            **{key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"},
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONDONTWRITEBYTECODE": "1",
            "COLUMNS": "100",
            "NO_COLOR": "1",
        }
        self.sessions: dict[Path, PythonSession] = {}

    def folder(self, block: Block) -> Path:
        context = block.options.get("in", "repo")
        base = self.root / context
        if not base.exists():
            base.mkdir(parents=True)
            if context == "repo":
                for part in ("design", "gen", "examples"):
                    shutil.copytree(REPO / part, base / part)
            elif context != "scratch":
                pytest.fail(f"{block.where}: no folder in={context}")
        return base / block.options.get("cwd", ".")

    def run(self, block: Block, output: Block | None) -> None:
        folder = self.folder(block)
        if "file" in block.options:  # the block is a file to write, which later blocks use
            path = folder / block.options["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.text, encoding="utf-8")
        elif block.language == "python":
            session = self.sessions.get(folder)
            if session is None:
                session = self.sessions[folder] = PythonSession(folder, self.env)
            answer = session.run(block)
            assert answer["ok"], f"{block.where} failed:\n{answer['error']}"
            if output is not None:
                self.compare(output, str(answer["printed"]), folder)
        elif block.language == "sh":
            done = subprocess.run(
                ["bash", "-e", "-c", block.text],
                cwd=folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
            assert done.returncode == 0, f"{block.where} failed:\n{done.stdout}{done.stderr}"
        else:
            script = "".join(
                f"{command}\nprintf '\\n@@@ %s\\n' $?\n" for command, _ in commands(block)
            )
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
            printed = re.split(r"\n?\n@@@ \d+\n", done.stdout)
            for (command, expected), actual in zip(commands(block), printed, strict=False):
                actual = normalized(actual + "\n" if actual else "", self.root)
                assert matches(expected, actual), (
                    f"{block.where}: `{command}` printed:\n{actual}\nnot:\n{expected}"
                )

    def compare(self, output: Block, printed: str, folder: Path) -> None:
        actual = normalized(printed, self.root)
        assert matches(output.text, actual), (
            f"{output.where}: the block above printed:\n{actual}\nnot:\n{output.text}"
        )

    def close(self) -> None:
        for session in self.sessions.values():
            session.close()


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_runnable_blocks_run(page: Path, tmp_path: Path) -> None:
    found = blocks(page)
    runner = Page(tmp_path)
    try:
        for i, block in enumerate(found):
            if not block.runs:
                continue
            after = found[i + 1] if i + 1 < len(found) else None
            output = after if after is not None and "output" in after.flags else None
            runner.run(block, output)
    finally:
        runner.close()
