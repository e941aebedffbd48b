"""Helpers shared by tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
"""The repository root."""


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
