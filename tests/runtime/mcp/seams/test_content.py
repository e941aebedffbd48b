"""Where resource templates meet completion and hostile URIs (``tooldesign.runtime.mcp.content``):
what completion offers reads back as that value, and a variable is one path segment, whatever
the URI's escapes say. The SDK's client in memory."""

from __future__ import annotations

from typing import Literal

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import ToolServer
from tooldesign.runtime.mcp.content import ResourceTemplate, ServerContent

pytestmark = pytest.mark.anyio

TEMPLATE = "docs://{kind}/{doc_id}"


class Address(BaseModel):
    kind: Literal["release notes", "runbooks"]
    doc_id: str


@pytest.fixture
def read() -> list[Address]:
    return []


@pytest.fixture
def server(read: list[Address]) -> ToolServer:
    def document(address: Address) -> str:
        read.append(address)
        return f"{address.kind}: {address.doc_id}"

    served = ToolServer(Runtime([]))
    template = ResourceTemplate(TEMPLATE, "document", "A document", document, Address)
    ServerContent(templates=[template]).serve_on(served)
    return served


def expanded(kind: str, doc_id: str) -> str:
    """The URI a client builds from the template (RFC 6570 simple expansion)."""
    from urllib.parse import quote

    return f"docs://{quote(kind, safe='')}/{quote(doc_id, safe='')}"


async def test_a_completed_value_reads_back_as_that_value(
    server: ToolServer, read: list[Address]
) -> None:
    # Before: completion offered "release notes", and the URI a client expands from it
    # (docs://release%20notes/…) was refused: the server matched the escapes, not the value.
    async with Client(server.server) as client:
        ref = types.ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
        offered = await client.complete(ref, {"name": "kind", "value": "rel"})
        [kind] = offered.completion.values
        answer = await client.read_resource(expanded(kind, "Café 2026"))
    assert isinstance(answer.contents[0], types.TextResourceContents)
    assert answer.contents[0].text == "release notes: Café 2026"
    assert read == [Address(kind="release notes", doc_id="Café 2026")]


@pytest.mark.parametrize(
    "uri",
    [
        "docs://runbooks/..",
        "docs://runbooks/.",
        "docs://runbooks/%2E%2E",
        "docs://runbooks/..%2F..%2Fetc%2Fpasswd",
        "docs://runbooks/a%2Fb",
        "docs://runbooks/a%00b",
        "docs://runbooks/line%0Abreak",
        "docs://runbooks/%FF%FE",
    ],
)
async def test_a_variable_that_is_not_one_segment_is_refused_naming_it(
    server: ToolServer, read: list[Address], uri: str
) -> None:
    # Before: "..", "..%2F..%2Fetc%2Fpasswd" and NUL reached the handler as the document's id.
    async with Client(server.server) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
    assert refused.value.error.code == types.INVALID_PARAMS
    assert "doc_id: one path segment" in refused.value.error.message
    assert read == []


@pytest.mark.parametrize(
    "uri", ["docs://runbooks/x?y=1", "docs://runbooks/x#top", "DOCS://runbooks/x"]
)
async def test_a_query_or_fragment_is_no_part_of_a_variable(
    server: ToolServer, read: list[Address], uri: str
) -> None:
    # Before: docs://runbooks/x?y=1 read the document "x?y=1".
    async with Client(server.server) as client:
        with pytest.raises(MCPError, match="Resource not found"):
            await client.read_resource(uri)
    assert read == []


async def test_a_huge_hostile_uri_is_answered_briefly(server: ToolServer) -> None:
    uri = "docs://runbooks/" + "..%2F" * 20_000
    async with Client(server.server) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
    assert len(refused.value.error.message) < 1_000
