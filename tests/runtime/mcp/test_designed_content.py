"""The worked example's designed prompts and resources (``design/assistant.py``), as the SDK's
client sees them on both protocol eras: what ``prompts/list``, ``resources/list`` and
``resources/templates/list`` show agrees with the generated ``content.json``, and an argument
the catalog says completes from its values completes to them."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client, types
from tooldesign.contract.content_catalog import ContentEntry, parse_content_catalog

from examples.netops.mcp_server import server
from tests.support import REPO

pytestmark = pytest.mark.anyio


def catalog() -> list[ContentEntry]:
    found = sorted((REPO / "gen" / "assistant" / "toolsets").glob("*/content.json"))
    return [entry for path in found for entry in parse_content_catalog(path.read_text())]


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


async def test_what_is_served_is_what_the_catalog_lists(mode: str) -> None:
    entries = catalog()
    assert sorted((e.kind, e.name) for e in entries) == [
        ("prompt", "triage_site"),
        ("resource", "sites"),
        ("template", "document"),
    ]
    async with Client(server().server, mode=mode) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        templates = {
            t.uri_template: t for t in (await client.list_resource_templates()).resource_templates
        }
        for entry in entries:
            schema: dict[str, Any] = dict(entry.arguments)
            if entry.kind == "prompt":
                prompt = prompts[entry.name]
                assert prompt.description == entry.description
                listed = {a.name: a.required for a in prompt.arguments or []}
                required = set(schema.get("required", []))
                assert listed == {name: name in required for name in schema["properties"]}
                ref: types.PromptReference | types.ResourceTemplateReference = (
                    types.PromptReference(type="ref/prompt", name=entry.name)
                )
            elif entry.kind == "resource":
                assert entry.uri is not None
                assert (resources[entry.uri].name, resources[entry.uri].mime_type) == (
                    entry.name,
                    entry.mime_type,
                )
                continue
            else:
                assert entry.uri is not None
                template = templates[entry.uri]
                assert (template.name, template.mime_type) == (entry.name, entry.mime_type)
                ref = types.ResourceTemplateReference(type="ref/resource", uri=entry.uri)
            for argument, source in entry.completes.items():
                if source == "values":
                    done = await client.complete(ref, {"name": argument, "value": ""})
                    assert done.completion.values == schema["properties"][argument]["enum"]


async def test_the_bound_prompt_renders_and_handlers_complete_and_read() -> None:
    async with Client(server().server) as client:
        got = await client.get_prompt("triage_site", {"site_id": "hq"})
        [message] = got.messages
        assert isinstance(message.content, types.TextContent)
        assert message.content.text.startswith("Site hq looks unhealthy.")
        ref = types.ResourceTemplateReference(type="ref/resource", uri="docs://{kind}/{doc_id}")
        done = await client.complete(
            ref, {"name": "doc_id", "value": "rb"}, context_arguments={"kind": "runbooks"}
        )
        assert done.completion.values and all(v.startswith("rb") for v in done.completion.values)
        [read] = (
            await client.read_resource(f"docs://runbooks/{done.completion.values[0]}")
        ).contents
        assert isinstance(read, types.TextResourceContents) and read.text.startswith("1. ")
