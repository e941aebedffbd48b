"""Rich results: ``Content(...)`` in a design, checked where it is written, carried into the
catalog, the generated specs and handlers, held to by the runtime, and answered by each provider
as far as it takes content blocks (``tooldesign.contract.content``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.contract.catalog import CatalogError, CatalogTool, catalog_entry
from tooldesign.contract.content import block_from_mcp
from tooldesign.runtime import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    WithContent,
)
from tooldesign.runtime.providers import adapter

from tests.support.design import WriteDesign, design_issues, line_of
from tests.support.generated import Generated

DESIGN = """
from tooldesign.dsl import *

with Service("svc"):
    with Toolset("ts"):
        with Tool("chart", "Draw a site's latency"):
            with Args():
                Attribute("site", String, "Site")
                Required("site")
            with Return():
                Attribute("points", Int, "How many points were drawn")
                Required("points")
            {content}
"""

PNG = b"\x89PNG\r\n\x1a\n-pixels-"


def test_a_kind_outside_the_table_is_a_design_error_where_it_is_written(
    write_design: WriteDesign,
) -> None:
    path = write_design(DESIGN.format(content='Content("image", "video")  # <-- error'))
    [issue] = design_issues(path)
    assert issue.message == (
        "Content takes kinds among 'image', 'audio', 'resource_link', 'resource', not 'video'"
    )
    assert issue.location is not None and issue.location.line == line_of(path, "<-- error")


@pytest.mark.parametrize(
    ("content", "words"),
    [("Content()", "Content needs at least one kind"), ('Content("image", "image")', "twice")],
)
def test_an_empty_or_repeated_content_is_a_design_error(
    write_design: WriteDesign, content: str, words: str
) -> None:
    [issue] = design_issues(write_design(DESIGN.format(content=content)))
    assert words in issue.message


def _generated(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(DESIGN.format(content='Content("resource", "image")'))


def test_the_kinds_reach_the_catalog_the_spec_and_the_handlers_type(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = _generated(gen_design)
    catalog = json.loads((generated.out / "svc" / "tool_schemas.json").read_text())
    [entry] = catalog["tools"]
    assert entry["content"] == ["image", "resource"]  # in the table's order
    assert CatalogTool.from_entry(entry).content == ("image", "resource")
    spec = generated.module("svc.toolsets.ts.specs").CHART_SPEC
    assert spec.content == ("image", "resource")
    assert catalog_entry(spec) == entry
    source = (generated.out / "svc" / "toolsets" / "ts" / "executor.py").read_text()
    assert "t.ChartResult | rt.WithContent[t.ChartResult] | rt.ToolResult" in source


def test_a_catalog_entry_with_bad_content_is_refused(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = _generated(gen_design)
    [entry] = json.loads((generated.out / "svc" / "tool_schemas.json").read_text())["tools"]
    with pytest.raises(CatalogError, match="'content': Content takes kinds among .* not 'video'"):
        CatalogTool.from_entry({**entry, "content": ["video"]})


def _runtime(generated: Generated, handler: Callable[..., Any]) -> Runtime:
    executor = generated.module("svc.toolsets.ts.executor")
    return Runtime([executor.new_registration(handlers={"chart": handler})])


def _call(runtime: Runtime) -> ToolResult:
    return runtime.execute_sync(ToolRequest("chart", {"site": "hq"}))


def test_a_handler_returns_its_data_with_content_blocks(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = _generated(gen_design)
    types = generated.module("svc.toolsets.ts.types")
    notes = EmbeddedResource("file:///notes.txt", "text/plain", text="hq is slow")

    def chart(args: Any, meta: ToolCallMeta) -> Any:
        return WithContent(types.ChartResult(points=3), ImageContent(PNG, "image/png"), notes)

    result = _call(_runtime(generated, chart))
    assert result.ok, result.for_model()
    assert result.for_model() == '{"points":3}'  # the typed data, as before
    assert result.content == (ImageContent(PNG, "image/png"), notes)
    again = ToolResult.from_dict(json.loads(json.dumps(result.to_dict())))  # workers send it
    assert again.content == result.content


def test_a_block_of_a_kind_the_design_does_not_declare_is_a_malformed_result(
    gen_design: Callable[[str], Generated], caplog: pytest.LogCaptureFixture
) -> None:
    generated = _generated(gen_design)
    types = generated.module("svc.toolsets.ts.types")

    def chart(args: Any, meta: ToolCallMeta) -> Any:
        return WithContent(types.ChartResult(points=3), AudioContent(b"RIFF", "audio/wav"))

    result = _call(_runtime(generated, chart))
    assert not result.ok and result.content == ()
    assert "it returned 'audio' content, but its design declares Content('image', 'resource')" in (
        caplog.text
    )


def test_blocks_read_back_from_their_mcp_form() -> None:
    blocks = [
        ImageContent(PNG, "image/png"),
        AudioContent(b"RIFF", "audio/wav"),
        ResourceLink("file:///big.csv", "big.csv", "text/csv", "The whole series"),
        EmbeddedResource("file:///a.bin", "application/octet-stream", blob=b"\x00\x01"),
    ]
    assert [block_from_mcp(block.to_mcp()) for block in blocks] == blocks
    with pytest.raises(ValueError, match="its text or its blob"):
        EmbeddedResource("file:///a", "text/plain")


def _rich_result(generated: Generated) -> tuple[Any, ToolResult]:
    types = generated.module("svc.toolsets.ts.types")
    link = ResourceLink("file:///big.csv", "big.csv")

    def chart(args: Any, meta: ToolCallMeta) -> Any:
        return WithContent(types.ChartResult(points=3), ImageContent(PNG, "image/png"), link)

    runtime = _runtime(generated, chart)
    return runtime.specs(), _call(runtime)


def test_each_provider_takes_what_it_can_and_names_what_it_leaves_out(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(DESIGN.format(content='Content("image", "resource_link")'))
    specs, result = _rich_result(generated)
    mcp = adapter("mcp", specs).result_message(result)
    assert [block["type"] for block in mcp["content"]] == ["text", "image", "resource_link"]
    assert mcp["structuredContent"] == {"points": 3}

    anthropic = adapter("anthropic", specs).result_message(result, call_id="c1")["content"]
    assert [block["type"] for block in anthropic] == ["text", "image"]
    assert anthropic[1]["source"]["media_type"] == "image/png"
    assert "resource_link file:///big.csv" in anthropic[0]["text"]

    chat = adapter("openai", specs).result_message(result, call_id="c1")["content"]
    assert chat.startswith('{"points":3}')
    assert "image (image/png), resource_link file:///big.csv" in chat
    assert "take text only" in chat

    output = adapter("openai", specs, api="responses").result_message(result, call_id="c1")[
        "output"
    ]
    assert [item["type"] for item in output] == ["input_text", "input_image"]
    assert output[1]["image_url"].startswith("data:image/png;base64,")

    gemini = adapter("gemini", specs).result_message(result)["functionResponse"]
    assert gemini["parts"][0]["inline_data"]["mime_type"] == "image/png"
    assert "resource_link file:///big.csv" in gemini["response"]["note"]


def test_a_remote_tools_blocks_of_the_declared_kinds_come_back_with_its_data(
    gen_design: Callable[[str], Generated], caplog: pytest.LogCaptureFixture
) -> None:
    from mcp import types as mcp_types
    from tooldesign.runtime import MCPClient

    spec = _generated(gen_design).module("svc.toolsets.ts.specs").CHART_SPEC
    image = ImageContent(PNG, "image/png")

    class Answering(MCPClient):
        async def call(self, name: str, arguments: Any, *, retry_safe: bool = False) -> Any:
            blocks = [{"type": "text", "text": '{"points": 3}'}, image.to_mcp()]
            blocks.append(AudioContent(b"RIFF", "audio/wav").to_mcp())  # not declared
            return mcp_types.CallToolResult.model_validate(
                {"content": blocks, "structuredContent": {"points": 3}}
            )

    invoke = Answering("unused-command").invoke("chart", spec)
    args = spec.payload.model(site="hq")
    outcome = asyncio.run(invoke(args, ToolCallMeta()))
    assert isinstance(outcome.value, WithContent)
    assert (outcome.value.result, outcome.value.blocks) == ({"points": 3}, (image,))
    assert "tool chart sent audio content, which its design does not declare" in caplog.text
