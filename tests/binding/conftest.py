"""Fixtures of the binding tests: the application module a design binds its tools to."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.bindings import AppWriter


@pytest.fixture
def write_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppWriter]:
    """Write an application module next to the designs and import it, or with ``imported=False``
    leave the importing to the design; either way it is forgotten afterwards, so no other test's
    design imports it by its name."""
    monkeypatch.syspath_prepend(str(tmp_path))
    names: list[str] = []

    def write(name: str, source: str, *, imported: bool = True) -> ModuleType | None:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        names.append(name)
        sys.modules.pop(name, None)
        return __import__(name) if imported else None

    yield write
    for name in names:
        sys.modules.pop(name, None)
