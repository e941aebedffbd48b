"""The stages depend on each other in one direction: the IR on no later stage, evaluation on
code generation only for the names it gives the IR."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tooldesign"


def _imports(path: Path) -> set[str]:
    """Every tooldesign module ``path`` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("tooldesign.")}


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _modules("ir"), ids=lambda p: p.name)
def test_the_ir_depends_on_no_later_stage(path: Path) -> None:
    later = ("tooldesign.eval", "tooldesign.binding", "tooldesign.codegen")
    assert not {name for name in _imports(path) if name.startswith(later)}


@pytest.mark.parametrize("path", _modules("eval"), ids=lambda p: p.name)
def test_evaluation_uses_code_generation_only_for_names(path: Path) -> None:
    codegen = {name for name in _imports(path) if name.startswith("tooldesign.codegen")}
    assert all(name.startswith("tooldesign.codegen.naming") for name in codegen), codegen


def test_naming_is_a_leaf() -> None:
    assert _imports(PACKAGE / "codegen" / "naming.py") == set()
