"""Prompts and resources served beside the tools (``ServerContent``), with the SDK's client in
memory, on both protocol eras: the worked example's ``triage_site``, ``netops://sites`` and
``docs://{kind}/{doc_id}``, and what a bad request is answered."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from tooldesign.builtin.results import results_registration
from tooldesign.contract.content_catalog import CONTENT_CATALOG_NAME, parse_content_catalog
from tooldesign.runtime import ImageContent, Runtime, ToolCallMeta, ToolRequest
from tooldesign.runtime.budget import CUT_KEY
from tooldesign.runtime.mcp import (
    Message,
    Prompt,
    Resource,
    ResourceTemplate,
    ServerContent,
    mcp_server,
    spilled_results,
)

from examples.netops.mcp_server import runtime, server
from tests.support.generated import Generated

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


async def test_a_prompt_is_listed_with_its_typed_arguments_and_rendered(mode: str) -> None:
    async with Client(server().server, mode=mode) as client:
        [prompt] = (await client.list_prompts()).prompts
        assert prompt.name == "triage_site"
        arguments = {a.name: (a.required, a.description) for a in prompt.arguments or []}
        assert arguments == {
            "site_id": (True, "The site to look into (completed from the inventory)"),
            "depth": (False, "How far to look"),
        }
        got = await client.get_prompt("triage_site", {"site_id": "hq", "depth": "thorough"})
        [message] = got.messages
        assert isinstance(message.content, types.TextContent)
        assert message.content.text.startswith("Site hq looks unhealthy.")
        assert "check_reachability" in message.content.text


async def test_a_prompt_argument_its_type_refuses_is_invalid_params_naming_it() -> None:
    async with Client(server().server) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("triage_site", {"site_id": "hq", "depth": "deep"})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert "Invalid arguments for prompt triage_site: depth: Input should be 'quick' or" in str(
        caught.value
    )


async def test_resources_and_templates_are_listed_and_read(mode: str) -> None:
    async with Client(server().server, mode=mode) as client:
        [sites] = (await client.list_resources()).resources
        assert (str(sites.uri), sites.mime_type) == ("netops://sites", "application/json")
        [template] = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "docs://{kind}/{doc_id}"
        [read] = (await client.read_resource("netops://sites")).contents
        assert isinstance(read, types.TextResourceContents)
        assert {"id": "hq", "name": "Headquarters"} in json.loads(read.text)
        [runbook] = (await client.read_resource("docs://runbooks/rb-9")).contents
        assert isinstance(runbook, types.TextResourceContents)
        assert runbook.text == "1. Check power\n2. Swap unit\n3. Re-adopt".replace(
            "2.", "1."
        ).replace("3.", "1.")


@pytest.mark.parametrize("uri", ["docs://runbooks/rb-404", "docs://manuals/rb-9", "nothing://x"])
async def test_a_resource_that_is_not_there_is_invalid_params_with_its_uri(uri: str) -> None:
    async with Client(server().server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    error = caught.value.error
    assert error.code == types.INVALID_PARAMS
    if uri != "docs://manuals/rb-9":  # a kind the template's type refuses says so instead
        assert (error.message, error.data) == ("Resource not found", {"uri": uri})


async def test_arguments_complete_from_their_type_and_from_a_handler() -> None:
    async with Client(server().server) as client:
        prompt = types.PromptReference(type="ref/prompt", name="triage_site")
        depth = await client.complete(prompt, {"name": "depth", "value": "TH"})
        assert depth.completion.values == ["thorough"]  # the Literal's values, case ignored
        sites = await client.complete(prompt, {"name": "site_id", "value": "n"})
        assert sites.completion.values == ["nyc"]
        template = types.ResourceTemplateReference(
            type="ref/resource", uri="docs://{kind}/{doc_id}"
        )
        ids = await client.complete(
            template, {"name": "doc_id", "value": "rb"}, context_arguments={"kind": "runbooks"}
        )
        assert (ids.completion.values, ids.completion.total) == (["rb-7", "rb-9"], 2)


@pytest.mark.filterwarnings("ignore:.* is removed as of 2026-07-28")  # handshake-era methods
async def test_subscribers_hear_of_an_update_until_they_unsubscribe() -> None:
    updates: list[str] = []

    async def heard(message: object) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    content = ServerContent(resources=[Resource("test://x", "x", "X", lambda: "x")])
    served = mcp_server(runtime())
    content.serve_on(served)
    async with Client(served.server, mode="legacy", message_handler=heard) as client:
        await client.subscribe_resource("test://x")
        await content.resource_updated("test://x")
        await client.send_ping()
        await client.unsubscribe_resource("test://x")
        await content.resource_updated("test://x")
        await client.send_ping()
    assert updates == ["test://x"]


class Page(BaseModel):
    page: int


async def test_prompt_messages_carry_content_blocks_and_declarations_are_checked() -> None:
    png = b"\x89PNG\r\n\x1a\n"
    look = Prompt("look", "Look", lambda: [Message(ImageContent(png, "image/png")), Message("?")])
    content = ServerContent(prompts=[look])
    served = mcp_server(runtime())
    content.serve_on(served)
    async with Client(served.server) as client:
        got = await client.get_prompt("look")
    assert [m.content.type for m in got.messages] == ["image", "text"]
    with pytest.raises(ValueError, match=r"variables \(n\) must be the fields of Page \(page\)"):
        ResourceTemplate("x://{n}", "x", "X", lambda p: "", Page)
    with pytest.raises(ValueError, match="prompt 'look' is given twice"):
        ServerContent(prompts=[look, look])


SPILLING = """
from tooldesign.dsl import *

with Service("spl", "Spills"):
    with Toolset("t", "A tool with a large result"):
        with Tool("essay", "Write text"):
            with Args():
                Attribute("size", Int, "Characters")
            Return(String, "The text")
            Limits(result_bytes=1000, result_overflow="spill")
"""


async def test_a_spilled_result_is_served_as_a_resource_outside_runs(
    gen_design: Callable[[str], Generated],
) -> None:
    executor = gen_design(SPILLING).module("spl.toolsets.t.executor")

    def essay(args: Any, meta: ToolCallMeta) -> str:
        return "".join(chr(ord("a") + i % 26) for i in range(args.size))

    served = Runtime([executor.new_registration(handlers={"essay": essay})])
    served.register(results_registration(served))
    server = mcp_server(served)
    ServerContent(templates=[spilled_results(served)]).serve_on(server)
    outside = await served.execute(ToolRequest("essay", {"size": 5000}))
    inside = await served.execute(ToolRequest("essay", {"size": 5000}, ToolCallMeta(run_id="r")))
    handles = [result.telemetry.extra[CUT_KEY]["handle"] for result in (outside, inside)]
    async with Client(server.server) as client:
        [template] = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "tooldesign://results/{handle}"
        [whole] = (await client.read_resource(f"tooldesign://results/{handles[0]}")).contents
        assert isinstance(whole, types.TextResourceContents)
        assert json.loads(whole.text) == "abcdefghijklmnopqrstuvwxyz" * 192 + "abcdefgh"
        with pytest.raises(MCPError, match="Resource not found"):  # that run's own
            await client.read_resource(f"tooldesign://results/{handles[1]}")


async def test_listen_streams_hear_of_prompt_changes_and_resource_updates() -> None:
    from mcp.shared.subscriptions import PromptsListChanged, ResourceUpdated

    content = ServerContent(resources=[Resource("test://x", "x", "X", lambda: "x")])
    served = mcp_server(runtime())
    content.serve_on(served)
    extra = Prompt("extra", "Added at run time", lambda: "hi")
    heard: list[object] = []
    async with Client(served.server) as client:  # 2026-07-28
        async with client.listen(
            prompts_list_changed=True, resource_subscriptions=["test://x"]
        ) as stream:
            content.add_prompt(extra)
            await content.resource_updated("test://x")
            await content.resource_updated("test://other")  # nobody asked for it
            async for event in stream:
                heard.append(event)
                if len(heard) == 2:
                    break
        assert [p.name for p in (await client.list_prompts()).prompts] == ["extra"]
    assert heard == [PromptsListChanged(), ResourceUpdated(uri="test://x")]


# ── prompts that ask, limits, completion of what is not served ─────────────────────────────


class Topic(BaseModel):
    topic: str


class Audience(BaseModel):
    audience: str


RENDERS: list[str] = []


async def ask_then_render(args: Topic) -> str:
    from tooldesign.runtime import exchanges

    RENDERS.append(args.topic)
    answer = await exchanges().ask_user("Who is it for?", Audience)
    who = answer.content.audience if answer.accepted and answer.content else "anyone"
    return f"Explain {args.topic} to {who}."


def ask_sync(args: Topic) -> str:  # a sync render asks from a worker thread
    from tooldesign.runtime import exchanges

    answer = exchanges().ask_user_sync("Who is it for?", Audience)
    return f"Explain {args.topic} to {answer.content.audience if answer.accepted else 'anyone'}."


def asking_server(render: Callable[..., Any] = ask_then_render) -> Any:
    served = mcp_server(runtime())
    prompt = Prompt("explain", "Explain a topic", render, Topic, asks=("user",))
    ServerContent(prompts=[prompt], max_argument_chars=100).serve_on(served)
    return served


async def person(context: Any, params: Any) -> types.ElicitResult:
    assert params.message == "Who is it for?"
    return types.ElicitResult(action="accept", content={"audience": "a new engineer"})


@pytest.mark.parametrize("render", [ask_then_render, ask_sync])
async def test_a_prompt_asks_mid_request_or_in_input_required_rounds(
    mode: str, render: Callable[..., Any]
) -> None:
    RENDERS.clear()
    async with Client(asking_server(render).server, mode=mode, elicitation_callback=person) as c:
        got = await c.get_prompt("explain", {"topic": "DNS"})
    [message] = got.messages
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Explain DNS to a new engineer."


async def test_the_first_round_is_input_required_with_a_sealed_state() -> None:
    served = asking_server()
    async with Client(served.server, elicitation_callback=person) as client:
        raw = await client.session.send_request(
            types.GetPromptRequest(
                params=types.GetPromptRequestParams(name="explain", arguments={"topic": "DNS"})
            ),
            types.InputRequiredResult,
        )
    assert isinstance(raw, types.InputRequiredResult)
    [(key, request)] = (raw.input_requests or {}).items()
    assert key == "user-1"
    assert request.method == "elicitation/create"
    assert raw.request_state and "answers" not in raw.request_state  # sealed, not readable


async def test_a_prompt_asking_a_client_that_cannot_answer_is_an_error_naming_it(
    mode: str,
) -> None:
    async with Client(asking_server().server, mode=mode) as client:  # no elicitation callback
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("explain", {"topic": "DNS"})
    assert caught.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert caught.value.error.message == "This prompt needs the client capabilities elicitation."


async def test_a_huge_prompt_argument_is_refused_before_rendering() -> None:
    RENDERS.clear()
    async with Client(asking_server().server, elicitation_callback=person) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("explain", {"topic": "x" * 101})
    assert caught.value.error.code == types.INVALID_PARAMS
    assert caught.value.error.message == (
        'Invalid arguments for prompt explain: "topic" is 101 characters long, more than the '
        "100 a prompt argument may be"
    )
    assert RENDERS == []
    with pytest.raises(ValueError, match="max_argument_chars must be at least 1"):
        ServerContent(max_argument_chars=0)


async def test_completing_what_is_not_served_is_invalid_params_naming_it(mode: str) -> None:
    async with Client(server().server, mode=mode) as client:
        argument = {"name": "x", "value": ""}
        with pytest.raises(MCPError) as prompt:
            await client.complete(types.PromptReference(type="ref/prompt", name="nope"), argument)
        with pytest.raises(MCPError) as template:
            await client.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="docs://{x}"), argument
            )
    assert (prompt.value.error.code, prompt.value.error.message) == (
        types.INVALID_PARAMS,
        'Unknown prompt: "nope"',
    )
    assert (template.value.error.code, template.value.error.message) == (
        types.INVALID_PARAMS,
        'Unknown resource template: "docs://{x}"',
    )


ASKING_DESIGN = """
from tooldesign.dsl import *  # noqa: F403

with Service("kb", "Knowledge base"):
    with Toolset("articles", "Articles"):
        with Tool("search", "Search articles"):
            with Args():
                Attribute("query", String, "Keywords")
            Return(String, "An id")
        with Prompt("explain", "Explain a topic"):
            with Args():
                Attribute("topic", String, "What to explain")
                Required("topic")
            Asks("user")
            BindTo("tests.runtime.mcp.test_content:ask_then_render")
"""


async def test_a_designed_prompt_that_asks_is_generated_and_served_asking(
    gen_design: Callable[[str], Generated], mode: str
) -> None:
    generated = gen_design(ASKING_DESIGN)
    folder = generated.out / "kb" / "toolsets" / "articles"
    [entry] = parse_content_catalog((folder / CONTENT_CATALOG_NAME).read_text())
    assert entry.asks == ("user",)
    content = generated.module("kb.toolsets.articles.content")
    [prompt] = content.prompts()
    assert prompt.asks == ("user",)
    served = mcp_server(Runtime())
    content.server_content().serve_on(served)
    async with Client(served.server, mode=mode, elicitation_callback=person) as client:
        got = await client.get_prompt("explain", {"topic": "BGP"})
    assert got.messages[0].content == types.TextContent(
        type="text", text="Explain BGP to a new engineer."
    )
