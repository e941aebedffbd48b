"""Serving calls that came from a queue, whatever the engine: what a worker checks and runs.

A worker serves the local toolsets of a :class:`Runtime`, each under its catalog version
(:func:`~tooldesign.contract.catalog.toolset_version`). A call is refused, without running,
when it names another toolset or version or a tool the toolset lacks, and answered ``timeout``
when its deadline passed before it started. Otherwise the runtime runs it (decode, injection,
interceptors, the tool, bounds, server data, encoding), bounded by the time left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tooldesign.contract.catalog import toolset_version
from tooldesign.runtime import answers
from tooldesign.runtime.request import ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.spec.specs import ToolSpec
from tooldesign.runtime.transports.base import TransportError
from tooldesign.runtime.transports.wire import CallMessage


@dataclass(frozen=True, slots=True)
class ServedToolset:
    """One toolset a worker serves: its key (``service.toolset``), version and tools by id."""

    key: str
    version: str
    specs: Mapping[str, ToolSpec[Any, Any]]

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.specs.values()]

    def repeatable(self, tool_id: str) -> bool:
        """Whether running the tool again is harmless (``idempotent`` or ``read_only``)."""
        spec = self.specs.get(tool_id)
        if spec is None:
            return False
        annotations = spec.annotations
        return bool(annotations.idempotent or annotations.read_only)


def served_toolsets(runtime: Runtime, only: Iterable[str] = ()) -> list[ServedToolset]:
    """The local toolsets of ``runtime`` (remote registrations are not served again), or those
    named in ``only`` (``toolset`` or ``service.toolset``)."""
    local = [info for info in runtime.toolsets() if not info.remote]
    wanted = list(only)
    if wanted:
        keys = {f"{i.service}.{i.toolset}" for i in local}
        unknown = [n for n in wanted if n not in keys and n not in {i.toolset for i in local}]
        if unknown:
            raise TransportError(
                f"the runtime has no toolset {', '.join(map(repr, unknown))} "
                f"(it has {', '.join(sorted(keys)) or 'none'})"
            )
        local = [i for i in local if i.toolset in wanted or f"{i.service}.{i.toolset}" in wanted]
    if not local:
        raise TransportError("the runtime has no local toolset to serve")
    served = []
    for info in local:
        key = f"{info.service}.{info.toolset}"
        specs = runtime.specs(key)
        served.append(ServedToolset(key, toolset_version(specs), {s.id: s for s in specs}))
    return served


def refusal(served: ServedToolset, message: CallMessage, now: float) -> ToolResult | None:
    """Why ``message`` must not run here (the version aside: see :func:`answers.other_version`),
    or ``None``. The checks cost nothing, so they come before anything is recorded."""
    if message.toolset != served.key or message.tool not in served.specs:
        return answers.not_in_toolset(message.tool, served.key, served.names)
    if message.deadline <= now:
        return answers.expired(message.tool)
    return None


async def execute(runtime: Runtime, message: CallMessage, now: float) -> tuple[ToolResult, bool]:
    """Run ``message`` through ``runtime`` within the time left before its deadline.

    Returns the result and whether the tool ran to its end: only such a result may answer a
    later attempt at the same call (a call cut short may have done part of its work).
    """
    limit = message.deadline - now
    request = ToolRequest(message.tool, message.payload, message.meta)
    try:
        async with asyncio.timeout(limit):
            granted = (message.approval,) if message.approval is not None else ()
            approvals = (*granted, *message.decisions)  # (an agent-implemented tool's inner run's)
            return await runtime.execute(request, approvals=approvals), True
    except TimeoutError:
        return answers.out_of_time(message.tool, limit), False
