"""The runtime's two faces: ``tooldesign.runtime`` for users, ``tooldesign.runtime.support`` for
generated code."""

from __future__ import annotations

import ast
import re

from tooldesign import runtime
from tooldesign.runtime import support

from tests.support import REPO

SUPPORT_IMPORT = "from tooldesign.runtime import support as rt"


def _names_codegen_writes() -> set[str]:
    """Every ``rt.<name>`` generated code can use: in the templates and in the code codegen builds."""
    found: set[str] = set()
    for path in (REPO / "tooldesign" / "codegen").rglob("*"):
        if path.suffix in (".j2", ".py"):
            found.update(re.findall(r"\brt\.([A-Za-z_]\w*)", path.read_text(encoding="utf-8")))
    return found


def test_the_support_module_holds_exactly_what_generated_code_uses() -> None:
    assert sorted(support.__all__) == sorted(_names_codegen_writes())
    assert all(hasattr(support, name) for name in support.__all__)


def test_generated_modules_import_the_support_module_only() -> None:
    for gen in (REPO / "gen", REPO / "tooldesign" / "builtin" / "gen"):
        for path in gen.rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "rt." in text:
                assert SUPPORT_IMPORT in text, path
            assert "from tooldesign import runtime" not in text, path


def test_the_user_api_is_what_users_write() -> None:
    assert all(hasattr(runtime, name) for name in runtime.__all__)
    # Plumbing lives elsewhere (support, validation, text, errors, runtime.runtime).
    plumbing = {
        "handler_invoke",
        "in_worker_thread",
        "bound_service",
        "check_registration",
        "Outcome",
        "Invoke",
        "ToolBinding",
        "WorkerThreadInvoke",
        "cancelled_before_start",
        "PayloadCodec",
        "ResultCodec",
        "Decoded",
        "quoted",
        "MAX_ISSUES",
        "bounds_problems",
        "DEFAULT_WORKER_THREADS",
    }
    assert not plumbing & set(runtime.__all__)
    # What the README, the docs and the example application import from it is there.
    pages = [REPO / "README.md", *(REPO / "docs").glob("*.md")]
    sources = [*pages, *(REPO / "examples").rglob("*.py")]
    imported: set[str] = set()
    for path in sources:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".md":
            blocks = re.findall(r"```python[^\n]*\n(.*?)```", text, re.DOTALL)
            text = "\n".join(b for b in blocks if "tooldesign.runtime import" in b)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module == "tooldesign.runtime":
                imported.update(alias.name for alias in node.names)
    assert imported and imported <= set(runtime.__all__)


def test_every_name_of_the_user_api_is_taught_by_the_docs() -> None:
    page = (REPO / "docs" / "runtime.md").read_text(encoding="utf-8")
    start = page.index("`tooldesign.runtime` holds what application code writes")
    paragraph = page[start : page.index("\n\n", start)]
    taught = set(re.findall(r"`(\w+)`", paragraph))
    assert set(runtime.__all__) <= taught
