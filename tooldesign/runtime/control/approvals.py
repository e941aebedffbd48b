"""Approvals: a person decides on a call the design marked ``Confirm`` before it runs.

A call that needs approval is decoded first (an invalid call never reaches a person), then
answered with a :class:`~tooldesign.runtime.ToolResult` awaiting approval. It carries an
:class:`ApprovalRequest`: the tool, the rendered prompt, the exact arguments and an ``id``.

The id is a digest of the toolset's catalog version, the tool and the call's canonical
arguments (compact JSON, keys sorted, defaults filled, injected fields left out). An approval
therefore unlocks only that exact call under that exact contract: an edited argument, or a
schema that changed, makes another id, which needs another approval. Being computed from the
call alone, the id is the same in every process and after a restart, so a request can be
stored anywhere (``to_dict``), decided later by a UI or another process, and the decision
(:class:`ApprovalDecision`) passed to ``Runtime.execute(request, approvals=[...])``.

A decision can also come from an :data:`Approver` — a function registered on the runtime
(``Runtime(approver=...)``), sync or async, that asks a person and answers at once.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooldesign.runtime.dict_reader import DictFormatError, DictReader
from tooldesign.runtime.request import ToolCallMeta, ToolRequest

_ID_VERSION = "tooldesign-approval/1"


def canonical_json(value: Any) -> str:
    """``value`` as compact JSON with sorted keys: one text per value, whoever wrote it."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def approval_id(version: str, tool_id: str, arguments: Mapping[str, Any]) -> str:
    """The id of a call of ``tool_id`` with ``arguments`` under catalog ``version``."""
    parts = (_ID_VERSION, version, tool_id, canonical_json(arguments))
    # Each part length-prefixed: no two different calls can produce the same text.
    text = "".join(f"{len(part)}:{part}\n" for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call waiting for a person's decision.

    ``arguments`` are the call's canonical arguments (what will run; injected fields left
    out), ``prompt`` the design's prompt rendered with them, ``version`` the toolset's catalog
    version. ``tool_call_id``, ``session_id`` and ``run_id`` come from the call's metadata, for
    routing the question to the right conversation.
    """

    id: str
    tool: str
    """The tool's name (what the model called)."""
    tool_id: str
    prompt: str
    arguments: Mapping[str, Any]
    version: str
    requested_at: float = field(default_factory=time.time)
    """Seconds since the epoch."""
    tool_call_id: str | None = None
    session_id: str | None = None
    run_id: str | None = None

    def approve(
        self, *, by: str | None = None, note: str | None = None, once: bool | None = None
    ) -> ApprovalDecision:
        """The decision that lets this call run; ``by`` says who decided (for the audit trail).

        ``once=True`` makes it unlock one call only, ``False`` any call of these arguments;
        left out, the tool decides (once for a destructive tool)."""
        return ApprovalDecision(self.id, True, by=by, reason=note, once=once)

    def deny(self, *, by: str | None = None, reason: str | None = None) -> ApprovalDecision:
        """The decision that refuses this call; ``reason`` is passed on to the model."""
        return ApprovalDecision(self.id, False, by=by, reason=reason)

    def tool_request(self, meta: ToolCallMeta | None = None) -> ToolRequest:
        """The exact call this request is about, to run again once decided."""
        return ToolRequest(self.tool_id, dict(self.arguments), meta)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "tool": self.tool,
            "tool_id": self.tool_id,
            "prompt": self.prompt,
            "arguments": dict(self.arguments),
            "version": self.version,
            "requested_at": self.requested_at,
        }
        for key in ("tool_call_id", "session_id", "run_id"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_dict(cls, data: object) -> ApprovalRequest:
        """The request :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "an approval request")
        return cls(
            id=read.text("id"),
            tool=read.text("tool"),
            tool_id=read.text("tool_id"),
            prompt=read.text("prompt"),
            arguments=read.mapping("arguments"),
            version=read.text("version"),
            requested_at=float(read.number("requested_at")),
            tool_call_id=read.text("tool_call_id", None),
            session_id=read.text("session_id", None),
            run_id=read.text("run_id", None),
        )


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """A person's decision on the call whose approval id is ``id``.

    ``by`` names who decided and ``at`` when (seconds since the epoch): the audit trail that
    telemetry, events and ``on_result`` observers see. ``reason`` (of a denial) is passed on
    to the model after the design's ``denied`` text.

    A granted decision is tied to the call's content (its ``id``), so it unlocks an identical
    call again, unless it is ``once``: then it unlocks the first call it runs, and no other.
    ``once=None`` leaves it to the tool: once for a tool annotated ``destructive``. Either way
    one call (its stable id, see ``ToolCallMeta.stable_id``) runs once: presented again with
    its decision, it is answered with the result of its run.
    """

    id: str
    granted: bool
    by: str | None = None
    at: float = field(default_factory=time.time)
    reason: str | None = None
    once: bool | None = None
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))
    """Tells two decisions on the same call apart: a ``once`` decision is spent by the call it
    lets run, another decision on the same arguments is not."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "granted": self.granted, "at": self.at}
        if self.by is not None:
            data["by"] = self.by
        if self.reason is not None:
            data["reason"] = self.reason
        if self.once is not None:
            data["once"] = self.once
        data["nonce"] = self.nonce
        return data

    @classmethod
    def from_dict(cls, data: object) -> ApprovalDecision:
        """The decision :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "an approval decision")
        if "granted" not in read.data:
            raise DictFormatError("an approval decision: 'granted' is missing")
        return cls(
            id=read.text("id"),
            granted=read.flag("granted", False),
            by=read.text("by", None),
            at=float(read.number("at")),
            reason=read.text("reason", None),
            once=read.flag("once", False) if "once" in read.data else None,
            **({"nonce": read.text("nonce")} if "nonce" in read.data else {}),
        )


ApproverAnswer = ApprovalDecision | bool | None
"""What an approver answers: a decision, ``True``/``False`` (granted or denied, by no one in
particular), or ``None`` for "not now" (the call then awaits a decision made out of band)."""

Approver = Callable[["ApprovalRequest", "ToolCallMeta"], ApproverAnswer | Awaitable[ApproverAnswer]]
"""``approver(request, meta)``: decides on a call that needs approval (sync or async).

A sync approver runs in one of the runtime's worker threads, so it may wait for a person."""


def decision_for(
    request: ApprovalRequest, answer: object, by: str | None
) -> ApprovalDecision | None:
    """An approver's answer as a decision on ``request`` (``None``: no decision)."""
    if isinstance(answer, ApprovalDecision):
        return answer if answer.id == request.id else None
    if isinstance(answer, bool):
        return ApprovalDecision(request.id, answer, by=by)
    return None


def find_decision(
    decisions: Iterable[ApprovalDecision], request: ApprovalRequest
) -> ApprovalDecision | None:
    """The first decision given for ``request`` (a denial among several wins)."""
    found: ApprovalDecision | None = None
    for decision in decisions:
        if decision.id != request.id:
            continue
        if not decision.granted:
            return decision
        found = found or decision
    return found


__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "Approver",
    "ApproverAnswer",
    "approval_id",
    "canonical_json",
]
