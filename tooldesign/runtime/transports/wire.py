"""The wire format of calls sent to workers and of their answers: JSON with a version field.

A call::

    {"v": 1, "id": "<call id>", "tool": "<service.toolset.tool>", "toolset": "<service.toolset>",
     "version": "<catalog version>", "deadline": <seconds since the epoch>,
     "payload": "<the arguments as JSON text>", "meta": {<ToolCallMeta.to_dict()>},
     "approval"?: {<ApprovalDecision.to_dict()>}, "decisions"?: [<ApprovalDecision.to_dict()>]}

An answer::

    {"v": 1, "id": "<call id>", "worker": "<worker id>", "deliveries": <n>,
     "result": {<ToolResult.to_dict()>}}

The payload travels as the text the model sent, so the worker decodes exactly what the agent
checked. ``approval`` is the decision a person made on a call that needed one, in the agent:
the worker runs the call under it (its id binds the exact call and catalog version) without
asking again. ``decisions`` are those the agent was given for the calls of an agent-implemented
tool's inner run, which runs on the worker. ``deadline`` is counted by the queue's clock (a transport measures its offset from it),
so agents and workers on machines whose clocks differ agree on it. W3C trace context travels in
``meta.trace``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pydantic_core
from tooldesign.runtime.control.approvals import ApprovalDecision
from tooldesign.runtime.dict_reader import DictFormatError, DictReader
from tooldesign.runtime.request import ToolCallMeta

WIRE_VERSION = 1
"""The version of the message format; a message of another version is refused, not guessed at."""


class WireError(ValueError):
    """A message that is not a call or an answer of this wire version."""


def _object(text: str | bytes, what: str) -> DictReader:
    if isinstance(text, str):
        try:  # text read from a queue keeps bytes that are not UTF-8 as lone surrogates
            text = text.encode("utf-8")
        except UnicodeEncodeError:
            raise WireError(f"{what} is not UTF-8 text") from None
    try:
        data = pydantic_core.from_json(text)
    except ValueError as exc:
        raise WireError(f"{what} is not JSON: {exc}") from None
    try:
        read = DictReader(data, what)
    except DictFormatError as exc:
        raise WireError(str(exc)) from None
    version = read.data.get("v")
    if version != WIRE_VERSION:
        raise WireError(
            f"{what} has wire version {version!r}; this tooldesign reads version {WIRE_VERSION}"
        )
    return read


def _dumps(data: Mapping[str, Any]) -> str:
    try:
        return pydantic_core.to_json(data).decode()
    except pydantic_core.PydanticSerializationError as exc:
        raise WireError(f"cannot be sent as JSON: {exc}") from None


@dataclass(frozen=True, slots=True)
class CallMessage:
    """One call on its way to a worker."""

    call_id: str
    tool: str
    """The tool's id (``service.toolset.tool``)."""
    toolset: str
    """``service.toolset``."""
    version: str
    """The catalog version of the toolset the caller decoded the call against."""
    payload: str
    """The arguments as the JSON text the model sent."""
    meta: ToolCallMeta
    deadline: float = 0.0
    """When the call's answer stops being awaited, in seconds since the epoch by the queue's
    clock; set by the transport when it sends the call."""
    approval: ApprovalDecision | None = None
    """The approval the call was granted in the agent, if it needed one."""
    decisions: tuple[ApprovalDecision, ...] = ()
    """Decisions the agent was given for the calls of an agent-implemented tool's inner run
    (which runs on the worker): presented with them, the call resumes its waiting run."""
    repeatable: bool = False
    """Whether running the call twice is harmless (an ``idempotent`` or ``read_only`` tool), for
    the agent's transport only: it is not sent (a worker reads its own specs)."""

    @property
    def digest(self) -> str:
        """The digest of the request this call makes: its tool and its arguments, canonical (keys
        sorted, no spaces). A call id is bound to it when the call is admitted: another request
        under the same id is refused, never answered with this one's result."""
        return request_digest(self.tool, self.payload)

    def to_json(self) -> str:
        """The message as JSON; raises :class:`WireError` when metadata labels are not JSON."""
        data = {
            "v": WIRE_VERSION,
            "id": self.call_id,
            "tool": self.tool,
            "toolset": self.toolset,
            "version": self.version,
            "deadline": self.deadline,
            "payload": self.payload,
            "meta": self.meta.to_dict(),
        }
        if self.approval is not None:
            data["approval"] = self.approval.to_dict()
        if self.decisions:
            data["decisions"] = [decision.to_dict() for decision in self.decisions]
        return _dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> CallMessage:
        """The call in ``text``; raises :class:`WireError` saying what is wrong with it."""
        read = _object(text, "the call message")
        try:
            message = cls(
                call_id=read.text("id"),
                tool=read.text("tool"),
                toolset=read.text("toolset"),
                version=read.text("version"),
                payload=read.text("payload"),
                meta=ToolCallMeta.from_dict(read.data.get("meta", {})),
                deadline=float(read.number("deadline")),
                approval=(
                    ApprovalDecision.from_dict(read.data["approval"])
                    if read.data.get("approval") is not None
                    else None
                ),
                decisions=tuple(
                    ApprovalDecision.from_dict(decision) for decision in read.items("decisions")
                ),
            )
        except DictFormatError as exc:
            raise WireError(str(exc)) from None
        if not math.isfinite(message.deadline):
            raise WireError(f"the call message's deadline is {message.deadline}, not a time")
        return message


@dataclass(frozen=True, slots=True)
class ReplyMessage:
    """A worker's answer to one call."""

    call_id: str
    result: Mapping[str, Any]
    """The result as :meth:`ToolResult.to_dict` gave it on the worker."""
    worker: str = ""
    deliveries: int = 1
    """How many times the call was delivered to a worker before this answer (more than once:
    the worker holding it was lost)."""

    def to_json(self) -> str:
        return _dumps(
            {
                "v": WIRE_VERSION,
                "id": self.call_id,
                "worker": self.worker,
                "deliveries": self.deliveries,
                "result": self.result,
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> ReplyMessage:
        read = _object(text, "the answer message")
        try:
            return cls(
                call_id=read.text("id"),
                result=read.mapping("result"),
                worker=read.text("worker", ""),
                deliveries=read.integer("deliveries", 1),
            )
        except DictFormatError as exc:
            raise WireError(str(exc)) from None


def request_digest(tool: str, payload: str) -> str:
    """The digest of a call of ``tool`` with the arguments ``payload`` (JSON text): equal for
    the same arguments however they are spaced or ordered."""
    try:
        canonical = json.dumps(
            json.loads(payload), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    except ValueError:  # not JSON (the worker's decoder says what is wrong): the text itself
        canonical = payload
    text = f"{len(tool)}:{tool}:{canonical}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
