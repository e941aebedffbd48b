"""The fixtures every test may ask for: write a design, generate it, import what was generated.

Helpers that are not fixtures live in ``tests/support/`` (``from tests.support.generated
import Generated``…), each module named for what it helps with.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from tooldesign.generate import generate

from tests.support.design import DSL_IMPORT, WriteDesign
from tests.support.generated import Generated

_counter = itertools.count()

# A gate must not fail on examples it never tried before: with CI set, each property test walks
# the same examples every run. Runs without it explore new ones (pass a seed to replay one).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """tooldesign's cache (a design's compiled code) goes to a folder of the run's own, not the
    home folder of whoever runs the tests; subprocesses inherit it."""
    from tooldesign.eval.bytecode import CACHE_DIR_ENV

    saved = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(tmp_path_factory.mktemp("tooldesign-cache"))
    yield
    if saved is None:
        os.environ.pop(CACHE_DIR_ENV, None)
    else:
        os.environ[CACHE_DIR_ENV] = saved


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (``pytest.mark.anyio``) run on asyncio, as the runtime does: anyio's own
    fixture would run them once on each backend installed."""
    return "asyncio"


@pytest.fixture
def write_design(tmp_path: Path) -> WriteDesign:
    """Write a design file into the test's folder: the DSL's import line (or ``imports``), then
    ``source`` dedented; ``name`` may name a subfolder (``elsewhere/design.py``)."""

    def write(source: str, name: str = "design.py", *, imports: str = DSL_IMPORT) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(imports + textwrap.dedent(source), encoding="utf-8")
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
