"""Deferred loading: the plan's rules, each provider's form against its SDK's request types,
the builtin search tool where a provider has none, and the byte-stable eager prefix."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from anthropic.types import ToolParam
from anthropic.types.tool_search_tool_bm25_20251119_param import ToolSearchToolBm25_20251119Param
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from openai.types.responses.tool_search_tool_param import ToolSearchToolParam
from tooldesign.builtin.gen.builtin.toolsets.tool_index.specs import SEARCH_TOOLS_SPEC, SPECS
from tooldesign.contract.ident import ToolIdent
from tooldesign.runtime.providers import (
    LoadingPlan,
    PlanError,
    ToolDescription,
    adapter,
    deferred_export,
    describe,
    export_tools,
)
from tooldesign.runtime.providers.tokens import token_counter
from tooldesign.runtime.spec.specs import ToolSpec

from examples.netops.agent import build_runtime
from tests.runtime.providers.test_providers import valid_typed_dict

# The worked example's write tools and metrics deferred; the read-only ones stay eager.
PLAN = LoadingPlan(deferred=["metrics", "docs", "tag:write"], eager=["get_time_series"])


@pytest.fixture(scope="module")
def specs() -> list[ToolSpec[Any, Any]]:
    return build_runtime().specs()


def names(tools: list[dict[str, Any]]) -> list[str | None]:
    return [t.get("name", t.get("function", {}).get("name")) for t in tools]


def test_the_plan_decides_eager_before_deferred_then_read_only_then_the_default(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    tools = {s.name: describe(s) for s in specs}
    assert PLAN.loading(tools["restart_device"]) == "deferred"  # tag:write
    assert PLAN.loading(tools["get_time_series"]) == "eager"  # eager wins over its toolset
    assert PLAN.loading(tools["check_reachability"]) == "deferred"  # toolset metrics
    assert PLAN.loading(tools["list_sites"]) == "eager"  # the default
    everything_later = LoadingPlan(default="deferred", read_only_eager=True)
    assert everything_later.loading(tools["list_sites"]) == "eager"  # read-only
    assert everything_later.loading(tools["restart_device"]) == "deferred"
    assert LoadingPlan(deferred="assistant.sites").loading(tools["get_site"]) == "deferred"
    # The discovery tools are always eager: a search the model cannot see finds nothing.
    assert LoadingPlan(default="deferred").loading(describe(SEARCH_TOOLS_SPEC)) == "eager"
    with pytest.raises(ValueError, match="default must be"):
        LoadingPlan(default="later")  # type: ignore[arg-type]


def test_a_selector_that_matches_nothing_is_named(specs: list[ToolSpec[Any, Any]]) -> None:
    with pytest.raises(
        PlanError, match=r"'metric', 'tag:nope'.*toolsets: devices, diagnosis, docs"
    ):
        export_tools(specs, "anthropic", plan=LoadingPlan(deferred=["metric", "tag:nope"]))


def test_openai_responses_defers_with_its_hosted_tool_search(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    tools = export_tools([*specs, *SPECS], "openai", api="responses", plan=PLAN)
    search = [t for t in tools if t["type"] == "tool_search"]
    assert search == [{"type": "tool_search"}]
    valid_typed_dict(ToolSearchToolParam, search[0])
    functions = [t for t in tools if t["type"] == "function"]
    for tool in functions:
        valid_typed_dict(FunctionToolParam, tool)
    deferred = [t["name"] for t in functions if t.get("defer_loading")]
    assert deferred == [
        "restart_device",
        "schedule_maintenance",
        "check_reachability",
        "search_docs",
        "answer_question",
    ]
    # The eager tools come first, then the search, then the deferred ones; the builtin
    # search_tools is left out where the provider searches itself.
    split = tools.index(search[0])
    assert not any(t.get("defer_loading") for t in tools[:split])
    assert all(t.get("defer_loading") for t in tools[split + 1 :])
    assert "search_tools" not in names(tools) and "tool_index" in names(tools)


def test_anthropic_defers_with_its_hosted_bm25_search(specs: list[ToolSpec[Any, Any]]) -> None:
    made = deferred_export(adapter("anthropic", specs, strict=True, fallback=True), PLAN)
    assert made.search == "native"
    hosted = [t for t in made.tools if "type" in t]
    assert hosted == [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}]
    valid_typed_dict(ToolSearchToolBm25_20251119Param, hosted[0])
    for tool in made.tools:
        if "type" not in tool:
            valid_typed_dict(ToolParam, tool)
    assert [t["name"] for t in made.tools if t.get("defer_loading")] == [
        made_name.split(".")[-1] for made_name in made.deferred
    ]
    assert made.prefix == made.tools[: len(made.prefix)]
    assert made.prefix[-1] == hosted[0]


@pytest.mark.parametrize(
    ("provider", "api"), [("openai", "chat"), ("gemini", "json_schema"), ("mcp", None)]
)
def test_without_native_search_the_builtin_search_tool_is_eager_and_found_tools_are_loaded(
    specs: list[ToolSpec[Any, Any]], provider: Any, api: str | None
) -> None:
    tools = [*specs, *SPECS]
    made = deferred_export(adapter(provider, tools, api=api), PLAN)
    assert made.search == "client"
    assert "search_tools" in names(made.tools)
    assert "restart_device" not in names(made.tools)
    loaded = export_tools(
        tools,
        provider,
        api=api,
        plan=PLAN,
        loaded=["search_docs", "assistant.devices.restart_device"],
    )
    # What was found is sent after what was there, in the order found: the prefix stays put.
    assert loaded[: len(made.tools)] == made.tools
    assert names(loaded[len(made.tools) :]) == ["search_docs", "restart_device"]
    if provider == "openai":
        for tool in loaded:
            valid_typed_dict(ChatCompletionFunctionToolParam, tool)
    # A call to a deferred tool maps back to its id, loaded or not.
    assert (
        adapter(provider, tools, api=api).tool_id("answer_question")
        == "assistant.docs.answer_question"
    )
    with pytest.raises(PlanError, match="'nope', which is no deferred tool"):
        export_tools(tools, provider, api=api, plan=PLAN, loaded=["nope"])


def test_a_search_the_target_lacks_is_refused_by_name_never_loaded_eagerly(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    with pytest.raises(PlanError, match="OpenAI Chat Completions has no native tool search"):
        export_tools([*specs, *SPECS], "openai", plan=PLAN, search="native")
    with pytest.raises(
        PlanError, match=r"Gemini needs a search tool.*builtin.tool_index.search_tools"
    ):
        export_tools(specs, "gemini", api="json_schema", plan=PLAN)
    with pytest.raises(PlanError, match="hosted search finds itself"):
        export_tools(specs, "anthropic", plan=PLAN, loaded=["search_docs"])
    with pytest.raises(ValueError, match="apply to an export with a loading plan"):
        export_tools(specs, "anthropic", loaded=["search_docs"])


def test_a_plan_that_defers_nothing_exports_what_an_export_without_one_does(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    forms: list[tuple[Any, str | None]] = [
        ("openai", "responses"),
        ("anthropic", None),
        ("gemini", "json_schema"),
    ]
    for provider, api in forms:
        assert export_tools(specs, provider, api=api, plan=LoadingPlan()) == export_tools(
            specs, provider, api=api
        )


def _renamed(tool: ToolDescription, n: int) -> ToolDescription:
    return dataclasses.replace(tool, id=ToolIdent(f"{tool.id}_{n}"), name=f"{tool.name}_{n}")


@pytest.mark.parametrize(
    ("provider", "api"),
    [("openai", "responses"), ("anthropic", None), ("openai", "chat"), ("mcp", None)],
)
def test_the_eager_prefix_keeps_its_bytes_while_deferred_tools_change(
    specs: list[ToolSpec[Any, Any]], provider: Any, api: str | None
) -> None:
    base = [describe(s) for s in [*specs, *SPECS]]

    def prefix(tools: list[ToolDescription]) -> bytes:
        return deferred_export(adapter(provider, tools, api=api), PLAN).prefix_bytes()

    before = prefix(base)
    restart = next(t for t in base if t.name == "restart_device")
    grown = [*base, *(_renamed(restart, n) for n in range(50))]  # 50 more deferred tools
    changed = [
        dataclasses.replace(t, description="Reboot it, now") if t.name == "restart_device" else t
        for t in base
    ]
    fewer = [t for t in base if t.name != "search_docs"]
    assert prefix(grown) == prefix(changed) == prefix(fewer) == before
    # What busts it: an eager tool changed, or the plan moving a tool between the two.
    eager_changed = [
        dataclasses.replace(t, description="Sites") if t.name == "list_sites" else t for t in base
    ]
    assert prefix(eager_changed) != before
    moved = deferred_export(adapter(provider, base, api=api), LoadingPlan(deferred=["metrics"]))
    assert moved.prefix_bytes() != before


@pytest.mark.skipif(token_counter() is None, reason="needs the tokens extra")
def test_a_token_budget_over_the_eager_prefix_names_the_largest_tools(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    made = deferred_export(adapter("openai", [*specs, *SPECS], api="responses"), PLAN)
    spent = made.prefix_tokens()
    assert spent is not None and spent > 0
    made.check_budget(spent)
    with pytest.raises(PlanError, match=r"over the budget of 100; the largest are \S+ \("):
        made.check_budget(100)
    everything = deferred_export(
        adapter("openai", [*specs, *SPECS], api="responses"), LoadingPlan()
    )
    assert (everything.prefix_tokens() or 0) > spent


def test_openai_responses_groups_deferred_tools_in_namespaces_by_toolset(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    from openai.types.responses import NamespaceToolParam, ToolParam
    from openai.types.responses.namespace_tool_param import ToolFunction
    from pydantic import TypeAdapter

    plan = dataclasses.replace(PLAN)  # the same selectors…
    grouped = LoadingPlan(
        deferred=PLAN.deferred, eager=PLAN.eager, namespaces={"docs": "Search the runbooks"}
    )
    flat = export_tools([*specs, *SPECS], "openai", api="responses", plan=plan)
    tools = export_tools([*specs, *SPECS], "openai", api="responses", plan=grouped)
    request_tool: TypeAdapter[Any] = TypeAdapter(ToolParam)
    for tool in tools:
        request_tool.validate_python(tool)  # the SDK's request type, namespaces included
    spaces = [t for t in tools if t["type"] == "namespace"]
    for space in spaces:
        valid_typed_dict(NamespaceToolParam, space)
        for function in space["tools"]:
            valid_typed_dict(ToolFunction, function)
            assert function["defer_loading"] is True  # on each function, as OpenAI asks
    assert [(s["name"], [f["name"] for f in s["tools"]]) for s in spaces] == [
        ("devices", ["restart_device", "schedule_maintenance"]),
        ("metrics", ["check_reachability"]),
        ("docs", ["search_docs", "answer_question"]),
    ]
    assert spaces[2]["description"] == "Search the runbooks"  # given
    assert spaces[0]["description"].startswith("Toolset devices of service assistant: ")
    # The same functions, byte for byte, and the eager prefix is untouched by grouping.
    inside = [f for s in spaces for f in s["tools"]]
    assert inside == [t for t in flat if t.get("defer_loading")]
    split = flat.index({"type": "tool_search"}) + 1
    assert tools[:split] == flat[:split]
    # Providers without namespaces export the plan as without them.
    assert export_tools(specs, "anthropic", plan=grouped) == export_tools(
        specs, "anthropic", plan=PLAN
    )
