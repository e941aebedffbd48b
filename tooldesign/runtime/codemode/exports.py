"""Provider-side code mode: OpenAI's and Anthropic's programmatic tool calling, from the same
policy as the sandbox's.

The providers run the model's code in their own containers; each call the code makes comes
back to the application as an ordinary tool call, which it runs with ``Runtime.execute`` (so
decoding, injection, limits, interceptors and approvals hold as for any call). What the export
adds to each tool definition:

- ``allowed_callers``: ``direct`` only for a direct-only tool; ``direct`` and the provider's
  code caller (OpenAI ``programmatic``, Anthropic a ``code_execution_…`` tool version) for the
  tools code may call — ``approve`` tools included: the runtime still waits for the person's
  decision before the call runs, so answer such a call only once it is decided (an approver
  that waits, or hold the answer until the decision comes);
- ``output_schema`` (OpenAI): the tool's result schema, so the code knows the shape of what a
  call returns (Anthropic's request type has no such field: its code reads the description).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from tooldesign.runtime.codemode.policy import Access, access_for, checked_overrides
from tooldesign.runtime.providers import export_tools
from tooldesign.runtime.spec.specs import ToolSpec

ANTHROPIC_CODE_EXECUTION = "code_execution_20260120"
"""The Anthropic code execution tool version whose code may call the tools (the default)."""


def programmatic_tools(
    specs: Iterable[ToolSpec[Any, Any]],
    provider: Literal["openai", "anthropic"],
    *,
    access: Mapping[str, str] | None = None,
    strict: bool = False,
    code_execution: str = ANTHROPIC_CODE_EXECUTION,
) -> list[dict[str, Any]]:
    """``provider``'s tool definitions for ``specs`` with the callers the code-mode policy
    allows (OpenAI: the Responses API's function tools)."""
    specs = list(specs)
    overrides: dict[str, Access] = checked_overrides(access or {})
    if provider == "openai":
        tools = export_tools(specs, "openai", strict=strict, api="responses")
    elif provider == "anthropic":
        tools = export_tools(specs, "anthropic", strict=strict)
    else:
        raise ValueError(
            f"programmatic tool calling applies to openai and anthropic, not {provider!r}"
        )
    out = []
    for spec, tool in zip(specs, tools, strict=True):
        from_code = access_for(spec, overrides) != "direct"
        if provider == "openai":
            tool["allowed_callers"] = ["direct", "programmatic"] if from_code else ["direct"]
            tool["output_schema"] = json.loads(json.dumps(spec.result.schema))
        else:
            tool["allowed_callers"] = ["direct", code_execution] if from_code else ["direct"]
        out.append(tool)
    return out
