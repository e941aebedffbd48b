"""Results: what every tool call returns, whatever happened."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, RootModel
from tooldesign.contract import BOUNDS_CONFIG_KEY
from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.text import compact_json


@dataclass(frozen=True, slots=True)
class Bounds:
    """How much of the full answer a bounded result carries.

    ``returned`` items are in the result; ``total`` is the full count when known; ``truncated``
    says more exist; ``refinement_hint`` tells the model how to narrow the query;
    ``next_cursor`` fetches the next page.
    """

    returned: int
    total: int | None = None
    truncated: bool = False
    refinement_hint: str | None = None
    next_cursor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"returned": self.returned, "truncated": self.truncated}
        if self.total is not None:
            data["total"] = self.total
        if self.refinement_hint is not None:
            data["refinement_hint"] = self.refinement_hint
        if self.next_cursor is not None:
            data["next_cursor"] = self.next_cursor
        return data


class BoundedResultModel(BaseModel):
    """Base class of generated bounded result types.

    Generated subclasses declare ``returned``, ``total``, ``truncated`` and ``refinement_hint``
    (and a next-cursor field when the tool pages, named in the model config).
    """

    def result_bounds(self) -> Bounds:
        extra = self.model_config.get("json_schema_extra")
        config = extra.get(BOUNDS_CONFIG_KEY) if isinstance(extra, Mapping) else None
        cursor_attr = config.get("next_cursor") if isinstance(config, Mapping) else None
        return Bounds(
            returned=getattr(self, "returned", 0),
            total=getattr(self, "total", None),
            truncated=bool(getattr(self, "truncated", False)),
            refinement_hint=getattr(self, "refinement_hint", None),
            next_cursor=getattr(self, str(cursor_attr), None) if cursor_attr else None,
        )


@dataclass(frozen=True, slots=True)
class ToolCallMeta:
    """Who is calling, from where. The source of injected fields.

    ``labels`` carry application values (tenant, user) that injected fields can also be filled
    from. ``server_data`` turns server-data kinds on or off for this call, overriding the design's
    default.
    """

    run_id: str | None = None
    session_id: str | None = None
    turn_id: str | None = None
    tool_call_id: str | None = None
    parent_tool_call_id: str | None = None
    labels: Mapping[str, Any] = field(default_factory=dict)
    server_data: Mapping[str, bool] = field(default_factory=dict)

    def value_for(self, name: str) -> Any:
        """The value an injected field called ``name`` takes, or ``None`` if the caller gave none.

        An empty string counts as none: a tool must never run with a blank session or user id.
        """
        if name in _META_FIELDS:
            value = getattr(self, name)
            if value is not None and value != "":
                return value
        value = self.labels.get(name)
        return None if value == "" else value


_META_FIELDS = frozenset({"run_id", "session_id", "turn_id", "tool_call_id", "parent_tool_call_id"})


NO_META = ToolCallMeta(labels=MappingProxyType({}), server_data=MappingProxyType({}))
"""The metadata of a call that has none: no ids, no labels, server data at the design's defaults."""


@dataclass(frozen=True, slots=True, init=False)
class ToolRequest:
    """One tool call to execute.

    ``name`` is the tool's id (``service.toolset.tool``) or its provider-facing name;
    ``payload`` is the arguments as the model sent them (JSON text, bytes, or a dict);
    ``meta`` may be left out (or ``None``) for a call with no metadata.
    """

    name: str
    payload: str | bytes | Mapping[str, Any]
    meta: ToolCallMeta

    def __init__(
        self,
        name: str,
        payload: str | bytes | Mapping[str, Any] = "{}",
        meta: ToolCallMeta | None = None,
    ) -> None:
        # Frozen: set through object's __setattr__, as the generated __init__ would.
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "payload", payload)
        object.__setattr__(self, "meta", NO_META if meta is None else meta)


@dataclass(frozen=True, slots=True)
class ServerDataItem:
    """One piece of server data emitted by a call: its kind and its validated value."""

    kind: str
    data: BaseModel


@dataclass(slots=True)
class ToolTelemetry:
    """What happened during one call, for observers. Never shown to the model."""

    duration_ms: float = 0.0
    outcome: str = "pending"
    """``ok``, ``error``, a retry reason (``invalid_arguments``, ``timeout`` …), or
    ``missing_injected``/``invalid_injected``; ``pending`` only until the call is answered."""
    discarded_injected: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ToolResult:
    """The outcome of one tool call: a typed result, or an error with a retry hint.

    ``for_model()`` is exactly what goes back to the model.
    """

    name: str
    result: Any = None
    error: ToolError | None = None
    retry_hint: RetryHint | None = None
    bounds: Bounds | None = None
    server_data: tuple[ServerDataItem, ...] = ()
    telemetry: ToolTelemetry = field(default_factory=ToolTelemetry)
    tool_call_id: str | None = None
    result_json: str | None = None
    """The result encoded by the tool's codec (set by the runtime)."""

    @property
    def ok(self) -> bool:
        return self.error is None

    def settle_outcome(self) -> str:
        """``telemetry.outcome``, filled from the result itself if nothing set it yet.

        A result made by an interceptor or a handler rarely sets it: it is then ``ok``, the
        retry hint's reason, or ``error``.
        """
        telemetry = self.telemetry
        if telemetry.outcome == "pending":
            if self.error is None:
                telemetry.outcome = "ok"
            elif self.retry_hint is not None:
                telemetry.outcome = str(self.retry_hint.reason)
            else:
                telemetry.outcome = "error"
        return telemetry.outcome

    @classmethod
    def failure(
        cls,
        name: str,
        message: str,
        *,
        hint: RetryHint | None = None,
        cause: BaseException | None = None,
    ) -> ToolResult:
        return cls(name=name, error=ToolError(message, cause=cause), retry_hint=hint)

    def for_model(self) -> str:
        """The text to send back to the model: result JSON, or an error it can act on.

        A result that is text (a tool returning a string) is sent as the text itself, not as
        a quoted JSON string; objects, arrays and numbers are sent as JSON (``result_json``).
        """
        if self.error is None:
            text = _text_result(self.result)
            if text is not None:
                return text
            if self.result_json is not None:
                return self.result_json
            if isinstance(self.result, BaseModel):
                return self.result.model_dump_json(by_alias=True, exclude_none=True)
            return compact_json(self.result)
        # A retry hint's message is written for the model and complete; the error's own message
        # is the short form kept for logs.
        text = self.retry_hint.message if self.retry_hint is not None else self.error.message
        return f"Error: {text}"


def _text_result(result: Any) -> str | None:
    """The text of a result that is a string (bare, or a generated root model holding one)."""
    if isinstance(result, RootModel):
        result = result.root
    return result if isinstance(result, str) else None
