"""One call through a runtime, as an agent makes it."""

from __future__ import annotations

from typing import Any

from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult

ALICE = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="call-1")
"""The metadata of a call a model makes in Alice's session."""


def call(
    runtime: Runtime, name: Any, payload: Any = "{}", meta: ToolCallMeta = ALICE, **options: Any
) -> ToolResult:
    """One call through ``runtime``, as an agent makes it (``execute_sync``; ``options`` go to
    it)."""
    return runtime.execute_sync(ToolRequest(name, payload, meta), **options)
