"""The fixtures every test may ask for: write a design, generate it, import what was generated;
and the run's summary of what did not run (slow tests a plain ``pytest`` leaves out, tests whose
system program is missing).

Each folder's ``conftest.py`` holds the fixtures of its own tests. Helpers that are not fixtures
live in ``tests/support/`` (``from tests.support.generated import Generated``…), each module
named for what it helps with.
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.design import DSL_IMPORT, WriteDesign
from tests.support.generated import Generator
from tests.support.programs import NOT_INSTALLED

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
def gen_design(tmp_path: Path) -> Iterator[Generator]:
    """Generate a design text and make the output importable (cleaned up after the test)."""
    generator = Generator(tmp_path)
    yield generator
    generator.close()


@pytest.fixture(scope="module")
def gen_design_for_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generator]:
    """``gen_design`` for a module's own fixtures: what it generates lasts for the module."""
    generator = Generator(tmp_path_factory.mktemp("gen"))
    yield generator
    generator.close()


# ── the run's summary ─────────────────────────────────────────────────────────────────────

_slow_left_out: list[pytest.Item] = []


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    _slow_left_out.extend(
        item
        for item in items
        if item.get_closest_marker("slow") and "not slow" in item.config.option.markexpr
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say what did not run and why: skips for a missing system program (by reason), and the
    slow tests a plain ``pytest`` deselects."""
    missing: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if NOT_INSTALLED in reason:
            missing[reason.removeprefix("Skipped: ")] += 1
    for reason, count in sorted(missing.items()):
        terminalreporter.write_line(f"{count} skipped: {reason}", yellow=True)
    if _slow_left_out:
        terminalreporter.write_line(
            f"{len(_slow_left_out)} slow test{'s' * (len(_slow_left_out) != 1)} not run (each "
            "starts a server, a process or a browser, or runs long): `pytest -m ''` runs "
            "everything, as CI does",
            yellow=True,
        )
