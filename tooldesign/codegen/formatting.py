"""Formatting: one ``ruff format`` run over every Python file a generation produced."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tooldesign.codegen.output import FormattingError

# Fixed settings, independent of any ruff configuration around the output folder, so the same
# design gives the same bytes wherever it is generated. No cache: generation leaves nothing in
# the current directory (a ``.ruff_cache``), and a cache would not help a one-off run anyway.
RUFF_FORMAT_ARGS = (
    "format",
    "--isolated",
    "--no-cache",
    "--line-length",
    "100",
    "--target-version",
    "py311",
    "--quiet",
)


def ruff_binary() -> str:
    from ruff import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def format_tree(root: Path) -> None:
    """Format every ``.py`` file below ``root`` in place, in a single ruff process."""
    if not any(root.rglob("*.py")):
        return
    completed = subprocess.run(
        [ruff_binary(), *RUFF_FORMAT_ARGS, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip()
        raise FormattingError(f"ruff could not format the generated code:\n{detail}")


def format_source(text: str) -> str:
    """One Python source text, formatted with the same settings (through ruff's stdin)."""
    completed = subprocess.run(
        [ruff_binary(), *RUFF_FORMAT_ARGS, "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip()
        raise FormattingError(f"ruff could not format the code:\n{detail}")
    return completed.stdout
