"""A design's compiled code is cached by the hash of its source: an unchanged design is not
compiled again, and an edited one (however soon, to whatever size) always generates what it now
says. Nothing is written beside the user's files, nor when Python is told not to write
bytecode."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tooldesign.eval import bytecode
from tooldesign.generate import generate

DESIGN = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("greet", "Greetings"):
        with Tool("hello", "Say hello"):
            with Args():
                Attribute("name", String, "Who to greet")
                Required("name")
            Return(String, "The greeting")
"""


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The design files compiled from source, in order, with a cache of the test's own."""
    monkeypatch.setenv(bytecode.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as most users run Python
    seen: list[str] = []

    def spy(source: Any, filename: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(filename)
        return compile(source, filename, *args, **kwargs)

    monkeypatch.setattr(bytecode, "compile", spy, raising=False)
    return seen


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def catalog(out: Path) -> str:
    return (out / "svc" / "tool_schemas.json").read_text(encoding="utf-8")


def test_an_unchanged_design_is_compiled_once(tmp_path: Path, compiled: list[str]) -> None:
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out")
    generate([str(design)], tmp_path / "out")
    assert compiled == [str(design.resolve())]
    assert not (tmp_path / "__pycache__").exists()  # nothing beside the design


def test_an_edit_in_the_same_second_to_the_same_size_is_seen(
    tmp_path: Path, compiled: list[str]
) -> None:
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out")
    stat = design.stat()
    write(design, DESIGN.replace('"Say hello"', '"Say howdy"'))
    os.utime(design, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time
    generate([str(design)], tmp_path / "out")
    assert "Say howdy" in catalog(tmp_path / "out")
    assert len(compiled) == 2


def test_a_damaged_cache_entry_is_compiled_again_and_replaced(
    tmp_path: Path, compiled: list[str]
) -> None:
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out")
    (entry,) = (tmp_path / "cache" / "designs").iterdir()
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2])  # cut short, as by a full disk
    generate([str(design)], tmp_path / "out")
    assert "Say hello" in catalog(tmp_path / "out")
    assert entry.read_bytes() == data
    generate([str(design)], tmp_path / "out")
    assert len(compiled) == 2


def test_nothing_is_cached_when_python_is_told_not_to_write_bytecode(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE, -B
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out")
    generate([str(design)], tmp_path / "out")
    assert len(compiled) == 2
    assert not (tmp_path / "cache").exists()


def test_a_cache_folder_that_cannot_be_written_is_skipped(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = write(tmp_path / "not-a-folder", "a file where the cache folder would be\n")
    monkeypatch.setenv(bytecode.CACHE_DIR_ENV, str(blocked))
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out")
    assert "Say hello" in catalog(tmp_path / "out")


def test_check_caches_nothing(tmp_path: Path, compiled: list[str]) -> None:
    design = write(tmp_path / "design.py", DESIGN)
    generate([str(design)], tmp_path / "out", check=True)
    assert not (tmp_path / "cache").exists()  # --check writes nothing anywhere
