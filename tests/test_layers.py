"""The stages depend on each other in one direction (dsl → eval → ir → binding → codegen →
runtime), on the contracts they share (``contract/``, the base), and never backwards."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGE = REPO / "tooldesign"


def _imports(path: Path) -> set[str]:
    """Every tooldesign module ``path`` imports, at its top or inside a function."""
    return {name for name in _all_imports(path) if name.startswith("tooldesign.")}


def _all_imports(path: Path) -> set[str]:
    """Every module ``path`` imports (and each name it imports from one), anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _within(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


@pytest.mark.parametrize("path", _modules("runtime"), ids=lambda p: p.name)
def test_the_runtime_depends_on_no_stage_that_uses_it(path: Path) -> None:
    above = tuple(
        f"tooldesign.{stage}"
        for stage in ("codegen", "eval", "binding", "importers", "commands", "govern", "docsite")
    )
    assert not {name for name in _imports(path) if _within(name, *above)}


@pytest.mark.parametrize("path", _modules("ir"), ids=lambda p: p.name)
def test_the_ir_depends_only_on_itself_and_the_contracts(path: Path) -> None:
    # The package root holds only tooldesign's version, which the IR's fingerprints include.
    allowed = ("tooldesign.ir", "tooldesign.contract", "pydantic")
    outside = {
        name
        for name in _all_imports(path)
        if name.split(".")[0] not in sys.stdlib_module_names
        and name != "tooldesign"
        and not _within(name, *allowed)
    }
    assert not outside


@pytest.mark.parametrize("path", _modules("contract"), ids=lambda p: p.name)
def test_the_contracts_depend_on_nothing_else_of_tooldesign(path: Path) -> None:
    assert {name for name in _imports(path) if not _within(name, "tooldesign.contract")} == set()


@pytest.mark.parametrize("path", _modules("eval"), ids=lambda p: p.name)
def test_evaluation_uses_code_generation_only_for_names(path: Path) -> None:
    codegen = {name for name in _imports(path) if name.startswith("tooldesign.codegen")}
    assert all(name.startswith("tooldesign.codegen.naming") for name in codegen), codegen


def test_naming_is_a_leaf() -> None:
    assert _imports(PACKAGE / "codegen" / "naming.py") == set()


FRAMEWORKS = {
    "pydantic_ai": "pydantic_ai.py",
    "agents": "openai_agents.py",
    "langchain_core": "langchain.py",
    "langgraph": "langchain.py",
}
"""Each agent framework and the one integration module that may import it."""


@pytest.mark.parametrize("path", _modules("runtime"), ids=lambda p: p.name)
def test_an_agent_framework_is_imported_by_its_integration_only(path: Path) -> None:
    imported = {name.split(".")[0] for name in _all_imports(path)}
    allowed = {
        framework
        for framework, module in FRAMEWORKS.items()
        if path == PACKAGE / "runtime" / "integrations" / module
    }
    assert imported & set(FRAMEWORKS) <= allowed


def test_importing_the_runtime_imports_no_agent_framework() -> None:
    probe = (
        "import sys, tooldesign.runtime, tooldesign.runtime.integrations; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FRAMEWORKS)!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == "[]"
