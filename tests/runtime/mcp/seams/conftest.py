"""The seams' server (tests/runtime/mcp/seams/test_*.py): the tools of ``design.py``, generated
once, served with tasks over the streamable-HTTP app in process, two bearer tokens; each tool
records its side effects in ``tools.EFFECTS``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from tooldesign.generate import generate
from tooldesign.runtime.mcp import BearerTokens, TaskStore

from tests.runtime.mcp.seams import tools
from tests.runtime.mcp.seams.helpers import ALICE, BOB, Caller, Served

DESIGN = "tests/runtime/mcp/seams/design.py"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    out = tmp_path_factory.mktemp("seams")
    generate([DESIGN], out)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("seams.toolsets.jobs.executor")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "seams" or n.startswith("seams.")]:
            del sys.modules[name]


@pytest.fixture(autouse=True)
def effects() -> Iterator[list[str]]:
    tools.EFFECTS.clear()
    yield tools.EFFECTS
    tools.EFFECTS.clear()


@pytest.fixture
def store() -> TaskStore:
    return TaskStore(limit=20)


@pytest.fixture
def options() -> dict[str, Any]:
    """The runtime's options (a test parametrizes them)."""
    return {}


@pytest.fixture
async def served(jobs: Any, store: TaskStore, options: dict[str, Any]) -> Served:
    return Served(jobs, store, **options)


@pytest.fixture
async def http(served: Served) -> AsyncIterator[httpx.AsyncClient]:
    app = served.server.streamable_http_app(
        token_verifier=BearerTokens({ALICE: "alice", BOB: "bob"})
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as http,
    ):
        yield http


@pytest.fixture
def wire(http: httpx.AsyncClient) -> Caller:
    return Caller(http, ALICE)
