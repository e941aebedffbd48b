"""The code-first tool modules ``tooldesign import python`` is tested on, and writing more."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "import_python"


CASES = {
    "mcp_weather": [],
    "langchain_style": [],
    "rest_stubs": ["--all"],
    "numpy_google": [],
    "pydantic_ai_style": [],
    "openai_agents_style": [],
    "mcp_constants": [],
    "mcp_annotated": [],
    "langchain_classes": [],
    "smolagents_classes": [],
    "llamaindex_tools": ["--all"],
}


def write(tmp_path: Path, source: str, name: str = "tools.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).strip("\n") + "\n")
    return path
