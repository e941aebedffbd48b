"""Code generation piece by piece: one toolset's view, the file list built from it, and each
template macro rendered alone from data."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from tooldesign.codegen.bindings import (
    BoundCallView,
    FunctionView,
    MappingView,
    OptionalKey,
    TypedDictView,
)
from tooldesign.codegen.files import (
    CATALOG,
    CODE_API,
    MODELS,
    SEARCH_WORDS,
    SERVICE_INIT,
    GeneratedFile,
    service_files,
    toolset_files,
)
from tooldesign.codegen.literals import py_docstring
from tooldesign.codegen.render import environment, render_files
from tooldesign.codegen.views import ToolsetView, toolset_view
from tooldesign.eval.evaluate import evaluate

SCENARIOS = Path(__file__).parents[1] / "scenarios"


def view_of(design: Path, toolset: str) -> ToolsetView:
    """The view of one toolset of a design (its folder importable, for the code it binds)."""
    sys.path.insert(0, str(design.parent))
    try:
        evaluated = evaluate([str(design)])
    finally:
        sys.path.remove(str(design.parent))
    for service in evaluated.services:
        for candidate in service.toolsets:
            if candidate.name == toolset:
                return toolset_view(evaluated, service, candidate)
    raise LookupError(toolset)


@pytest.fixture(scope="module")
def bound() -> ToolsetView:
    return view_of(SCENARIOS / "bound_tool" / "design.py", "orders")


@pytest.fixture(scope="module")
def handled() -> ToolsetView:
    return view_of(SCENARIOS / "bounded_handler" / "design.py", "docs")


@pytest.fixture(scope="module")
def remote() -> ToolsetView:
    return view_of(SCENARIOS / "mcp_toolset" / "design.py", "forecast")


# ── one view ──────────────────────────────────────────────────────────────────────────────────


def test_a_tool_bound_to_a_method_is_called_on_the_service(bound: ToolsetView) -> None:
    find = bound.tools[0]
    assert find.name == "find_orders" and not find.handler_required
    assert find.bound == BoundCallView(
        factory="_bind_find_orders",
        service_type="app_scenario_shop.Shop",
        target="service.find_orders",
        is_async=False,
        spread_arguments=True,
        payload_transform="to_method_payload_find_orders",
        result_transform="to_tool_return_find_orders",
        method="scenario_shop:Shop.find_orders",
        returns_value=True,
        server_data=(),
    )


def test_a_tool_bound_to_a_function_needs_no_service(bound: ToolsetView) -> None:
    count = bound.tools[1]
    assert count.bound is not None
    assert count.bound.service_type is None
    assert count.bound.target == "app_scenario_shop.order_count"


def test_without_a_service_only_function_bound_tools_need_no_handler(bound: ToolsetView) -> None:
    executor = bound.executor
    assert executor.service_type == "app_scenario_shop.Shop"
    assert executor.handlers.fields == (
        ("find_orders", "FindOrdersHandler", False),
        ("count_orders", "CountOrdersHandler", False),
    )
    assert executor.handlers_without_service is not None
    assert executor.handlers_without_service.fields == (
        ("find_orders", "FindOrdersHandler", True),
        ("count_orders", "CountOrdersHandler", False),
    )
    assert not executor.handlers_required
    assert bound.first_party == frozenset({"scenario_shop"})


def test_transforms_are_data_the_macros_lay_out(bound: ToolsetView) -> None:
    assert bound.transforms is not None
    functions = {fn.name: fn for fn in bound.transforms.functions}
    arguments = functions["_to_app_shop_find_orders"]
    assert arguments.mapping == MappingView(
        "FindOrdersArguments", (("customer", "value.customer"), ("limit", "value.limit"))
    )
    assert arguments.value == "out"
    count = functions["to_tool_return_count_orders"]
    assert (count.param, count.param_type, count.value) == (
        "result",
        "int",
        "t.CountOrdersResult(result)",
    )
    assert [td.name for td in bound.transforms.typed_dicts] == [
        "FindOrdersArguments",
        "CountOrdersArguments",
    ]


def test_a_handler_tool_must_be_given_a_handler(handled: ToolsetView) -> None:
    [tool] = handled.tools
    assert tool.handler_required and tool.bound is None
    assert (tool.cursor_field, tool.next_cursor_field) == ("cursor", "next_cursor")
    assert handled.transforms is None and handled.executor.handlers_without_service is None
    assert handled.executor.handlers_required
    assert handled.bounded_classes == ("FindDocsResult",)


def test_an_mcp_tool_runs_on_the_server_under_its_remote_name(remote: ToolsetView) -> None:
    [tool] = remote.tools
    assert tool.remote_name == "forecast.get" and tool.name == "get_forecast"
    assert not tool.handler_required and tool.bound is None
    assert remote.mcp is not None
    assert remote.mcp.command == ("weather-server", "--stdio")
    assert remote.mcp.env == {"UNITS": "metric"} and remote.mcp.timeout == 5.0


# ── the files built from a view ────────────────────────────────────────────────────────────


def _listing(files: list[Any]) -> list[tuple[str, str]]:
    return [(file.path, file.template) for file in files]


def test_a_bound_toolset_package_has_transforms(bound: ToolsetView) -> None:
    assert _listing(toolset_files(bound, [])) == [
        ("shop/toolsets/orders/__init__.py", "package_init.py.j2"),
        ("shop/toolsets/orders/specs.py", "specs.py.j2"),
        ("shop/toolsets/orders/codecs.py", "codecs.py.j2"),
        ("shop/toolsets/orders/executor.py", "executor.py.j2"),
        ("shop/toolsets/orders/transforms.py", "transforms.py.j2"),
        ("shop/toolsets/orders/types.py", MODELS),
        ("shop/toolsets/orders/tool_schemas.json", CATALOG),
        ("shop/toolsets/orders/tool_search.json", SEARCH_WORDS),
        ("shop/toolsets/orders/code_api.pyi", CODE_API),
    ]
    executor = toolset_files(bound, [])[3]
    assert executor.first_party == frozenset({"scenario_shop"})


def test_an_mcp_toolset_package_has_the_remote_executor(remote: ToolsetView) -> None:
    listing = dict(_listing(toolset_files(remote, [])))
    assert listing["weather/toolsets/forecast/executor.py"] == "mcp_executor.py.j2"
    assert "weather/toolsets/forecast/transforms.py" not in listing


def test_a_service_package_lists_its_toolsets_tools() -> None:
    files = service_files("weather", "weather", [[{"name": "a"}], [{"name": "b"}]])
    assert _listing(files) == [
        ("weather/__init__.py", SERVICE_INIT),
        ("weather/toolsets/__init__.py", SERVICE_INIT),
        ("weather/tool_schemas.json", CATALOG),
    ]
    assert not any(file.formatted for file in files)


# ── one template at a time ──────────────────────────────────────────────────────────────────


def macro(name: str, **context: Any) -> str:
    source = f'{{% from "_code.j2" import {name} %}}{{{{ {name}(arg) }}}}'
    return environment().from_string(source).render(arg=context["arg"])


def test_a_function_that_builds_a_mapping() -> None:
    fn = FunctionView(
        "_to_app_query",
        "value",
        "t.Query",
        "QueryArguments",
        "out",
        mapping=MappingView(
            "QueryArguments",
            (("site", "value.site"),),
            (OptionalKey("limit", "value.limit", "int(value.limit)"),),
        ),
    )
    assert macro("function", arg=fn) == (
        "def _to_app_query(value: t.Query) -> QueryArguments:\n"
        "    out: QueryArguments = {'site': value.site}\n"
        "    if value.limit is not None:\n"
        "        out['limit'] = int(value.limit)\n"
        "    return out"
    )


def test_a_function_that_returns_a_value_with_its_docstring() -> None:
    fn = FunctionView("to_tool", "result", "int", "t.Count", "t.Count(result)", doc='Say "hi"')
    assert macro("function", arg=fn) == (
        "def to_tool(result: int) -> t.Count:\n    'Say \"hi\"'\n    return t.Count(result)"
    )


class _Tool:
    """What the bound-call macro reads of a tool view."""

    def __init__(self, bound: BoundCallView) -> None:
        self.bound = bound
        self.payload = type("Payload", (), {"class_name": "FindPayload"})()


def _bound(**changes: Any) -> BoundCallView:
    values: dict[str, Any] = {
        "factory": "_bind_find",
        "service_type": "app.Shop",
        "target": "service.find",
        "is_async": False,
        "spread_arguments": False,
        "payload_transform": "to_method_payload_find",
        "result_transform": "to_tool_return_find",
        "method": "app:Shop.find",
        "returns_value": True,
        "server_data": (),
    }
    return BoundCallView(**{**values, **changes})


def test_a_sync_bound_call_runs_on_a_worker_thread() -> None:
    assert macro("bound_factory", arg=_Tool(_bound())) == (
        "def _bind_find(service: app.Shop) -> rt.Invoke:\n"
        "    def invoke(args: t.FindPayload, meta: rt.ToolCallMeta) -> rt.Outcome:\n"
        "        returned = service.find(tr.to_method_payload_find(args))\n"
        "        return rt.Outcome(returned, convert=tr.to_tool_return_find, method='app:Shop.find')\n"
        "\n"
        "    return rt.in_worker_thread(invoke)"
    )


def test_an_async_function_call_with_keyword_arguments_and_server_data() -> None:
    call = _bound(
        service_type=None,
        target="app.find",
        is_async=True,
        spread_arguments=True,
        method="app:find",
        server_data=(("full", "to_server_data_find_full"),),
    )
    assert macro("bound_factory", arg=_Tool(call)) == (
        "def _bind_find() -> rt.Invoke:\n"
        "    async def invoke(args: t.FindPayload, meta: rt.ToolCallMeta) -> rt.Outcome:\n"
        "        returned = await app.find(**tr.to_method_payload_find(args))\n"
        "        return rt.Outcome(returned, server_data={'full': lambda: "
        "tr.to_server_data_find_full(returned)}, convert=tr.to_tool_return_find, method='app:find')\n"
        "\n"
        "    return invoke"
    )


def test_a_call_that_returns_nothing() -> None:
    rendered = macro("bound_factory", arg=_Tool(_bound(returns_value=False)))
    assert (
        "        service.find(tr.to_method_payload_find(args))\n"
        "        return rt.Outcome(None, convert=tr.to_tool_return_find, method='app:Shop.find')\n"
    ) in rendered


def test_a_typed_dict_whose_keys_are_no_identifiers_uses_the_call_form() -> None:
    td = TypedDictView("Fields", (("class", "str", True), ("site-id", "int", False)), "Keys.")
    assert macro("typed_dict", arg=td) == (
        "Fields = TypedDict(\n"
        "    'Fields',\n"
        "    {\n"
        "        'class': str,\n"
        "        'site-id': NotRequired[int],\n"
        "    },\n"
        ")\n"
        "'Keys.'\n"
    )


def test_a_service_init_is_written_in_its_final_form() -> None:
    context = {"header": "# header", "doc": "Toolsets of service s."}
    file = GeneratedFile("s/__init__.py", SERVICE_INIT, context, formatted=False)
    assert render_files([file]).files == {
        "s/__init__.py": '# header\n"""Toolsets of service s."""\n'
    }


@pytest.mark.parametrize("text", ['say "hi"', "back\\slash", "two\nlines", " padded", ""])
def test_a_docstring_that_would_need_escaping_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not plain docstring text"):
        py_docstring(text)
