"""A tool argument the design mirrors in an ``Mcp-Param-*`` HTTP header
(``Attribute(..., header="Region")``, MCP 2026-07-28's ``x-mcp-header``): ``tools/list`` marks
the property, and a streamable-HTTP call whose header is missing, malformed or disagrees with
its argument is refused with HTTP 400 and -32020 naming both, before the tool runs."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from mcp import Client
from tooldesign.contract.catalog import CATALOG_NAME
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import mcp_server
from tooldesign.runtime.providers import export_tools

from tests.support.generated import Generated

pytestmark = pytest.mark.anyio

ROUTED = """
from tooldesign.dsl import *  # noqa: F403

with Service("geo", "Routing"):
    with Toolset("routes", "Routes"):
        with Tool("route", "Route a request"):
            with Args():
                Attribute("region", String, "Where to route", header="Region")
                Attribute("shard", Int, "Which shard", header="Shard")
                Attribute("dry_run", Boolean, "Only try", header="Dry-Run")
                Attribute("note", String, "Free text, not mirrored")
                Required("region")
            Return(String, "Where it went")
"""

RAN: list[dict[str, Any]] = []


def route(args: Any, meta: Any) -> str:
    RAN.append(args.model_dump(exclude_none=True))
    return f"routed to {args.region}"


@pytest.fixture
def generated(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(ROUTED)


@pytest.fixture
def runtime(generated: Generated) -> Runtime:
    RAN.clear()
    executor = generated.module("geo.toolsets.routes.executor")
    return Runtime([executor.new_registration(handlers={"route": route})])


@pytest.fixture
async def http(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = mcp_server(runtime).streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as client,
    ):
        yield client


async def call(
    http: httpx.AsyncClient, arguments: dict[str, Any], **headers: str
) -> httpx.Response:
    sent = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "route",
        **{f"Mcp-Param-{name.replace('_', '-')}": value for name, value in headers.items()},
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "route", "arguments": arguments, "_meta": meta},
    }
    return await http.post("/mcp", json=body, headers=sent)


async def test_the_listing_marks_each_mirrored_argument(runtime: Runtime) -> None:
    async with Client(mcp_server(runtime).server) as client:
        [tool] = (await client.list_tools()).tools
    properties = tool.input_schema["properties"]
    assert {name: p.get("x-mcp-header") for name, p in properties.items()} == {
        "region": "Region",
        "shard": "Shard",
        "dry_run": "Dry-Run",
        "note": None,
    }


def test_the_catalog_carries_it_and_strict_exports_leave_it_out(generated: Generated) -> None:
    spec = generated.module("geo.toolsets.routes.specs").ROUTE_SPEC
    catalog = json.loads((generated.out / "geo" / "toolsets" / "routes" / CATALOG_NAME).read_text())
    [entry] = catalog["tools"]
    assert entry["payload"]["schema"]["properties"]["region"]["x-mcp-header"] == "Region"
    assert entry["payload"]["schema"] == spec.payload.schema
    for provider in ("openai", "anthropic", "gemini"):  # it means nothing to a model
        [tool] = export_tools([spec], provider=provider, strict=provider != "gemini")
        assert "x-mcp-header" not in json.dumps(tool), provider


async def test_matching_headers_run_the_call(http: httpx.AsyncClient) -> None:
    answer = await call(
        http,
        {"region": "eu west", "shard": 3, "dry_run": True},
        # A value that is no header token travels base64-encoded; numbers compare as numbers.
        Region="=?base64?" + base64.b64encode(b"eu west").decode() + "?=",
        Shard="3.0",
        Dry_Run="true",
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["structuredContent"] == {"result": "routed to eu west"}
    assert RAN == [{"region": "eu west", "shard": 3, "dry_run": True}]


@pytest.mark.parametrize(
    ("arguments", "headers", "said"),
    [
        (
            {"region": "eu"},
            {"Region": "us"},
            "Mcp-Param-Region header does not match the request body's 'region' argument",
        ),
        (
            {"region": "eu"},
            {},
            "Mcp-Param-Region header is missing but the request body's 'region' argument is present",
        ),
        (
            {"region": "eu"},
            {"Region": "eu", "Shard": "1"},
            "Mcp-Param-Shard header is present but the request body's 'shard' argument is absent",
        ),
        (
            {"region": "eu"},
            {"Region": "=?base64?ZXU?="},
            "Mcp-Param-Region header carries a malformed base64 sentinel value",
        ),
        (
            {"region": "eu", "dry_run": False},
            {"Region": "eu", "Dry_Run": "true"},
            "'dry_run' argument",
        ),
    ],
)
async def test_a_header_that_disagrees_is_refused_before_the_tool_runs(
    http: httpx.AsyncClient, arguments: dict[str, Any], headers: dict[str, str], said: str
) -> None:
    answer = await call(http, arguments, **headers)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == -32020
    assert said in error["message"]
    assert RAN == []
