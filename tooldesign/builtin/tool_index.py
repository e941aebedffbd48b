"""The built-in ``tool_index`` toolset: tools that list and search the runtime's tools.

``tool_index`` lists the tools and their schemas: agents that write code to call tools use it
to discover what they can call. ``search_tools`` ranks them for a query (BM25,
:mod:`tooldesign.runtime.spec.search`): where a provider has no hosted tool search, it is how
the model finds the tools a :class:`~tooldesign.runtime.providers.LoadingPlan` defers. Each
lists and finds only the tools its caller may call (the ``Scopes`` of each, against the call's
verified principal, as the pipeline checks them). Both read
the runtime when called, so toolsets registered later are found too (the search index is built
again when the registered tools change). Neither lists this toolset: whoever calls it already
knows it, and its own schemas would only cost tokens.

Its design lives in ``tooldesign/builtin/design``; the package is generated like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tooldesign.builtin.gen.builtin.toolsets.tool_index import executor
from tooldesign.jsonschema.text import shown
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.providers import LoadingPlan, describe
from tooldesign.runtime.registration import Interceptor, ToolsetRegistration
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.scopes import may_call
from tooldesign.runtime.spec.search import SearchIndex
from tooldesign.runtime.spec.specs import ToolSpec

if TYPE_CHECKING:
    from tooldesign.builtin.gen.builtin.toolsets.tool_index import types as t
else:
    # Its models are imported on the first call, as every generated toolset's are.
    from tooldesign.builtin.gen.builtin.toolsets.tool_index.specs import TYPES as t

SERVICE = "builtin"
TOOLSET = "tool_index"


def tool_index_registration(
    runtime: Runtime,
    *,
    interceptors: Sequence[Interceptor] = (),
    plan: LoadingPlan | None = None,
) -> ToolsetRegistration:
    """The ``tool_index`` toolset, listing and searching the tools registered in ``runtime``.

    Register it in the same runtime: ``runtime.register(tool_index_registration(runtime))``.
    With a ``plan``, ``search_tools`` searches only the tools it defers (the eager ones are in
    the model's request already). A toolset or tag that no registered tool has is an error
    naming the ones there are, so the model can correct its call.
    """
    searcher = ToolSearch(runtime, plan)

    async def list_tools(args: t.ToolIndexPayload, meta: ToolCallMeta) -> t.ToolIndexResult:
        return index_tools(runtime, toolset=args.toolset, tag=args.tag, meta=meta)

    async def search_tools(args: t.SearchToolsPayload, meta: ToolCallMeta) -> t.SearchToolsResult:
        return searcher.search(args.query, limit=args.limit, toolset=args.toolset, meta=meta)

    return executor.new_registration(
        handlers={"tool_index": list_tools, "search_tools": search_tools},
        interceptors=interceptors,
    )


class ToolSearch:
    """What ``search_tools`` answers: the runtime's tools (a plan's deferred ones) for a query."""

    def __init__(self, runtime: Runtime, plan: LoadingPlan | None = None) -> None:
        self.runtime = runtime
        self.plan = plan
        self._built: tuple[tuple[str, ...], SearchIndex, list[ToolSpec[Any, Any]]] | None = None

    def index(self) -> tuple[SearchIndex, list[ToolSpec[Any, Any]]]:
        """The index of the searchable tools, built again when the registered tools change."""
        specs = _others(self.runtime)
        if self.plan is not None:
            specs = [s for s in specs if self.plan.loading(describe(s)) == "deferred"]
        key = tuple(s.id for s in specs)
        if self._built is None or self._built[0] != key:
            self._built = (key, SearchIndex.build(specs), specs)
        return self._built[1], self._built[2]

    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        toolset: str | None = None,
        meta: ToolCallMeta | None = None,
    ) -> t.SearchToolsResult:
        index, specs = self.index()
        within = None
        if toolset is not None:
            _check_toolset(_others(self.runtime), toolset)
            within = frozenset(i for i, s in enumerate(specs) if _in_toolset(s, toolset))
        if _filtered(self.runtime, meta):  # only what the caller may call
            allowed = {i for i, s in enumerate(specs) if _may_call(self.runtime, s, meta)}
            within = frozenset(allowed if within is None else allowed & within)
        hits, total = index.find(query, limit, within=within)
        tools = [
            t.SearchToolsResultToolsItem(
                name=specs[h.position].name, description=specs[h.position].description
            )
            for h in hits
        ]
        return t.SearchToolsResult(tools=tools, returned=len(tools), total=total)


def _filtered(runtime: Runtime, meta: ToolCallMeta | None) -> bool:
    """Whether the caller of ``meta`` may be shown less than every tool."""
    return (meta is not None and meta.principal is not None) or runtime.require_principal


def _may_call(runtime: Runtime, spec: ToolSpec[Any, Any], meta: ToolCallMeta | None) -> bool:
    principal = meta.principal if meta is not None else None
    return may_call(spec.scopes, principal, required=runtime.require_principal)


def _others(runtime: Runtime) -> list[ToolSpec[Any, Any]]:
    return [s for s in runtime.specs() if (s.service, s.toolset) != (SERVICE, TOOLSET)]


def _in_toolset(spec: ToolSpec[Any, Any], toolset: str) -> bool:
    return toolset in (spec.toolset, f"{spec.service}.{spec.toolset}")


def _check_toolset(listed: Sequence[ToolSpec[Any, Any]], toolset: str) -> None:
    if not any(_in_toolset(s, toolset) for s in listed):
        known = ", ".join(sorted({s.toolset for s in listed})) or "none"
        # The model's value is echoed cut short (it may be anything, of any length).
        raise ToolFailure(f"There is no toolset named {shown(toolset)}. Toolsets: {known}.")


def index_tools(
    runtime: Runtime,
    *,
    toolset: str | None = None,
    tag: str | None = None,
    meta: ToolCallMeta | None = None,
) -> t.ToolIndexResult:
    """What ``tool_index`` answers: the registered tools (but itself) that the caller of
    ``meta`` may call, optionally filtered."""
    listed = _others(runtime)
    if _filtered(runtime, meta):
        listed = [s for s in listed if _may_call(runtime, s, meta)]
    specs = listed
    if toolset is not None:
        _check_toolset(listed, toolset)
        specs = [s for s in specs if _in_toolset(s, toolset)]
    if tag is not None:
        known_tags = {tag_ for s in listed for tag_ in s.tags}
        if tag not in known_tags:
            tags = ", ".join(sorted(known_tags)) or "none"
            raise ToolFailure(f"No tool has the tag {shown(tag)}. Tags: {tags}.")
        specs = [s for s in specs if tag in s.tags]
    tools = [
        t.ToolIndexResultToolsItem(
            name=spec.name,
            description=spec.description,
            schema_=t.ToolIndexResultToolsItemSchema(
                input=dict(spec.payload.schema), output=dict(spec.result.schema)
            ),
        )
        for spec in specs
    ]
    return t.ToolIndexResult(tools=tools, count=len(tools))
