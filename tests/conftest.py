"""Shared helpers: write a design, generate it, import what was generated."""

from __future__ import annotations

import importlib
import itertools
import os
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings
from tooldesign.codegen.pipeline import Report, generate
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.errors import DesignError, DesignIssue

_counter = itertools.count()

# A gate must not fail on examples it never tried before: with CI set, each property test walks
# the same examples every run. Runs without it explore new ones (pass a seed to replay one).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


class Generated:
    """A design generated into a temporary folder, importable under a unique package name."""

    def __init__(self, root: Path, package: str, report: Report) -> None:
        self.root = root
        self.package = package
        self.report = report

    @property
    def out(self) -> Path:
        return self.root / self.package

    def module(self, dotted: str) -> ModuleType:
        """``svc.toolsets.ts.codecs`` → that generated module."""
        return importlib.import_module(f"{self.package}.{dotted}")


@pytest.fixture
def write_design(tmp_path: Path) -> Callable[[str, str], Path]:
    def write(text: str, name: str = "design.py") -> Path:
        path = tmp_path / "designs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def gen_design(tmp_path: Path) -> Iterator[Callable[[str], Generated]]:
    """Generate a design text and make the output importable (cleaned up after the test)."""
    added: list[str] = []

    def run(text: str) -> Generated:
        n = next(_counter)
        design = tmp_path / f"design_{n}.py"
        design.write_text(textwrap.dedent(text), encoding="utf-8")
        package = f"tdgen_{n}_{tmp_path.name.replace('-', '_')}"
        root = tmp_path / f"root_{n}"
        report = generate([str(design)], root / package)
        sys.path.insert(0, str(root))
        added.append(str(root))
        importlib.invalidate_caches()
        return Generated(root, package, report)

    yield run
    for entry in added:
        if entry in sys.path:
            sys.path.remove(entry)
    for name in [m for m in sys.modules if m.startswith("tdgen_")]:
        del sys.modules[name]


# ── one tool bound to application code ───────────────────────────────────────────────────────

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
