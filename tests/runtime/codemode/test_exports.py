"""Programmatic tool calling exports: the code-mode policy as each provider's allowed callers,
checked against the pinned SDKs' request types."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import ToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter
from tooldesign.runtime.codemode.exports import ANTHROPIC_CODE_EXECUTION, programmatic_tools

from examples.netops.agent import build_runtime


def valid(kind: Any, value: dict[str, Any]) -> None:
    TypeAdapter(kind).validate_python(value)
    assert set(value) <= set(kind.__annotations__), set(value) - set(kind.__annotations__)


@pytest.mark.parametrize("strict", [False, True])
def test_openai_tools_say_who_may_call_and_what_comes_back(strict: bool) -> None:
    specs = [s for s in build_runtime().specs() if not strict or s.name != "update_preferences"]
    access = {"get_profile": "direct"}
    tools = programmatic_tools(specs, "openai", access=access, strict=strict)
    by_name = {tool["name"]: tool for tool in tools}
    for tool, spec in zip(tools, specs, strict=True):
        valid(FunctionToolParam, tool)
        assert tool["output_schema"] == spec.result.schema
    assert by_name["get_profile"]["allowed_callers"] == ["direct"]
    assert by_name["list_devices"]["allowed_callers"] == ["direct", "programmatic"]
    # A Confirm tool may be called from code: the runtime still waits for the decision.
    assert by_name["restart_device"]["allowed_callers"] == ["direct", "programmatic"]


def test_anthropic_tools_name_the_code_execution_tool_that_may_call_them() -> None:
    specs = build_runtime().specs()
    tools = programmatic_tools(specs, "anthropic", access={"restart_device": "direct"})
    by_name = {tool["name"]: tool for tool in tools}
    for tool in tools:
        valid(ToolParam, tool)
    assert by_name["restart_device"]["allowed_callers"] == ["direct"]
    assert by_name["get_site"]["allowed_callers"] == ["direct", ANTHROPIC_CODE_EXECUTION]


def test_other_providers_and_bad_access_are_refused() -> None:
    specs = build_runtime().specs()
    with pytest.raises(ValueError, match="applies to openai and anthropic"):
        programmatic_tools(specs, "gemini")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expected one of call, approve, direct"):
        programmatic_tools(specs, "openai", access={"get_site": "sometimes"})
