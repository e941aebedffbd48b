"""Helpers shared by tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult

REPO = Path(__file__).resolve().parents[2]
"""The repository root."""

ALICE = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="call-1")
"""The metadata of a call a model makes in Alice's session."""


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` with its content (for before/after comparisons).

    Python's bytecode caches are left out: importing the generated packages writes them
    wherever ``PYTHONDONTWRITEBYTECODE`` is not set.
    """
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``tooldesign ARGV`` in this process: its exit code and what it printed to stderr, which
    never holds a traceback."""
    from tooldesign.cli import main

    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def call(
    runtime: Runtime, name: Any, payload: Any = "{}", meta: ToolCallMeta = ALICE, **options: Any
) -> ToolResult:
    """One call through ``runtime``, as an agent makes it (``execute_sync``; ``options`` go to
    it)."""
    return runtime.execute_sync(ToolRequest(name, payload, meta), **options)
