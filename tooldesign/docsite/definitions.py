"""What each provider receives for a tool: the exact definition, its size, and what it lost.

Definitions come from the runtime's provider exports (``tooldesign export`` writes the same),
one service at a time (tool names are unique per service). A tool that OpenAI's strict mode or
Gemini's OpenAPI ``parameters`` cannot express is shown in the form the provider takes instead
(without strict mode, as ``parametersJsonSchema``) with the reasons; a tool no form of a
provider can take (a name it refuses) is shown with the reasons and no definition.

Sizes are the bytes of the compact JSON sent; tokens are counted with OpenAI's ``cl100k_base``
encoding when the offline tokenizer is installed (``tooldesign[tokens]``; sizes only otherwise).

Beside the providers' forms, code mode's: the tool's share of the typed API a model writes code
against (``code_api.pyi``: the types it needs and its function), measured the same way — or,
for a tool code may not call, why. The site's total for it is every toolset's whole API, as
``tooldesign gen`` writes it (shared types counted once, the stub's opening words included).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pydantic_core
from tooldesign.contract.catalog import CatalogTool
from tooldesign.runtime.codemode.api import ApiTool, api_for_catalog, tool_api
from tooldesign.runtime.providers import ExportError, Provider, adapter
from tooldesign.runtime.providers.tokens import token_counter


@dataclass(frozen=True, slots=True)
class Form:
    """One tab: a provider and the form asked of it."""

    key: str
    label: str
    provider: Provider | None
    """``None``: code mode's typed API, not a provider's export."""
    strict: bool = False
    fallback: bool = False
    asked: str = ""
    """What the form is, for the sentence that says a tool could not take it."""


FORMS: tuple[Form, ...] = (
    Form(
        "openai-strict",
        "OpenAI strict",
        "openai",
        strict=True,
        fallback=True,
        asked="OpenAI's strict mode",
    ),
    Form("anthropic", "Anthropic", "anthropic"),
    Form("gemini", "Gemini", "gemini", fallback=True, asked="Gemini's OpenAPI parameters"),
    Form("mcp", "MCP", "mcp"),
)

CODE_MODE = Form("code-mode", "Code mode", None, asked="code mode")
"""The tab of a tool's share of the typed API code mode shows a model."""


@dataclass(frozen=True, slots=True)
class Definition:
    form: Form
    text: str
    """The definition as indented JSON ("" when the provider cannot take the tool at all)."""
    size: int
    """Bytes of the compact JSON (0 when there is none)."""
    tokens: int | None
    problems: tuple[str, ...]
    """Why the form asked for could not take the tool (it was sent in the plain form)."""
    fallback_form: str = ""
    refused: bool = False
    """True when the provider takes no form of the tool: ``problems`` say why."""


def definitions(tools: Sequence[CatalogTool]) -> dict[str, list[Definition]]:
    """Every form's definition of each tool, by tool id (one export per service and form)."""
    count = token_counter()
    out: dict[str, list[Definition]] = {tool.id: [] for tool in tools}
    by_service: dict[str, list[CatalogTool]] = {}
    for tool in tools:
        by_service.setdefault(tool.service, []).append(tool)
    for form in FORMS:
        for group in by_service.values():
            for tool_id, definition in _export(form, group, count):
                out[tool_id].append(definition)
    for tool in tools:
        out[tool.id].append(_code_api(tool, count))
    return out


def code_api_total(tools: Sequence[CatalogTool]) -> tuple[int, int | None]:
    """Bytes (and tokens) of every toolset's typed API together, as ``gen`` writes each."""
    count = token_counter()
    by_toolset: dict[tuple[str, str], list[CatalogTool]] = {}
    for tool in tools:
        by_toolset.setdefault((tool.service, tool.toolset), []).append(tool)
    size, tokens = 0, 0
    for (service, toolset), group in by_toolset.items():
        # gen's title names the toolset's description too, which a catalog does not hold.
        text = api_for_catalog(group, title=f"Toolset {toolset} of service {service}")
        size += len(text.encode("utf-8"))
        tokens += count(text) if count else 0
    return size, tokens if count else None


def _code_api(tool: CatalogTool, count: Callable[[str], int] | None) -> Definition:
    api_tool = ApiTool.from_catalog(tool)
    text = tool_api(api_tool)
    if not text:
        why = (
            'the design keeps it out of code (CodeAccess("direct"))'
            if tool.code_access == "direct"
            else "it has side effects that are not idempotent and no person confirms it"
        )
        return Definition(
            form=CODE_MODE,
            text="",
            size=0,
            tokens=None,
            problems=(f"code may not call it: {why}; the model calls it directly",),
            refused=True,
        )
    return Definition(
        form=CODE_MODE,
        text=text,
        size=len(text.encode("utf-8")),
        tokens=count(text) if count else None,
        problems=(),
    )


def pretty_json(value: Any) -> str:
    """``value`` as JSON indented by two spaces, as a reader sees it on a page. Written by
    pydantic-core: Python's own encoder indents in pure Python, which for a reference of 1,000
    tools in four forms took most of the build."""
    return pydantic_core.to_json(value, indent=2).decode()


def _export(
    form: Form, tools: Sequence[CatalogTool], count: Callable[[str], int] | None
) -> Iterable[tuple[str, Definition]]:
    assert form.provider is not None, form.key
    try:
        provider = adapter(form.provider, tools, strict=form.strict, fallback=form.fallback)
    except ExportError as error:
        if len(tools) > 1:  # one tool spoils the batch: export each on its own
            for tool in tools:
                yield from _export(form, [tool], count)
            return
        yield tools[0].id, _refused(form, error)
        return
    fallbacks = provider.fallbacks
    for tool, exported in zip(tools, provider.tools(), strict=True):
        compact = json.dumps(exported, separators=(",", ":"), ensure_ascii=False)
        problems = tuple(_reason(p) for p in fallbacks.get(tool.id, ()))
        yield (
            tool.id,
            Definition(
                form=form,
                text=pretty_json(exported),
                size=len(compact.encode("utf-8")),
                tokens=count(compact) if count else None,
                problems=problems,
                fallback_form=provider.fallback_form if problems else "",
            ),
        )


def _refused(form: Form, error: ExportError) -> Definition:
    return Definition(
        form=form,
        text="",
        size=0,
        tokens=None,
        problems=tuple(_reason(p) for p in error.problems),
        refused=True,
    )


def _reason(problem: Any) -> str:
    """A problem without the tool's name (the page is the tool's)."""
    if problem.path is None:
        return str(problem.message)
    where = f"field {problem.path!r}" if problem.path else "its arguments"
    return f"{where}: {problem.message}"


def total_sizes(found: Mapping[str, list[Definition]]) -> dict[str, tuple[int, int | None]]:
    """Per form, the bytes (and tokens) of every tool's definition together."""
    totals: dict[str, tuple[int, int | None]] = {}
    for definitions_of_tool in found.values():
        for definition in definitions_of_tool:
            size, tokens = totals.get(definition.form.key, (0, 0))
            totals[definition.form.key] = (
                size + definition.size,
                None if tokens is None or definition.tokens is None else tokens + definition.tokens,
            )
    return totals
