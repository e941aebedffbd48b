"""Spilled results across a Redis worker: the worker's runtime spills, the agent's read_result
reads the same store (``RedisResultStore``), and the handle stays scoped to its run."""

from __future__ import annotations

import asyncio
import json
import re
import time
from types import ModuleType
from typing import Any

import pytest
from tooldesign.builtin.results import results_registration
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest
from tooldesign.runtime.spill import SpilledResult
from tooldesign.runtime.transports import RedisResultStore, remote_registration
from tooldesign.runtime.transports.redis import RedisTransport

from tests.runtime.test_spill import DESIGN, _rows, _text
from tests.support.generated import Generator
from tests.support.redis import RedisServer, running_worker

pytestmark = pytest.mark.slow  # a Redis server, a worker

RUN = ToolCallMeta(run_id="run-r", tool_call_id="c-1")


@pytest.fixture(scope="module")
def spl(gen_design_for_module: Generator) -> Any:
    return gen_design_for_module(DESIGN)


def test_a_worker_spills_and_the_agent_reads_it_back(
    redis_server: RedisServer, prefix: str, spl: Any
) -> None:
    executor: ModuleType = spl.module("spl.toolsets.t.executor")
    specs = spl.module("spl.toolsets.t.specs").SPECS
    url = redis_server.url
    handlers = {"rows": _rows, "cut_rows": _rows, "essay": _text, "strict_text": _text}

    async def main() -> tuple[Any, Any, Any, Any]:
        transport = RedisTransport(url, prefix=prefix)
        agent_store = RedisResultStore(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(specs, transport=transport, timeout=20)],
            result_store=agent_store,
        )
        agent.register(results_registration(agent))
        worker_runtime = Runtime(
            [executor.new_registration(handlers=handlers)],
            result_store=RedisResultStore(url, prefix=prefix),
        )
        try:
            async with running_worker(worker_runtime, url, prefix):
                spilled = await agent.execute(ToolRequest("rows", {"size": 500}, RUN))
                handle = re.findall(r'handle="(res_[^"]+)"', spilled.for_model())[0]
                piece = await agent.execute(
                    ToolRequest(
                        "read_result", {"handle": handle, "path": "rows", "offset": 10}, RUN
                    )
                )
                other = ToolCallMeta(run_id="run-other", tool_call_id="c-2")
                foreign = await agent.execute(
                    ToolRequest("read_result", {"handle": handle, "path": "rows"}, other)
                )
                await agent_store.put(SpilledResult("res_gone", "x.y.z", None, "1", time.time()))
                await asyncio.sleep(0.01)
                gone = await agent_store.get("res_gone")
                return spilled, piece, foreign, gone
        finally:
            await transport.close()

    spilled, piece, foreign, gone = asyncio.run(main())
    assert spilled.ok and len(spilled.for_model().encode()) <= 2000
    assert "read_result(handle=" in spilled.for_model()
    assert piece.ok, piece.for_model()
    data = json.loads(piece.for_model())
    assert data["offset"] == 10 and data["value"][0]["id"] == 10 and data["total"] == 500
    assert not foreign.ok and "no result with the handle" in foreign.for_model()
    assert gone is None  # expired on Redis's clock
