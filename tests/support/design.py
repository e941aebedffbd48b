"""Design files that fail: the issues they report, and the lines those issues point at."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.errors import DesignError, DesignIssue

ERROR = "# <-- error"

DSL_IMPORT = "from tooldesign.dsl import *  # noqa: F403\n"
"""The line a design written by ``write_design`` starts with, unless told otherwise."""


class WriteDesign(Protocol):
    """The ``write_design`` fixture (tests/conftest.py): writes ``imports`` then ``source``
    (dedented) to ``name`` in the test's own folder, and returns its path."""

    def __call__(
        self, source: str, name: str = "design.py", *, imports: str = DSL_IMPORT
    ) -> Path: ...


def line_of(path: Path, marker: str) -> int:
    """The 1-based line of ``path`` holding ``marker`` (which must occur exactly once)."""
    hits = [n for n, text in enumerate(path.read_text().splitlines(), 1) if marker in text]
    assert len(hits) == 1, f"marker {marker!r} found on lines {hits}"
    return hits[0]


def design_issues(path: Path) -> tuple[DesignIssue, ...]:
    """Evaluate the design at ``path``, which must fail, and return every issue reported."""
    with pytest.raises(DesignError) as excinfo:
        evaluate([str(path)])
    return excinfo.value.issues


def single_issue(path: Path) -> DesignIssue:
    """The one issue the design at ``path`` reports (a second one would be a cascade)."""
    issues = design_issues(path)
    assert len(issues) == 1, "expected exactly one issue, got:\n" + "\n".join(map(str, issues))
    return issues[0]


def assert_at(issue: DesignIssue, path: Path, marker: str = ERROR) -> None:
    """``issue`` is located in the design file at ``path``, on the line holding ``marker``."""
    assert issue.location is not None, f"issue has no location: {issue}"
    assert Path(issue.location.file).resolve() == path.resolve()
    assert issue.location.line == line_of(path, marker), str(issue)
