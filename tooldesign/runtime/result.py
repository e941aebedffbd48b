"""Results: what every tool call returns, whatever happened."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import pydantic_core
from pydantic import BaseModel, RootModel
from tooldesign.contract import BOUNDS_CONFIG_KEY
from tooldesign.contract.content import ContentBlock, block_from_mcp
from tooldesign.jsonschema.text import compact_json
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.dict_reader import DictFormatError, DictReader
from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.reasons import Recovery, recovery_line
from tooldesign.runtime.validation.repairs import AppliedRepair, repairs_note

if TYPE_CHECKING:
    from tooldesign.runtime.spec.specs import ToolSpec
    from tooldesign.runtime.validation.codecs import ResultCodec


class TypedTool(Protocol):
    """What types a result read back from its JSON form: the tool's spec and result codec (a
    registration's ``ToolBinding`` is one)."""

    @property
    def spec(self) -> ToolSpec[Any, Any]: ...

    @property
    def result(self) -> ResultCodec[Any]: ...


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
    result budget, with a notice of the cut (``result`` keeps the whole); for a call awaiting
    approval, what it is told of the wait."""
    content: tuple[ContentBlock, ...] = ()
    """The content blocks the result carries beside its data (a tool declaring ``Content``):
    images, audio, resource links, embedded resources, in the order the tool gave them."""

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
        if self.content:
            data["content"] = [block.to_mcp() for block in self.content]
        data["telemetry"] = self.telemetry.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: object, binding: TypedTool | None = None) -> ToolResult:
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
            content=tuple(_block(item) for item in read.items("content")),
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
        elif self.awaiting_approval and self.model_text is not None:
            return self.model_text  # the call did not run: nothing more to add
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


def text_result(result: Any) -> str | None:
    """The text of a result that is a string (bare, or a generated root model holding one)."""
    if isinstance(result, RootModel):
        result = result.root
    return result if isinstance(result, str) else None


def pending_approvals(results: Iterable[ToolResult]) -> list[ApprovalRequest]:
    """The approval requests of the results still awaiting a decision: what an application
    asks its user about before it runs the calls again with the decisions."""
    return [r.approval for r in results if r.awaiting_approval and r.approval is not None]


def _block(data: object) -> ContentBlock:
    """A content block of a result sent by another process; ``DictFormatError`` if it is not."""
    try:
        return block_from_mcp(DictReader(data, "a content block").data)
    except (KeyError, ValueError, TypeError) as exc:
        raise DictFormatError(f"a tool result: a content block is malformed ({exc})") from None
