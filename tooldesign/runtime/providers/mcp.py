"""MCP tools: ``tools/list`` entries, ``tools/call`` requests and their results.

A tool's ``inputSchema`` is its model-facing payload schema. ``outputSchema`` must describe an
object, so a result that is not one (a string, a list) is wrapped as ``{"result": …}`` — in the
schema (marked ``"x-fastmcp-wrap-result": true``, so that FastMCP's client, and those following
it, unwrap it) and, consistently, in every ``structuredContent`` this adapter writes. Annotations use
MCP's hint names (``readOnlyHint``…). A result answers with ``structuredContent`` and a text
block of what the model reads (``for_model()``: the same JSON, or the text of a text result),
for clients that ignore structured content, followed by the result's content blocks (a tool
declaring ``Content``: images, audio, resource links, embedded resources); an error answers ``isError: true`` with the text
written for the model.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from tooldesign.contract import WRAPPED_RESULT_KEY, WRAPPED_RESULT_MARKER
from tooldesign.contract.catalog import DIALECT
from tooldesign.contract.providers import Provider
from tooldesign.runtime.providers._common import (
    ProviderAdapter,
    ToolIndex,
    as_list,
    field_of,
    result_value,
)
from tooldesign.runtime.providers._schema import IGNORED, Schema
from tooldesign.runtime.result import ToolResult, text_result
from tooldesign.runtime.spec.frozen import copy_json


def output_schema(result: Mapping[str, Any]) -> tuple[Schema, bool]:
    """The ``outputSchema`` for a result schema (new objects), and whether it had to be wrapped
    in an object."""
    # The whole schema is copied, then trimmed: a spec's schema is copied from its image.
    body: Schema = copy_json(result)
    for key in IGNORED:
        body.pop(key, None)
    if not _wraps(result):
        return body, False
    defs = body.pop("$defs", None)
    wrapped: Schema = {
        "type": "object",
        "properties": {WRAPPED_RESULT_KEY: body},
        "required": [WRAPPED_RESULT_KEY],
        "additionalProperties": False,
        WRAPPED_RESULT_MARKER: True,
    }
    if defs is not None:
        wrapped["$defs"] = defs
    return wrapped, True


def _wraps(result: Mapping[str, Any]) -> bool:
    """Whether a result schema needs wrapping: MCP's ``outputSchema`` must be an object."""
    return result.get("type") != "object"


class MCPAdapter(ProviderAdapter):
    """MCP ``Tool`` definitions, ``tools/call`` parsing and ``CallToolResult``s."""

    provider: ClassVar[Provider] = "mcp"

    def __init__(self, index: ToolIndex) -> None:
        super().__init__(index)
        self._wrapped = frozenset(tool.id for tool in index if _wraps(tool.result))
        self._convert_all()

    def tools(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tool in self.index:
            entry: dict[str, Any] = {"name": tool.name}
            if tool.title:
                entry["title"] = tool.title
            entry["description"] = tool.description
            # The dialect stated, as MCP's 2025-11-25 schema allows (SEP-1613): clients that
            # default to another one read the design's keywords as 2020-12's.
            entry["inputSchema"] = {"$schema": DIALECT, **self.parameters(tool)}
            entry["outputSchema"] = output_schema(tool.result)[0]
            hints = tool.annotations.mcp_hints()
            if hints:
                entry["annotations"] = hints
            out.append(entry)
        return out

    def wraps_result(self, name: str) -> bool:
        """Whether the tool (by name or id) carries its result as ``{"result": …}``."""
        tool = self.index.get(name)
        return tool is not None and tool.id in self._wrapped

    def raw_calls(self, source: Any) -> Iterable[tuple[Any, Any, Any]]:
        """``tools/call`` requests: JSON-RPC messages, their ``params``, or SDK request objects.

        The JSON-RPC id (when there is one) becomes the call's ``tool_call_id``.
        """
        return _tool_calls(source)

    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        """A ``CallToolResult``: structured content and its JSON text, or ``isError``."""
        message: dict[str, Any] = {"content": [{"type": "text", "text": result.for_model()}]}
        if result.ok:
            ok, value = result_value(result)
            if result.model_text is not None and text_result(result.result) is None:
                # Data over its budget, shown as a preview: the structured content is the
                # preview (shaped like the result), the text adds what was left out.
                ok, value = _preview_value(result.model_text)
            if ok and self.wraps_result(result.name):
                message["structuredContent"] = {WRAPPED_RESULT_KEY: value}
            elif ok and isinstance(value, dict):
                message["structuredContent"] = value
            # Anything else would not match the tool's outputSchema: the text alone carries it.
            message["content"].extend(block.to_mcp() for block in result.content)
        message["isError"] = not result.ok
        return message

    def unwrap(self, name: str, structured: Any) -> Any:
        """The tool's result value from the ``structuredContent`` of its ``CallToolResult``.

        The inverse of :meth:`result_message`: ``{"result": …}`` gives back what is inside it
        for a tool whose result is not an object; any other tool's structured content is its
        result as it is. ``name`` is the tool's name or id.
        """
        if self.wraps_result(name) and isinstance(structured, Mapping):
            return structured.get(WRAPPED_RESULT_KEY)
        return structured


def _preview_value(text: str) -> tuple[bool, Any]:
    """The preview a result's text starts with (the JSON before the notice)."""
    try:
        return True, json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        return False, None


def _tool_calls(source: Any) -> Iterable[tuple[Any, Any, Any]]:
    for item in as_list(source):
        params = field_of(item, "params")
        call = params if params is not None else item
        call_id = field_of(item, "id") if params is not None else None
        yield field_of(call, "name"), field_of(call, "arguments") or {}, call_id
