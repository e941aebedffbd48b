"""Tools for every provider: definitions out, tool calls in, results back.

From generated specs (``runtime.specs()``, ``specs.SPECS``) or catalogs (``load_tools``)::

    export_tools(specs, "openai", strict=True)            # Chat Completions tools
    export_tools(specs, "openai", api="responses")        # Responses tools
    export_tools(specs, "anthropic")                      # {name, description, input_schema}
    export_tools(specs, "gemini")                         # function declarations (OpenAPI subset)
    export_tools(specs, "gemini", api="json_schema")      # … with parametersJsonSchema
    export_tools(specs, "mcp")                            # MCP Tool objects
    export_tools(specs, "openai", strict=True, fallback=True)  # strict where it can be
    export_tools(specs, "anthropic", plan=LoadingPlan(deferred="inventory"))  # + tool search

With ``fallback=True`` a tool the form asked for cannot express (strict mode, Gemini's OpenAPI
``parameters``) is exported in the provider's plain form instead (without strict, as
``parametersJsonSchema``); ``adapter(...).fallbacks`` lists those tools and why. Both providers
take the choice per tool.

    provider = adapter("openai", specs, strict=True)
    requests = provider.parse_calls(completion)           # → ToolRequests for Runtime.execute
    messages = [provider.result_message(r) for r in results]

Provider-facing names are the tool names; ``ToolIndex`` maps them back to ids, and two tools
of one export with the same name are an :class:`ExportError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tooldesign.contract.collector import cycle_collector_paused
from tooldesign.contract.providers import APIS, PROVIDERS, STRICT_PROVIDERS, Provider
from tooldesign.runtime.providers._common import (
    ExportError,
    ExportProblem,
    ProviderAdapter,
    ToolDescription,
    ToolIndex,
    ToolSource,
    describe,
)
from tooldesign.runtime.providers.anthropic import (
    AnthropicAdapter,
    anthropic_strict_schema,
    check_anthropic_strict,
)
from tooldesign.runtime.providers.deferred import (
    SEARCH_TOOL_ID,
    DeferredExport,
    LoadingPlan,
    PlanError,
    SearchMode,
    deferred_export,
)
from tooldesign.runtime.providers.gemini import GeminiAdapter, gemini_parameters
from tooldesign.runtime.providers.mcp import MCPAdapter, output_schema
from tooldesign.runtime.providers.openai import (
    OpenAIAdapter,
    check_openai_strict,
    openai_strict_schema,
)
from tooldesign.runtime.providers.prompt import prompt_listing
from tooldesign.runtime.providers.sources import load_tools


def adapter(
    provider: Provider,
    tools: Iterable[ToolSource] | ToolIndex,
    *,
    strict: bool = False,
    api: str | None = None,
    fallback: bool = False,
) -> ProviderAdapter:
    """The adapter of ``provider`` for ``tools``.

    ``strict`` applies to OpenAI and Anthropic; ``api`` picks a shape within a provider
    (OpenAI ``"chat"`` or ``"responses"``, Gemini ``"parameters"`` or ``"json_schema"``).
    ``fallback`` exports a tool that strict mode (or Gemini's ``parameters``) cannot express
    in the plain form instead; the adapter's ``fallbacks`` lists them.
    Raises :class:`ExportError` listing every tool that cannot be exported as asked.
    """
    index = tools if isinstance(tools, ToolIndex) else ToolIndex(tools)
    shapes = APIS.get(provider, ())
    if api is not None and api not in shapes:
        choices = ", ".join(repr(s) for s in shapes) or "none"
        raise ValueError(f"api={api!r} does not apply to {provider} (choices: {choices})")
    if strict and provider not in STRICT_PROVIDERS:
        raise ValueError(
            f"{provider} has no strict mode; strict applies to {' and '.join(STRICT_PROVIDERS)}"
        )
    if fallback and not (strict or (provider == "gemini" and api != "json_schema")):
        raise ValueError(
            "fallback applies to strict exports (openai, anthropic) and to Gemini's parameters, "
            f"where a tool may need the plain form; {provider} "
            f"{'with api=' + repr(api) if api else 'without strict'} is plain already"
        )
    match provider:
        case "openai":
            return OpenAIAdapter(
                index,
                strict=strict,
                api="responses" if api == "responses" else "chat",
                fallback=fallback,
            )
        case "anthropic":
            return AnthropicAdapter(index, strict=strict, fallback=fallback)
        case "gemini":
            return GeminiAdapter(
                index,
                api="json_schema" if api == "json_schema" else "parameters",
                fallback=fallback,
            )
        case "mcp":
            return MCPAdapter(index)
    raise ValueError(f"unknown provider {provider!r} (choices: {', '.join(PROVIDERS)})")


def export_tools(
    tools: Iterable[ToolSource] | ToolIndex,
    provider: Provider,
    *,
    strict: bool = False,
    api: str | None = None,
    fallback: bool = False,
    plan: LoadingPlan | None = None,
    search: SearchMode | None = None,
    loaded: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """``provider``'s tool definitions for ``tools``, one per tool, in order (see :func:`adapter`).

    With a ``plan``, deferred tools are loaded through the provider's tool search or the
    builtin ``search_tools`` (``search``, ``loaded``: see :func:`deferred_export`). Without
    one, the design's plan: tools it declares ``Loading("deferred")`` are deferred (and the
    rest as they always were).
    """
    with cycle_collector_paused():
        made = adapter(provider, tools, strict=strict, api=api, fallback=fallback)
        if plan is None:
            if not any(tool.loading == "deferred" for tool in made.index):
                if search is not None or tuple(loaded):
                    raise ValueError("search and loaded apply to an export with a loading plan")
                return made.tools()
            plan = LoadingPlan()  # the design defers some tools: its plan
        return deferred_export(made, plan, search=search, loaded=loaded).tools


__all__ = [
    "PROVIDERS",
    "SEARCH_TOOL_ID",
    "AnthropicAdapter",
    "DeferredExport",
    "ExportError",
    "ExportProblem",
    "GeminiAdapter",
    "LoadingPlan",
    "MCPAdapter",
    "OpenAIAdapter",
    "PlanError",
    "Provider",
    "ProviderAdapter",
    "SearchMode",
    "ToolDescription",
    "ToolIndex",
    "ToolSource",
    "adapter",
    "anthropic_strict_schema",
    "check_anthropic_strict",
    "check_openai_strict",
    "deferred_export",
    "describe",
    "export_tools",
    "gemini_parameters",
    "load_tools",
    "openai_strict_schema",
    "output_schema",
    "prompt_listing",
]
