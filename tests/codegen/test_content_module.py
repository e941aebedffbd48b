"""A design's prompts and resources generated (``content.py``, ``content.json``) and served
with the SDK's client: listed, rendered from a template or a bound function, read, completed
from enums and from a handler; the catalog read back; generation deterministic."""

from __future__ import annotations

import platform
from typing import Any

import pytest
from mcp import Client, types
from tooldesign.contract.content_catalog import (
    ContentCatalogError,
    parse_content_catalog,
)
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import ServerContent, ToolServer

from tests.support.generated import Generated, Generator

pytestmark = pytest.mark.anyio

DESIGN = """\
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("kb", "Knowledge"):
        with Tool("noop", "Do nothing"):
            Return(String, "Nothing")
        with Prompt("explain", "Explain a topic", title="Explain",
                    template="Explain {topic} at {level} level."):
            with Args():
                Attribute("topic", String, "What to explain", min_length=2)
                Attribute("level", String, "How deep", enum=["basic", "expert"], default="basic")
                Required("topic")
            Completes()
        Resource("kb://python", "python", "The Python version", mime_type="text/plain")
        with Resource("kb://bound", "bound", "Bound to a function"):
            BindTo("platform:python_version")
        with ResourceTemplate("kb://articles/{section}/{article_id}", "article", "An article"):
            with Args():
                Attribute("section", String, "Which section", enum=["howto", "faq"])
                Attribute("article_id", Int, "The article's number", minimum=1)
"""


@pytest.fixture(scope="module")
def generated(gen_design_for_module: Generator) -> Generated:
    return gen_design_for_module(DESIGN)


def content(generated: Generated, **handlers: Any) -> ServerContent:
    module = generated.module("svc.toolsets.kb.content")
    given: dict[str, Any] = {
        "python": lambda: "3",
        "article": lambda p: f"{p.section} #{p.article_id}",
        "complete_explain": lambda argument, value, context: [
            t for t in ("tcp", "tls") if t.startswith(value)
        ],
        **handlers,
    }
    built: ServerContent = module.server_content(given)
    return built


async def test_generated_content_is_listed_rendered_read_and_completed(
    generated: Generated,
) -> None:
    served = ToolServer(Runtime())
    content(generated).serve_on(served)
    async with Client(served.server) as client:
        [prompt] = (await client.list_prompts()).prompts
        assert (prompt.name, prompt.title) == ("explain", "Explain")
        assert [(a.name, a.required) for a in prompt.arguments or []] == [
            ("topic", True),
            ("level", False),
        ]
        got = await client.get_prompt("explain", {"topic": "tcp"})
        assert isinstance(got.messages[0].content, types.TextContent)
        assert got.messages[0].content.text == "Explain tcp at basic level."
        ref = types.PromptReference(type="ref/prompt", name="explain")
        level = await client.complete(ref, {"name": "level", "value": "e"})
        assert level.completion.values == ["expert"]  # from the enum
        topic = await client.complete(ref, {"name": "topic", "value": "t"})
        assert topic.completion.values == ["tcp", "tls"]  # from the handler
        uris = sorted(str(r.uri) for r in (await client.list_resources()).resources)
        assert uris == ["kb://bound", "kb://python"]
        [bound] = (await client.read_resource("kb://bound")).contents
        assert isinstance(bound, types.TextResourceContents)
        assert bound.text == platform.python_version()
        [template] = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "kb://articles/{section}/{article_id}"
        [article] = (await client.read_resource("kb://articles/faq/7")).contents
        assert isinstance(article, types.TextResourceContents)
        assert article.text == "faq #7"
        tref = types.ResourceTemplateReference(
            type="ref/resource", uri="kb://articles/{section}/{article_id}"
        )
        section = await client.complete(tref, {"name": "section", "value": ""})
        assert section.completion.values == ["howto", "faq"]


def test_the_models_are_typed_from_the_design(generated: Generated) -> None:
    module = generated.module("svc.toolsets.kb.content")
    args = module.ExplainArguments(topic="dns")
    assert args.level == "basic"
    with pytest.raises(ValueError, match="at least 2 characters"):
        module.ExplainArguments(topic="x")
    assert module.ArticleParameters(section="faq", article_id="3").article_id == 3
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        module.ArticleParameters(section="faq", article_id=0)


def test_a_handler_the_design_does_not_bind_is_named_when_missing(generated: Generated) -> None:
    module = generated.module("svc.toolsets.kb.content")
    with pytest.raises(
        ValueError, match=r"resource kb://python needs a handler: give handlers\['python'\]"
    ):
        module.resources({})
    assert len(module.prompts({"complete_explain": lambda *a: []})) == 1


def test_the_content_catalog_lists_them_and_reads_back(generated: Generated) -> None:
    text = (generated.out / "svc/toolsets/kb/content.json").read_text()
    entries = parse_content_catalog(text)
    assert [(e.kind, e.name, e.uri) for e in entries] == [
        ("prompt", "explain", None),
        ("resource", "python", "kb://python"),
        ("resource", "bound", "kb://bound"),
        ("template", "article", "kb://articles/{section}/{article_id}"),
    ]
    explain, *_, article = entries
    assert explain.completes == {"topic": "handler", "level": "values"}
    assert article.completes == {"section": "values"}
    assert article.arguments["required"] == ["section", "article_id"]
    with pytest.raises(ContentCatalogError, match=r"content\[0\].kind is 'tool'"):
        parse_content_catalog(text.replace('"kind": "prompt"', '"kind": "tool"'))
    assert explain.asks == ()  # it asks nobody: no "asks" key
    asking = text.replace('"completes": {"topic"', '"asks": ["user"], "completes": {"topic"')
    assert parse_content_catalog(asking)[0].asks == ("user",)
    with pytest.raises(ContentCatalogError, match=r"content\[0\].asks is not a list of 'user'"):
        parse_content_catalog(asking.replace('["user"]', '["boss"]'))


def test_generation_is_deterministic(generated: Generated, gen_design: Generator) -> None:
    again = gen_design(DESIGN)
    for name in ("content.py", "content.json"):
        first = (generated.out / "svc/toolsets/kb" / name).read_text()
        assert (again.out / "svc/toolsets/kb" / name).read_text() == first


def test_the_service_package_serves_every_toolsets_content(generated: Generated) -> None:
    service = generated.module("svc.content")
    handlers: dict[str, Any] = {
        "python": lambda: "3",
        "article": lambda p: "",
        "complete_explain": lambda *a: [],
    }
    served = service.server_content(handlers)
    assert [p.name for p in served.prompts.values()] == ["explain"]
    assert sorted(served.resources) == ["kb://bound", "kb://python"]
    assert list(served.templates) == ["kb://articles/{section}/{article_id}"]
