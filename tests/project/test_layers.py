"""The package map, enforced: which package may import which (the architecture guide's diagram as
data), no import circle anywhere, and files that stay small.

Every import counts, at a module's top, inside a function (lazy) or for type checkers only: a
lazy import is still an arrow between two packages, and a circle through one is still a circle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGE = REPO / "tooldesign"

BASE = {"contract", "jsonschema", "runtime"}
"""What generated code and applications import: the contracts, the JSON Schema dialect, the
runtime. Everything else of tooldesign builds or reads designs."""

ALLOWED: dict[str, set[str]] = {
    # the base, bottom up: the dialect, the contracts stated in its words, the runtime
    "jsonschema": set(),
    "contract": {"jsonschema"},
    "runtime": {"contract", "jsonschema"},
    # the stages a design flows through
    "dsl": {"contract"},
    "ir": {"contract", "jsonschema"},
    "binding": {"contract", "jsonschema", "ir"},
    "eval": {"contract", "jsonschema", "runtime", "dsl", "ir", "binding", "tracebacks"},
    "codegen": {"contract", "jsonschema", "runtime", "ir", "binding"},
    "generate": {"contract", "ir", "eval", "codegen"},
    # toolsets that ship with tooldesign: designed with the DSL, generated onto the runtime
    "builtin": {"contract", "jsonschema", "runtime", "dsl"},
    # on top
    "govern": {"contract", "jsonschema", "runtime", "ir"},
    "docsite": {"contract", "jsonschema", "runtime", "govern"},
    "importers": {"contract", "jsonschema", "runtime", "codegen"},
    "tracebacks": {"contract"},
    "commands": {
        "contract",
        "jsonschema",
        "runtime",
        "ir",
        "eval",
        "codegen",
        "generate",
        "builtin",
        "govern",
        "docsite",
        "importers",
        "tracebacks",
    },
    "cli": {"contract", "ir", "commands", "tracebacks"},
    "__main__": {"cli"},
}
"""Each top-level package (or module) of tooldesign, and the others it may import."""

RUNTIME_HELPERS = ("tooldesign.runtime.text", "tooldesign.runtime.validation")
"""Runtime internals that the packages on top must not reach for: what they share with the
runtime about JSON Schema lives in ``jsonschema/``."""

MAX_LINES = 600
LARGER_FILES = {
    "govern/schemas.py": 1014,
    "binding/planner.py": 951,
    "importers/mcp.py": 799,
    "runtime/mcp/server.py": 691,
    "contract/catalog.py": 565,
    "codegen/bindings.py": 620,
}
"""Files over :data:`MAX_LINES` when the budget was set: each may only shrink."""


def _sources() -> list[Path]:
    """tooldesign's own modules (generated builtin packages are checked by generation)."""
    return sorted(p for p in PACKAGE.rglob("*.py") if "gen" not in p.relative_to(PACKAGE).parts)


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> Iterator[str]:
    """Every module ``path`` imports (and each name it imports from one), anywhere in it."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in _sources()}


def _resolve(name: str) -> str | None:
    """The tooldesign module an imported name is, or is defined in."""
    modules = _modules()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@cache
def _graph() -> dict[str, frozenset[str]]:
    """Module → the tooldesign modules it imports (a package's ``__init__`` counts as a module)."""
    graph: dict[str, frozenset[str]] = {}
    for name, path in _modules().items():
        targets = {
            target
            for imported in _imported(path)
            if imported.startswith("tooldesign.")
            and (target := _resolve(imported)) is not None
            and target != name
            # a module is always inside its packages: importing one of them is no arrow
            and not name.startswith(f"{target}.")
        }
        graph[name] = frozenset(targets)
    return graph


def _top(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def test_every_package_is_in_the_map() -> None:
    assert {_top(name) for name in _modules() if name != "tooldesign"} <= set(ALLOWED)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_the_map_allows(package: str) -> None:
    wrong = sorted(
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if _top(name) == package
        for target in targets
        if target != "tooldesign" and _top(target) not in ALLOWED[package] | {package}
    )
    assert not wrong


def test_there_is_no_import_circle() -> None:
    graph = _graph()
    circles = [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]
    assert not circles


def _strongly_connected(graph: dict[str, frozenset[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has hundreds of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in graph:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    groups.append(group)
    return groups


def test_the_circle_check_finds_a_circle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    assert [group for group in _strongly_connected(graph) if len(group) > 1] == [{"a", "b", "c"}]


@pytest.mark.parametrize("package", ["govern", "docsite", "importers"])
def test_the_packages_on_top_use_no_runtime_helper(package: str) -> None:
    used = sorted(
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if _top(name) == package
        for target in targets
        if target.startswith(RUNTIME_HELPERS) or "._" in target
    )
    assert not used


def test_the_runtime_never_imports_generated_code() -> None:
    imported = {
        target
        for name, path in _modules().items()
        if _top(name) == "runtime"
        for target in _imported(path)
    }
    assert not {name for name in imported if name.startswith(("tooldesign.builtin", "gen."))}


def test_files_stay_within_their_size_budget() -> None:
    over = {}
    for path in _sources():
        relpath = path.relative_to(PACKAGE).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LARGER_FILES.get(relpath, MAX_LINES):
            over[relpath] = lines
    assert not over, f"over {MAX_LINES} lines (or their baseline): {over}"


def test_the_size_baselines_are_current() -> None:
    """A baseline file that shrank lowers its baseline, so that it cannot grow back in silence."""
    stale = {}
    for relpath, baseline in LARGER_FILES.items():
        path = PACKAGE / relpath
        lines = len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0
        if lines < baseline:
            stale[relpath] = lines
    assert not stale, (
        f"lower these baselines in LARGER_FILES (or drop those ≤ {MAX_LINES}): {stale}"
    )


FRAMEWORKS = {
    "pydantic_ai": "pydantic_ai.py",
    "agents": "openai_agents.py",
    "langchain_core": "langchain.py",
    "langgraph": "langchain.py",
}
"""Each agent framework and the one integration module that may import it."""


@pytest.mark.parametrize(
    "path", [p for p in _sources() if _top(_module_name(p)) == "runtime"], ids=lambda p: p.name
)
def test_an_agent_framework_is_imported_by_its_integration_only(path: Path) -> None:
    imported = {name.split(".")[0] for name in _imported(path)}
    allowed = {
        framework
        for framework, module in FRAMEWORKS.items()
        if path == PACKAGE / "runtime" / "integrations" / module
    }
    assert imported & set(FRAMEWORKS) <= allowed


@pytest.mark.slow
def test_importing_the_runtime_imports_no_agent_framework() -> None:
    probe = (
        "import sys, tooldesign.runtime, tooldesign.runtime.integrations; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FRAMEWORKS)!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == "[]"
