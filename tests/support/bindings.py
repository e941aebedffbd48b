"""Designs whose one tool is bound to application code, and the issue a bad binding reports."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.errors import DesignError, DesignIssue


class AppWriter(Protocol):
    """The ``write_app`` fixture (tests/binding/conftest.py): writes ``name.py`` from ``source``
    and imports it (or leaves that to the design)."""

    def __call__(self, name: str, source: str, *, imported: bool = True) -> Any: ...


_BOUND_TOOL_DESIGN = """\
from tooldesign.dsl import *
import {module}

with Service("s", "A service"):
    with Toolset("t", "A toolset"):
        with Tool("lookup", "Look things up"):
            with Args():
{args}
            with Return():
{result}
            BindTo({module}.{target})  # <-- bind
"""


def bound_tool_design(module: str, target: str, *, args: str, result: str) -> str:
    """A design whose one tool, ``lookup``, takes ``args`` and returns ``result`` (DSL lines) and
    is bound to ``module.target``; its BindTo line is marked ``# <-- bind``."""

    def block(lines: str) -> str:
        return textwrap.indent(textwrap.dedent(lines).strip(), " " * 16)

    return _BOUND_TOOL_DESIGN.format(
        module=module, target=target, args=block(args), result=block(result)
    )


def bind_issue(design: Path, fragments: Iterable[str]) -> DesignIssue:
    """The one issue evaluating ``design`` reports: on the BindTo of tool ``lookup``, naming each
    of ``fragments``."""
    with pytest.raises(DesignError) as caught:
        evaluate([str(design)])
    [issue] = caught.value.issues
    for fragment in fragments:
        assert fragment in issue.message, issue.message
    assert issue.path == 'service "s" › toolset "t" › tool "lookup" › bind'
    return issue
