"""What every framework integration shares: which tools, their schemas, a call's metadata and
request, and how a failed call reads.

No framework is imported here. Each integration turns an :class:`ExportedTool` into its
framework's tool, builds the call's :class:`ToolCallMeta` from its framework's run context
(:func:`with_call_ids`), runs :meth:`ExportedTool.request` through :meth:`Runtime.execute`, and
answers with :meth:`ToolResult.for_model` — or, for a failed call, with what its framework offers
for the result's :class:`~tooldesign.runtime.Recovery`. Which calls wait for a person is the
design's ``Confirm``, asked of :meth:`Runtime.approval_for`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tooldesign.runtime.providers import adapter
from tooldesign.runtime.providers._common import decode_arguments
from tooldesign.runtime.request import ToolCallMeta, ToolRequest, with_ids
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.spec.specs import ToolSpec

Toolsets = str | Iterable[str] | None
"""Which toolsets to hand a framework: ``None`` for every registered one, else names
(``"devices"``) or keys (``"assistant.devices"``)."""


@dataclass(frozen=True, slots=True)
class ExportedTool:
    """One tool as a framework shows it to the model.

    ``parameters`` is the schema from the provider export, not re-derived: OpenAI's strict form
    when ``strict`` (every field required, optional ones nullable), else the generated schema.
    """

    spec: ToolSpec[Any, Any]
    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool

    def arguments(self, raw: Any) -> str | bytes | dict[str, Any]:
        """The model's arguments (JSON text or an object) as the runtime takes them. A strict
        tool's nulls for optional fields — strict mode makes the model send them — are dropped,
        so the fields take their defaults."""
        return decode_arguments(raw, self.spec.payload.schema if self.strict else None)

    def request(self, raw: Any, meta: ToolCallMeta) -> ToolRequest:
        """The runtime request for one call with the model's arguments ``raw``."""
        return ToolRequest(self.spec.id, self.arguments(raw), meta)


def select_specs(runtime: Runtime, toolsets: Toolsets = None) -> list[ToolSpec[Any, Any]]:
    """The specs of the chosen toolsets, in registration order; an unknown name is an error
    that lists the registered toolsets."""
    if toolsets is None:
        return runtime.specs()
    names = [toolsets] if isinstance(toolsets, str) else list(toolsets)
    registered = runtime.toolsets()
    known = {key for t in registered for key in (t.toolset, f"{t.service}.{t.toolset}")}
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(f"{t.service}.{t.toolset}" for t in registered) or "none"
        raise ValueError(
            f"no toolset {', '.join(repr(n) for n in unknown)} in this runtime (registered: {listed})"
        )
    chosen = [spec for name in names for spec in runtime.specs(name)]
    return list({spec.id: spec for spec in chosen}.values())


def export(specs: Iterable[ToolSpec[Any, Any]], *, strict: bool) -> list[ExportedTool]:
    """The tools as OpenAI-style function definitions, one per spec, in order.

    With ``strict``, each tool strict mode can express is exported strict; one it cannot (an
    open map, an untyped value) gets the plain schema and ``strict=False``. Names are checked
    against OpenAI's rule, which every framework here sends on.
    """
    specs = list(specs)
    provider = adapter("openai", specs, strict=strict, api="responses", fallback=strict)
    return [
        ExportedTool(
            spec=spec,
            name=definition["name"],
            description=definition["description"],
            parameters=definition["parameters"],
            strict=bool(definition["strict"]),
        )
        for spec, definition in zip(specs, provider.tools(), strict=True)
    ]


def with_call_ids(
    meta: ToolCallMeta, *, run_id: str | None, tool_call_id: str | None
) -> ToolCallMeta:
    """``meta`` with the framework's run and call ids where the application left them out."""
    run_id = meta.run_id or run_id or None
    tool_call_id = meta.tool_call_id or tool_call_id or None
    if run_id == meta.run_id and tool_call_id == meta.tool_call_id:
        return meta
    return with_ids(meta, run_id=run_id, tool_call_id=tool_call_id, call_id=meta.call_id)


def retry_text(result: ToolResult) -> str:
    """What a framework's own retry request carries: the runtime's text for the model, ending
    with the recovery as every failed call's does, without the ``Error:`` the framework's own
    framing says already."""
    return result.for_model().removeprefix("Error: ")
