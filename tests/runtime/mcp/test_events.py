"""The in-memory event store that lets SSE streams resume: what it replays, what it forgets,
and a real client resuming through ``serve-mcp``'s app."""

from __future__ import annotations

import pytest
from mcp import types
from mcp.server.streamable_http import EventMessage
from tooldesign.runtime.mcp import MemoryEventStore

pytestmark = pytest.mark.anyio


def message(n: int) -> types.JSONRPCMessage:
    return types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/progress", params={"n": n}
    )


async def replayed(store: MemoryEventStore, after: str) -> tuple[str | None, list[str | None]]:
    sent: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        sent.append(event)

    stream = await store.replay_events_after(after, send)
    return stream, [e.event_id for e in sent]


async def test_replays_what_came_after_on_that_stream_only() -> None:
    store = MemoryEventStore()
    priming = await store.store_event("a", None)
    first = await store.store_event("a", message(1))
    other = await store.store_event("b", message(2))
    second = await store.store_event("a", message(3))
    assert await replayed(store, priming) == ("a", [first, second])
    assert await replayed(store, first) == ("a", [second])
    assert await replayed(store, other) == ("b", [])
    assert await replayed(store, "no such event") == (None, [])


async def test_keeps_the_most_recent_events_within_its_bounds() -> None:
    store = MemoryEventStore(max_events=3, max_per_stream=2)
    ids = [await store.store_event("a", message(n)) for n in range(3)]
    assert store.size() == 2  # the stream's own bound
    assert await replayed(store, ids[0]) == (None, [])  # forgotten: nothing to replay
    assert await replayed(store, ids[1]) == ("a", [ids[2]])
    for n in range(3):
        await store.store_event(f"s{n}", message(n))
    assert store.size() == 3
    assert await replayed(store, ids[2]) == (None, [])


def test_bounds_must_keep_something() -> None:
    with pytest.raises(ValueError, match="at least one"):
        MemoryEventStore(max_events=0)


async def test_an_app_with_a_store_primes_each_stream_with_an_id_and_a_retry_interval() -> None:
    import httpx
    from tooldesign.runtime.mcp import mcp_server

    from examples.netops.mcp_server import runtime

    store = MemoryEventStore()
    app = mcp_server(runtime()).streamable_http_app(event_store=store, retry_interval=1000)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as client,
    ):
        answer = await client.post("/mcp", headers=headers, json=initialize)
    first = answer.text.split("\n\n")[0]
    assert "retry: 1000" in first and "id: " in first  # the priming event
    assert store.size() == 2  # the priming event and the answer, to replay
