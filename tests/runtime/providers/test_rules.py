"""Rules across arguments in each export: kept as schema keywords where the target takes them
(MCP), else taken out and said in the tool's description by the rule's own words — never a
silently looser schema — and named in the export's note. OpenAI and Anthropic refuse an allOf
at the root in every form, Gemini takes neither allOf nor if/then/else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from tooldesign.contract.catalog import catalog_entry
from tooldesign.contract.rules import ArgumentRule, rules_schema, split_rules
from tooldesign.runtime import ToolSpec
from tooldesign.runtime.codemode.api import ApiTool, tool_api
from tooldesign.runtime.integrations._common import export
from tooldesign.runtime.providers import adapter
from tooldesign.runtime.providers.openai import check_openai_strict
from tooldesign.runtime.providers.targets import check_targets

from tests.support.generated import Generated
from tests.support.providers import valid_gemini_declaration
from tests.support.rules import DESIGN

_KEYWORDS = ("allOf", "if", "then", "else")
_WORDS = (
    "give at least one of: phone, email; give exactly one of: id, handle; "
    'phone is required when contact_method is "phone", else email is required'
)


@pytest.fixture(scope="module")
def spec(gen_design_for_module: Callable[[str], Generated]) -> ToolSpec[Any, Any]:
    specs = gen_design_for_module(DESIGN).module("crm.toolsets.people.specs")
    (found,) = specs.SPECS
    return found  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("provider", "options"),
    [
        ("openai", {"strict": True}),
        ("openai", {}),
        ("openai", {"api": "responses"}),
        ("anthropic", {"strict": True}),
        ("anthropic", {}),
        ("gemini", {}),
        ("gemini", {"api": "json_schema"}),
    ],
)
def test_a_target_without_the_keywords_reads_the_rules_in_the_description(
    spec: ToolSpec[Any, Any], provider: Any, options: dict[str, Any]
) -> None:
    made = adapter(provider, [spec], **options)
    (tool,) = made.tools()
    text = repr(tool)
    assert not any(f"'{k}'" in text for k in _KEYWORDS), text
    assert f"Rules across the arguments: {_WORDS}." in text
    assert [r.kind for r in made.restated_rules[spec.id]] == ["at_least_one", "exactly_one", "when"]
    if provider == "openai" and options.get("strict"):
        assert check_openai_strict(tool["function"]["parameters"]) == []
    if provider == "gemini" and "api" not in options:
        valid_gemini_declaration(tool)


@pytest.mark.parametrize(
    ("provider", "options"),
    [("mcp", {})],
)
def test_a_target_that_takes_json_schema_gets_the_keywords(
    spec: ToolSpec[Any, Any], provider: Any, options: dict[str, Any]
) -> None:
    made = adapter(provider, [spec], **options)
    (tool,) = made.tools()
    text = repr(tool)
    assert all(f"'{k}'" in text for k in _KEYWORDS), text
    assert "Rules across the arguments" not in text
    assert not made.restated_rules


def test_the_schema_reads_back_as_the_rules_it_states() -> None:
    rules = (
        ArgumentRule("at_least_one", ("a", "b")),
        ArgumentRule("exactly_one", ("c", "d", "e")),
        ArgumentRule("when", ("a",), "f", 3, ()),
        ArgumentRule("when", ("b", "c"), "g", True, ("d",)),
    )
    base = {"type": "object", "properties": {}}
    bare, found = split_rules({**base, **rules_schema(rules)})
    assert bare == base
    assert found == rules
    one = (ArgumentRule("when", ("a",), "f", "x", ("b",)),)
    assert split_rules({**base, **rules_schema(one)}) == (base, one)


def test_an_allof_that_is_no_rule_is_left_alone() -> None:
    schema = {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}]}
    assert split_rules(schema) == (schema, ())


@pytest.mark.parametrize("target", ["openai-strict", "anthropic-strict", "gemini"])
def test_a_target_without_the_keywords_takes_a_tool_with_rules(
    spec: ToolSpec[Any, Any], target: str
) -> None:
    assert check_targets("crm", [catalog_entry(spec)], [target]) == []


def test_a_tool_fallen_back_to_the_plain_form_still_reads_its_rules(
    spec: ToolSpec[Any, Any],
) -> None:
    (tool,) = export([spec], strict=True)
    assert not any(k in tool.parameters for k in _KEYWORDS)
    assert f"Rules across the arguments: {_WORDS}." in tool.description


def test_code_mode_tells_the_code_writing_model_the_rules(spec: ToolSpec[Any, Any]) -> None:
    text = tool_api(replace(ApiTool.from_spec(spec, {}), access="call"))
    assert f"Rules: {_WORDS}" in text
