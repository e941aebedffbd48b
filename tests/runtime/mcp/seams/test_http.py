"""Where a real HTTP server meets a client that goes away mid-call: one that drops the stream of
its call's answer has its call run to its end, once; one that ends its session has its call
cancelled; either way the call ends, once (uvicorn on 127.0.0.1, a raw client on the handshake
protocol's stateful sessions)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from tooldesign.runtime.control.events import CallFinished

from tests.runtime.mcp.seams.helpers import Served
from tests.runtime.mcp.test_server import serving

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def message(method: str, id_: int | None = None, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        body["id"] = id_
    return body


@pytest.mark.parametrize("how", ["closes the stream", "ends its session"])
async def test_a_client_gone_mid_call_leaves_the_call_to_end_once(
    served: Served, effects: list[str], how: str
) -> None:
    finished: list[CallFinished] = []
    subscription = served.server.runtime.subscribe(
        lambda e: finished.append(e) if isinstance(e, CallFinished) else None
    )
    async with serving(served.server.streamable_http_app()) as url, httpx.AsyncClient() as http:
        hello = message(
            "initialize",
            1,
            protocolVersion="2025-11-25",
            capabilities={},
            clientInfo={"name": "seams", "version": "1"},
        )
        opened = await http.post(url, json=hello, headers=HEADERS)
        session = {**HEADERS, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        session["MCP-Protocol-Version"] = "2025-11-25"
        await http.post(url, json=message("notifications/initialized"), headers=session)
        call = message("tools/call", 2, name="slow_archive", arguments={"label": "x"})
        async with http.stream("POST", url, json=call, headers=session) as answer:
            assert answer.status_code == 200
            await asyncio.sleep(0.1)  # the call runs; the client goes away before its answer
        if how == "ends its session":
            await http.delete(url, headers=session)
        for _ in range(100):
            if finished:
                break
            await asyncio.sleep(0.05)
    subscription.close()
    assert [e.tool for e in finished] == ["seams.jobs.slow_archive"]  # it ended, once
    if how == "closes the stream":  # the session lives on: its call runs to its end
        assert finished[0].ok and effects == ["archived x"]
    else:  # the session ended: its calls are cancelled, before this one's effect
        assert not finished[0].ok and effects == []
