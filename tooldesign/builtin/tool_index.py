"""The built-in ``tool_index`` toolset: a tool that lists the runtime's tools and their schemas.

Agents that write code to call tools use it to discover what they can call. It reads the
runtime when it is called, so toolsets registered later are listed too. It does not list
itself: whoever calls it already knows it, and its own schemas would only cost tokens.

Its design lives in ``tooldesign/builtin/design``; the package is generated like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tooldesign.builtin.gen.builtin.toolsets.tool_index import executor
from tooldesign.jsonschema.text import shown
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.registration import Interceptor, ToolsetRegistration
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.runtime import Runtime

if TYPE_CHECKING:
    from tooldesign.builtin.gen.builtin.toolsets.tool_index import types as t
else:
    # Its models are imported on the first call, as every generated toolset's are.
    from tooldesign.builtin.gen.builtin.toolsets.tool_index.specs import TYPES as t

SERVICE = "builtin"
TOOLSET = "tool_index"


def tool_index_registration(
    runtime: Runtime, *, interceptors: Sequence[Interceptor] = ()
) -> ToolsetRegistration:
    """The ``tool_index`` toolset, listing the tools registered in ``runtime``.

    Register it in the same runtime: ``runtime.register(tool_index_registration(runtime))``.
    A toolset or tag that no registered tool has is an error naming the ones there are, so the
    model can correct its call.
    """

    async def list_tools(args: t.ToolIndexPayload, meta: ToolCallMeta) -> t.ToolIndexResult:
        return index_tools(runtime, toolset=args.toolset, tag=args.tag)

    return executor.new_registration(handlers={"tool_index": list_tools}, interceptors=interceptors)


def index_tools(
    runtime: Runtime, *, toolset: str | None = None, tag: str | None = None
) -> t.ToolIndexResult:
    """What ``tool_index`` answers: the registered tools (but itself), optionally filtered."""
    listed = [s for s in runtime.specs() if (s.service, s.toolset) != (SERVICE, TOOLSET)]
    specs = listed
    if toolset is not None:
        keys = {s.toolset for s in specs} | {f"{s.service}.{s.toolset}" for s in specs}
        if toolset not in keys:
            known = ", ".join(sorted({s.toolset for s in listed})) or "none"
            # The model's value is echoed cut short (it may be anything, of any length).
            raise ToolFailure(f"There is no toolset named {shown(toolset)}. Toolsets: {known}.")
        specs = [s for s in specs if toolset in (s.toolset, f"{s.service}.{s.toolset}")]
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
