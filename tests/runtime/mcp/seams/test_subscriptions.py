"""Where resource subscriptions meet many sessions and hostile clients
(``tooldesign.runtime.mcp.content``): a subscription lasts as long as its connection and names a
resource the server serves; one connection holds a bounded number. The SDK's client in memory,
on the handshake protocol (where ``resources/subscribe`` exists)."""

from __future__ import annotations

import gc

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import ToolServer
from tooldesign.runtime.mcp.content import (
    MAX_SUBSCRIPTIONS,
    Resource,
    ResourceTemplate,
    ServerContent,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:.* is removed as of 2026-07-28"),
]


class Page(BaseModel):
    page: str


def served() -> tuple[ToolServer, ServerContent]:
    server = ToolServer(Runtime([]))
    content = ServerContent(
        resources=[Resource("test://x", "x", "X", lambda: "x")],
        templates=[ResourceTemplate("pages://{page}", "page", "A page", lambda p: p.page, Page)],
    )
    content.serve_on(server)
    return server, content


def subscriptions(content: ServerContent) -> int:
    gc.collect()
    return sum(len(uris) for uris in content._subscribed.values())


async def test_a_connection_that_closes_leaves_no_subscription_behind() -> None:
    # Before: each URI a connection ever subscribed to stayed a key of the server's table
    # after the connection closed — from every session, for ever.
    server, content = served()
    for _ in range(3):
        async with Client(server.server, mode="legacy") as client:
            for n in range(50):
                await client.subscribe_resource(f"pages://p{n}")
            await client.subscribe_resource("test://x")
        assert subscriptions(content) == 0


async def test_only_what_the_server_serves_can_be_subscribed_to_and_only_so_much() -> None:
    server, content = served()
    updates: list[str] = []

    async def heard(message: object) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with Client(server.server, mode="legacy", message_handler=heard) as client:
        for uri in ("nothing://here", "pages://a/b", "pages://..%2Fsecret"):
            with pytest.raises(MCPError) as refused:
                await client.subscribe_resource(uri)
            assert refused.value.error.code == types.INVALID_PARAMS
        for n in range(MAX_SUBSCRIPTIONS):
            await client.subscribe_resource(f"pages://p{n}")
        await client.subscribe_resource("pages://p0")  # again: nothing new
        with pytest.raises(MCPError, match=f"{MAX_SUBSCRIPTIONS} resources already"):
            await client.subscribe_resource("test://x")
        await client.unsubscribe_resource("pages://p0")
        await client.subscribe_resource("test://x")
        await content.resource_updated("test://x")
        await content.resource_updated("pages://p0")  # unsubscribed
        await content.resource_updated("pages://p1")
        await client.send_ping()
    assert updates == ["test://x", "pages://p1"]
    assert subscriptions(content) == 0
