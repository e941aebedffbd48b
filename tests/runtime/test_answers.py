"""Every failure a model reads is written by one module, ``tooldesign/runtime/answers.py``: the
call path, the interceptors that ship, the MCP client and the transports ask it for their
answers, and none builds a failed result, a retry hint or an error of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGE = REPO / "tooldesign"
ANSWERS = PACKAGE / "runtime" / "answers.py"
WRITERS = {"ToolError", "RetryHint"}
"""What a failure is written with: every construction of these is an answer."""


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "gen" not in p.relative_to(PACKAGE).parts)


def _called(node: ast.Call) -> tuple[str | None, str | None]:
    """The name a call calls, and the name it is an attribute of (``ToolResult.failure``)."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id, None
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        return func.attr, owner
    return None, None


def _answers_written(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name, owner = _called(node)
        failed_result = name == "ToolResult" and any(k.arg == "error" for k in node.keywords)
        if name in WRITERS or failed_result or (name, owner) == ("failure", "ToolResult"):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_failures_are_written_by_the_answers_module_only() -> None:
    # ToolResult.failure is the constructor the application's own handlers and interceptors
    # use (it is defined in result.py, and tooldesign itself never calls it).
    allowed = {PACKAGE / "runtime" / "result.py": ["ToolError(message, cause=cause)"]}
    written: list[str] = []
    for path in _sources():
        if path == ANSWERS:
            continue
        found = _answers_written(path)
        expected = allowed.get(path, [])
        written.extend(f for f in found if not any(e in f for e in expected))
    assert not written


def test_the_check_finds_a_failure_written_elsewhere(tmp_path: Path) -> None:
    module = tmp_path / "rogue.py"
    module.write_text(
        "def answer(name):\n"
        "    return ToolResult(name, error=ToolError('no'), retry_hint=RetryHint('x', name, 'no'))\n"
    )
    assert len(_answers_written(module)) == 3


@pytest.mark.parametrize(
    "name",
    [
        "unknown_tool",
        "invalid_arguments",
        "context_missing",
        "tool_refused",
        "tool_crashed",
        "malformed_response",
        "awaiting_approval",
        "approval_denied",
        "timed_out",
        "rate_limited",
        "result_too_large",
        "no_worker",
        "queue_full",
        "no_answer",
        "outcome_unknown",
    ],
)
def test_each_failure_the_issue_lists_has_its_answer(name: str) -> None:
    from tooldesign.runtime import answers

    assert callable(getattr(answers, name))
