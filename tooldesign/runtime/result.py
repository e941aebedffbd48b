"""Results: what every tool call returns, whatever happened."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pydantic_core
from pydantic import BaseModel, RootModel
from tooldesign.contract import BOUNDS_CONFIG_KEY
from tooldesign.runtime.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.dict_reader import DictFormatError, DictReader
from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.progress import report_progress
from tooldesign.runtime.recovery import Recovery, recovery_line
from tooldesign.runtime.text import compact_json
from tooldesign.runtime.validation.repairs import AppliedRepair, repairs_note

if TYPE_CHECKING:
    from tooldesign.runtime.registration import ToolBinding


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

    @classmethod
    def from_dict(cls, data: object) -> Bounds:
        """The bounds :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "bounds")
        return cls(
            returned=read.integer("returned"),
            total=read.integer("total", None),
            truncated=read.flag("truncated", False),
            refinement_hint=read.text("refinement_hint", None),
            next_cursor=read.text("next_cursor", None),
        )


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
    call_id: str | None = None
    """The call's stable id: the same for every attempt at one call, so a tool can recognise a
    call it has already carried out. Left out, :meth:`stable_id` derives it."""
    trace: Mapping[str, str] = field(default_factory=dict)
    """W3C trace context (``traceparent``, ``tracestate``) of the call, when the caller has one;
    it travels with calls sent to workers."""

    def stable_id(self) -> str | None:
        """``call_id``, else one derived from ``run_id`` and ``tool_call_id`` (``None`` without
        both: nothing then tells two attempts at one call apart from two calls)."""
        if self.call_id:
            return self.call_id
        if self.run_id and self.tool_call_id:
            return stable_call_id(self.run_id, self.tool_call_id)
        return None

    def progress(
        self, progress: float, message: str | None = None, *, total: float | None = None
    ) -> None:
        """Report how far this call has come (see :func:`~tooldesign.runtime.report_progress`):
        a fraction from 0 to 1, or a count of ``total``. A no-op when nobody listens."""
        report_progress(progress, message, total=total)

    def value_for(self, name: str) -> Any:
        """The value an injected field called ``name`` takes, or ``None`` if the caller gave none.

        An empty string counts as none: a tool must never run with a blank session or user id.
        """
        if name == "call_id":
            return self.stable_id()
        if name in _META_FIELDS:
            value = getattr(self, name)
            if value is not None and value != "":
                return value
        value = self.labels.get(name)
        return None if value == "" else value

    def to_dict(self) -> dict[str, Any]:
        """The metadata as a JSON object (ids, labels, server-data switches, trace context)."""
        data: dict[str, Any] = {
            name: value for name in _ID_FIELDS if (value := getattr(self, name)) is not None
        }
        if self.labels:
            data["labels"] = dict(self.labels)
        if self.server_data:
            data["server_data"] = dict(self.server_data)
        if self.trace:
            data["trace"] = dict(self.trace)
        return data

    @classmethod
    def from_dict(cls, data: object) -> ToolCallMeta:
        """The metadata :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "call metadata")
        ids = {name: read.text(name, None) for name in _ID_FIELDS}
        server_data = read.mapping("server_data")
        for kind, on in server_data.items():
            if not isinstance(on, bool):
                raise DictFormatError(f"call metadata: server_data[{kind!r}] must be a boolean")
        trace = read.mapping("trace")
        for key, value in trace.items():
            if not isinstance(value, str):
                raise DictFormatError(f"call metadata: trace[{key!r}] must be a string")
        return cls(
            **ids,
            labels=read.mapping("labels"),
            server_data=server_data,
            trace=trace,
        )


_META_FIELDS = frozenset({"run_id", "session_id", "turn_id", "tool_call_id", "parent_tool_call_id"})
_ID_FIELDS = ("run_id", "session_id", "turn_id", "tool_call_id", "parent_tool_call_id", "call_id")


def stable_call_id(run_id: str, tool_call_id: str) -> str:
    """The id of tool call ``tool_call_id`` of run ``run_id``: retries of one call share it,
    and equal tool call ids of two runs (models reuse short ones) do not."""
    # Length-prefixed: ("a:b", "c") and ("a", "b:c") must not meet.
    key = f"{len(run_id)}:{run_id}:{tool_call_id}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


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


class JsonData(RootModel[Any]):
    """Server data received without the spec that types it: its JSON value as it came."""


@dataclass(slots=True)
class ToolTelemetry:
    """What happened during one call, for observers. Never shown to the model."""

    duration_ms: float = 0.0
    outcome: str = "pending"
    """``ok``, ``error``, a retry reason (``invalid_arguments``, ``timeout`` …), or
    ``missing_injected``/``invalid_injected``; ``pending`` only until the call is answered."""
    discarded_injected: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    repairs: tuple[AppliedRepair, ...] = ()
    """The designed repairs made to the call before it ran (field, kind, what was assumed)."""
    approval: ApprovalDecision | None = None
    """The decision on a call that needed approval: granted or denied, by whom, when."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"duration_ms": self.duration_ms, "outcome": self.outcome}
        if self.discarded_injected:
            data["discarded_injected"] = list(self.discarded_injected)
        if self.repairs:
            data["repairs"] = [repair.to_dict() for repair in self.repairs]
        if self.approval is not None:
            data["approval"] = self.approval.to_dict()
        if self.extra:
            data["extra"] = json.loads(json.dumps(self.extra, default=str))
        return data

    @classmethod
    def from_dict(cls, data: object) -> ToolTelemetry:
        read = DictReader(data, "telemetry")
        return cls(
            duration_ms=float(read.number("duration_ms", 0.0)),
            outcome=read.text("outcome", "pending"),
            discarded_injected=read.texts("discarded_injected"),
            extra=read.mapping("extra"),
            repairs=tuple(AppliedRepair.from_dict(item) for item in read.items("repairs")),
            approval=(
                ApprovalDecision.from_dict(read.data["approval"])
                if read.data.get("approval") is not None
                else None
            ),
        )


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
    recovery: Recovery | None = None
    """For a failed call, what to do next: ``correct_call``, ``replan`` or ``finish`` (set by
    the runtime from the retry hint's reason unless the tool chose it)."""
    approval: ApprovalRequest | None = None
    """For a call that needed a person's approval: the request (its decision is
    ``telemetry.approval``; none yet while :attr:`awaiting_approval`)."""
    model_text: str | None = None
    """What the model reads when it is not the whole result: a text result cut to the tool's
    result budget, with a notice of the cut (``result`` keeps the whole)."""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def awaiting_approval(self) -> bool:
        """The call has not run: it waits for a person's decision on :attr:`approval`."""
        return self.approval is not None and self.telemetry.approval is None

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

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON object, to send to another process.

        The result travels as the JSON text the tool's codec encoded (``result_json``), server
        data as JSON objects, the error's cause as its description (:meth:`ToolError.to_dict`).
        """
        data: dict[str, Any] = {"name": self.name}
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        result_json = self.result_json
        if result_json is None and self.result is not None:
            result_json = (
                self.result.model_dump_json(by_alias=True, exclude_none=True)
                if isinstance(self.result, BaseModel)
                else pydantic_core.to_json(self.result).decode()
            )
        if result_json is not None:
            data["result_json"] = result_json
        if self.model_text is not None:
            data["model_text"] = self.model_text
        if self.error is not None:
            data["error"] = self.error.to_dict()
        if self.retry_hint is not None:
            data["retry_hint"] = self.retry_hint.to_dict()
        if self.bounds is not None:
            data["bounds"] = self.bounds.to_dict()
        if self.server_data:
            data["server_data"] = [
                {"kind": item.kind, "data": item.data.model_dump(mode="json", by_alias=True)}
                for item in self.server_data
            ]
        if self.recovery is not None:
            data["recovery"] = str(self.recovery)
        if self.approval is not None:
            data["approval"] = self.approval.to_dict()
        data["telemetry"] = self.telemetry.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: object, binding: ToolBinding | None = None) -> ToolResult:
        """The result :meth:`to_dict` described.

        With the tool's ``binding``, the result is typed through its result codec and server
        data through their specs (a value they reject raises ``ToolValidationError``); without
        one, the result stays JSON data and server data :class:`JsonData`. A malformed object
        raises ``DictFormatError`` naming the bad key.
        """
        read = DictReader(data, "a tool result")
        error = ToolError.from_dict(read.data["error"]) if "error" in read.data else None
        result_json = read.text("result_json", None)
        result: Any = None
        if result_json is not None:
            if binding is not None and error is None:
                result = binding.result.decode(result_json)
            else:
                try:
                    result = pydantic_core.from_json(result_json)
                except ValueError as exc:
                    raise DictFormatError(
                        f"a tool result: 'result_json' is not JSON: {exc}"
                    ) from None
        items = []
        for entry in read.items("server_data"):
            item = DictReader(entry, "a server data item")
            kind = item.text("kind")
            value = item.any("data")
            spec = binding.spec.server_data_spec(kind) if binding is not None else None
            if binding is not None and spec is None:
                raise DictFormatError(
                    f"a tool result: {binding.spec.id} has no server data {kind!r}"
                )
            items.append(
                ServerDataItem(kind, spec.model.model_validate(value) if spec else JsonData(value))
            )
        hint = read.data.get("retry_hint")
        bounds = read.data.get("bounds")
        approval = read.data.get("approval")
        return cls(
            name=read.text("name"),
            result=result,
            error=error,
            retry_hint=RetryHint.from_dict(hint) if hint is not None else None,
            bounds=Bounds.from_dict(bounds) if bounds is not None else None,
            server_data=tuple(items),
            telemetry=ToolTelemetry.from_dict(read.data.get("telemetry", {})),
            tool_call_id=read.text("tool_call_id", None),
            result_json=result_json,
            recovery=read.choice("recovery", Recovery) if "recovery" in read.data else None,
            approval=ApprovalRequest.from_dict(approval) if approval is not None else None,
            model_text=read.text("model_text", None),
        )

    def for_model(self) -> str:
        """The text to send back to the model: result JSON, or an error it can act on.

        A result that is text (a tool returning a string) is sent as the text itself, not as
        a quoted JSON string; objects, arrays and numbers are sent as JSON (``result_json``); a
        text result cut to the result budget is sent cut (``model_text``). A repaired call adds a line saying what was assumed; a failed one ends with its
        recovery in words; a call awaiting approval says so, and that it must not be repeated.
        """
        if self.error is None:
            text = self._result_text()
        elif self.approval is not None and self.awaiting_approval:
            return _awaiting_text(self.approval)
        else:
            # A retry hint's message is written for the model and complete; the error's own
            # message is the short form kept for logs.
            message = self.retry_hint.message if self.retry_hint is not None else self.error.message
            text = f"Error: {message}"
        if self.telemetry.repairs:
            text += "\n" + repairs_note(self.telemetry.repairs)
        if self.error is not None and self.recovery is not None:
            tool = (
                self.retry_hint.tool
                if self.retry_hint is not None
                else self.name.rsplit(".", 1)[-1]
            )
            text += "\n" + recovery_line(self.recovery, tool)
        return text

    def _result_text(self) -> str:
        if self.model_text is not None:
            return self.model_text
        text = text_result(self.result)
        if text is not None:
            return text
        if self.result_json is not None:
            return self.result_json
        if isinstance(self.result, BaseModel):
            return self.result.model_dump_json(by_alias=True, exclude_none=True)
        return compact_json(self.result)


def _awaiting_text(request: ApprovalRequest) -> str:
    return (
        f"Tool {request.tool!r} needs a person's approval before it runs; they were asked: "
        f"{compact_json(request.prompt)}. Do not call it again for this: the call runs (or "
        "not) once they decide, and you will be told."
    )


def text_result(result: Any) -> str | None:
    """The text of a result that is a string (bare, or a generated root model holding one)."""
    if isinstance(result, RootModel):
        result = result.root
    return result if isinstance(result, str) else None
