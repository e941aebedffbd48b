"""Deferred loading: which tools a request carries whole, and how the model finds the others.

A deployment with hundreds of tools need not paste every definition into every request. A
:class:`LoadingPlan` says which tools are loaded eagerly and which are deferred — by tool name
or id, toolset (``devices`` or ``assistant.devices``) or tag (``tag:admin``), with a rule for
read-only tools and a default for the rest — and :func:`deferred_export` writes each provider's
form of that plan:

- OpenAI Responses: the deferred tools carry ``defer_loading: true`` and the hosted
  ``tool_search`` tool is added; the model searches them server-side.
- Anthropic: the deferred tools carry ``defer_loading: true`` and the hosted BM25 tool search
  tool (``tool_search_tool_bm25_20251119``) is added.
- Providers without a native search (OpenAI Chat Completions, Gemini, MCP), or any of them with
  ``search="client"``: the deferred tools are left out and the builtin ``search_tools`` tool
  (:mod:`tooldesign.builtin.tool_index`, BM25 over the same words as :mod:`.spec.search`) is
  the model's way to find them; the application adds what it found to the next request
  (``loaded=[...]``), after what is there already, so the prefix a cache holds stays put.

Asking a provider for a search it does not have (``search="native"`` on Chat Completions), or
a client-side search without the ``search_tools`` tool among the tools exported, is an error
saying so — never a silent fallback to loading everything.

The eager part comes first, in the order the tools were given, and each tool's definition
depends on that tool alone: adding, changing or removing a deferred tool leaves the bytes of the
eager prefix as they were. What changes them: an eager tool added, removed, reordered or
changed, the plan moving a tool between the two, the provider, ``api``, ``strict`` or the
search mode. A plan that defers nothing exports exactly what :func:`export_tools` does without
one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldesign.contract.errors import UserError
from tooldesign.contract.loading import Loading
from tooldesign.runtime.providers._common import ProviderAdapter, ToolDescription
from tooldesign.runtime.providers.tokens import token_counter

SearchMode = Literal["native", "client"]

SEARCH_TOOL_ID = "builtin.tool_index.search_tools"
"""The builtin search tool's id: the model's search where the provider has none."""
BUILTIN_TOOLSET = ("builtin", "tool_index")
"""The builtin discovery toolset: always eager (a search the model cannot see finds nothing)."""

OPENAI_TOOL_SEARCH: Mapping[str, Any] = {"type": "tool_search"}
ANTHROPIC_TOOL_SEARCH: Mapping[str, Any] = {
    "type": "tool_search_tool_bm25_20251119",
    "name": "tool_search_tool_bm25",
}


class PlanError(UserError, ValueError):
    """A loading plan that cannot be exported as asked; the message says why and what to do."""


def _selectors(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True, slots=True)
class LoadingPlan:
    """Which tools are loaded eagerly and which are deferred.

    ``eager`` and ``deferred`` list selectors: a tool's name or id, a toolset's name or
    ``service.toolset``, or ``tag:<tag>``. A tool an ``eager`` selector matches is eager (so
    ``deferred=["inventory"], eager=["list_items"]`` defers a toolset but one tool); else one a
    ``deferred`` selector matches is deferred; else the design's ``Loading(...)`` decides,
    when it says (``design=False`` ignores it); else a read-only tool is eager when
    ``read_only_eager``; else ``default`` decides. The default plan (``LoadingPlan()``) is the
    design's: everything eager unless the design defers some. The builtin discovery tools are
    always eager.

    ``namespaces`` groups the deferred tools by toolset where the provider has namespaces
    (OpenAI Responses, whose tool search is trained on them): each namespace is named after its
    toolset and described by ``namespaces[toolset]`` when it is a mapping, else by the titles of
    its tools. Other providers have none, and export the plan as without it.
    """

    deferred: tuple[str, ...] = ()
    eager: tuple[str, ...] = ()
    default: Loading = "eager"
    read_only_eager: bool = False
    design: bool = True
    namespaces: bool | tuple[tuple[str, str], ...] = False
    """``True``, or the descriptions given: ``(toolset, description)`` pairs, sorted."""

    def __init__(
        self,
        *,
        deferred: str | Iterable[str] = (),
        eager: str | Iterable[str] = (),
        default: Loading = "eager",
        read_only_eager: bool = False,
        design: bool = True,
        namespaces: bool | Mapping[str, str] | tuple[tuple[str, str], ...] = False,
    ) -> None:
        if default not in ("eager", "deferred"):
            raise ValueError(f"default must be 'eager' or 'deferred', not {default!r}")
        if isinstance(namespaces, Mapping | tuple):  # descriptions given: grouped, described
            pairs = namespaces.items() if isinstance(namespaces, Mapping) else namespaces
            namespaces = tuple(sorted((str(k), str(v)) for k, v in pairs)) or True
        object.__setattr__(self, "namespaces", namespaces)
        object.__setattr__(self, "deferred", _selectors(deferred))
        object.__setattr__(self, "eager", _selectors(eager))
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "read_only_eager", read_only_eager)
        object.__setattr__(self, "design", design)

    @property
    def namespace_descriptions(self) -> dict[str, str]:
        """The namespace descriptions given, by toolset."""
        return dict(self.namespaces) if isinstance(self.namespaces, tuple) else {}

    def loading(self, tool: ToolDescription) -> Loading:
        """How ``tool`` is loaded under this plan."""
        if (tool.service, tool.toolset) == BUILTIN_TOOLSET:
            return "eager"
        if any(_matches(s, tool) for s in self.eager):
            return "eager"
        if any(_matches(s, tool) for s in self.deferred):
            return "deferred"
        if self.design and tool.loading is not None:
            return tool.loading
        if self.read_only_eager and tool.annotations.read_only:
            return "eager"
        return self.default

    def check(self, tools: Iterable[ToolDescription]) -> None:
        """A :class:`PlanError` naming each selector that matches none of ``tools``."""
        listed = list(tools)
        unknown = [
            s for s in (*self.eager, *self.deferred) if not any(_matches(s, t) for t in listed)
        ]
        if unknown:
            toolsets = sorted({t.toolset for t in listed})
            raise PlanError(
                "the loading plan names "
                + ", ".join(repr(s) for s in unknown)
                + ", which is no tool name or id, toolset or tag:<tag> of the tools exported "
                + f"(toolsets: {', '.join(toolsets) or 'none'})"
            )


def _matches(selector: str, tool: ToolDescription) -> bool:
    if selector.startswith("tag:"):
        return selector[4:] in tool.tags
    return selector in (tool.name, tool.id, tool.toolset, f"{tool.service}.{tool.toolset}")


@dataclass(frozen=True, slots=True)
class DeferredExport:
    """One provider's tools for a plan: what to send, and how it splits.

    ``tools`` is the request's list; ``prefix`` its eager part (eager tools, then the search
    tool), whose bytes stay the same while only deferred tools change; ``deferred`` the ids of
    the tools not loaded whole (those ``loaded`` are sent after the prefix in client mode).
    """

    provider: str
    search: SearchMode | None
    tools: list[dict[str, Any]]
    prefix: list[dict[str, Any]]
    eager: tuple[str, ...]
    deferred: tuple[str, ...]
    sizes: Mapping[str, int] = field(default_factory=dict)
    """Each eager tool's definition, in bytes of compact JSON, by id."""

    def prefix_bytes(self) -> bytes:
        """The eager prefix as compact, key-ordered JSON: what a prompt cache keeps."""
        return json.dumps(self.prefix, sort_keys=True, separators=(",", ":")).encode()

    def prefix_tokens(self) -> int | None:
        """The eager prefix's cl100k tokens (``None`` without the ``tokens`` extra)."""
        count = token_counter()
        return None if count is None else count(json.dumps(self.prefix))

    def check_budget(self, tokens: int) -> None:
        """A :class:`PlanError` when the eager prefix costs more than ``tokens``, naming the
        largest eager tools (the ones to defer first)."""
        count = token_counter()
        if count is None:
            raise PlanError(
                "a token budget needs a token counter: pip install 'tooldesign[tokens]'"
            )
        spent = count(json.dumps(self.prefix))
        if spent <= tokens:
            return
        largest = sorted(self.sizes.items(), key=lambda item: (-item[1], item[0]))[:5]
        names = ", ".join(f"{ident} ({size:,} bytes)" for ident, size in largest)
        raise PlanError(
            f"the eager tools for {self.provider} cost {spent:,} tokens, over the budget of "
            f"{tokens:,}; the largest are {names}: defer some of them"
        )


def native_search(adapter: ProviderAdapter) -> Mapping[str, Any] | None:
    """The provider's hosted tool search tool, or ``None`` where it has none."""
    if adapter.provider == "anthropic":
        return ANTHROPIC_TOOL_SEARCH
    if adapter.provider == "openai" and getattr(adapter, "api", None) == "responses":
        return OPENAI_TOOL_SEARCH
    return None


def deferred_export(
    adapter: ProviderAdapter,
    plan: LoadingPlan,
    *,
    search: SearchMode | None = None,
    loaded: Iterable[str] = (),
) -> DeferredExport:
    """``adapter``'s tools under ``plan`` (see the module's text for each provider's form).

    ``search`` is ``"native"`` (the provider's hosted search), ``"client"`` (the builtin
    ``search_tools``) or ``None`` (native where the provider has one, else client).
    ``loaded`` names deferred tools (names or ids) the model found, for client mode.
    """
    tools = list(adapter.index)
    plan.check(tools)
    definitions = dict(zip((t.id for t in tools), adapter.tools(), strict=True))
    label = getattr(adapter, "label", adapter.provider)
    where = _where(adapter)
    deferred = [t for t in tools if plan.loading(t) == "deferred"]
    searcher = next((t for t in tools if t.id == SEARCH_TOOL_ID), None)
    found = list(dict.fromkeys(loaded))
    if not deferred:
        if found:
            raise PlanError(f"loaded names {found[0]!r}, but the plan defers no tool")
        eager = [str(t.id) for t in tools]
        return _export(label, None, [definitions[i] for i in eager], eager, (), [], definitions)
    hosted = native_search(adapter)
    mode: SearchMode = search or ("native" if hosted is not None else "client")
    if mode == "native" and hosted is None:
        raise PlanError(
            f"{where} has no native tool search (OpenAI Responses and Anthropic have one); "
            "export with search='client' and the builtin search_tools tool among the tools "
            "(tooldesign.builtin.tool_index), or for a provider that has one"
        )
    if mode == "client" and searcher is None:
        raise PlanError(
            f"a deferred catalog for {where} needs a search tool the model can call: add the "
            f"builtin search_tools ({SEARCH_TOOL_ID}, registered with "
            "tooldesign.builtin.tool_index.tool_index_registration) to the tools exported"
        )
    later: set[str] = {t.id for t in deferred}
    if mode == "native":
        later.add(SEARCH_TOOL_ID)  # the hosted search replaces the builtin one
    eager = [str(t.id) for t in tools if t.id not in later]
    prefix = [definitions[i] for i in eager]
    rest: list[dict[str, Any]] = []
    if mode == "native" and hosted is not None:
        if found:
            raise PlanError(
                f"{where} loads what its hosted search finds itself; "
                "loaded applies to search='client'"
            )
        prefix.append(dict(hosted))
        rest = [{**definitions[t.id], "defer_loading": True} for t in deferred]
        if plan.namespaces and adapter.provider == "openai":
            rest = _namespaces(deferred, rest, plan.namespace_descriptions)
    else:
        by_key = {key: t for t in deferred for key in (t.id, t.name)}
        for key in found:
            tool = by_key.get(key)
            if tool is None:
                raise PlanError(f"loaded names {key!r}, which is no deferred tool of this export")
            rest.append(definitions[tool.id])
    return _export(
        label, mode, prefix + rest, eager, tuple(t.id for t in deferred), prefix, definitions
    )


NAMESPACE_DESCRIPTION_LIMIT = 1024
"""The longest namespace description made from tool titles (a namespace's text is what the
model reads of all its tools until it searches)."""


def _namespaces(
    deferred: list[ToolDescription],
    definitions: list[dict[str, Any]],
    described: Mapping[str, str],
) -> list[dict[str, Any]]:
    """OpenAI Responses namespaces: the deferred functions grouped by toolset, in the order
    their toolsets first come (``defer_loading`` stays on each function, as OpenAI asks). A
    toolset name two services share is named ``service_toolset`` for both."""
    services: dict[str, set[str]] = {}
    for tool in deferred:
        services.setdefault(tool.toolset, set()).add(tool.service)
    groups: dict[str, tuple[ToolDescription, list[tuple[ToolDescription, dict[str, Any]]]]] = {}
    for tool, definition in zip(deferred, definitions, strict=True):
        shared = len(services[tool.toolset]) > 1
        name = f"{tool.service}_{tool.toolset}" if shared else tool.toolset
        groups.setdefault(name, (tool, []))[1].append((tool, definition))
    out: list[dict[str, Any]] = []
    for name, (first, members) in groups.items():
        text = described.get(name) or described.get(first.toolset)
        out.append(
            {
                "type": "namespace",
                "name": name,
                "description": text or _namespace_text(first, [t for t, _ in members]),
                "tools": [definition for _, definition in members],
            }
        )
    return out


def _namespace_text(first: ToolDescription, tools: list[ToolDescription]) -> str:
    head = f"Toolset {first.toolset} of service {first.service}: "
    text = head + "; ".join((t.title or t.name.replace("_", " ")) for t in tools)
    if len(text) <= NAMESPACE_DESCRIPTION_LIMIT:
        return text
    return text[: NAMESPACE_DESCRIPTION_LIMIT - 1].rsplit("; ", 1)[0] + "…"


def _export(
    label: str,
    mode: SearchMode | None,
    tools: list[dict[str, Any]],
    eager: list[str],
    deferred: tuple[str, ...],
    prefix: list[dict[str, Any]],
    definitions: Mapping[str, dict[str, Any]],
) -> DeferredExport:
    sizes = {i: len(json.dumps(definitions[i], separators=(",", ":"))) for i in eager}
    return DeferredExport(label, mode, tools, prefix or list(tools), tuple(eager), deferred, sizes)


def _where(adapter: ProviderAdapter) -> str:
    api = getattr(adapter, "api", None)
    if adapter.provider == "openai":
        return "OpenAI Responses" if api == "responses" else "OpenAI Chat Completions"
    return {"anthropic": "Anthropic", "gemini": "Gemini", "mcp": "MCP"}.get(
        adapter.provider, adapter.provider
    )


__all__ = [
    "ANTHROPIC_TOOL_SEARCH",
    "OPENAI_TOOL_SEARCH",
    "SEARCH_TOOL_ID",
    "DeferredExport",
    "LoadingPlan",
    "PlanError",
    "SearchMode",
    "deferred_export",
    "native_search",
]
