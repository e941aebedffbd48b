"""A call as the runtime receives it: the tool's name, the arguments as the model sent them, and
the caller's metadata (the source of injected fields)."""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from tooldesign.runtime.control.logs import LogLevel, log_message
from tooldesign.runtime.control.progress import report_progress
from tooldesign.runtime.dict_reader import DictFormatError, DictReader
from tooldesign.runtime.principal import Principal


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
    principal: Principal | None = None
    """The verified caller (its subject, client and scopes), set by the entry point that
    verified it, never from the model's arguments: a tool's ``Scopes`` are checked against it,
    and the audit records it. ``None``: no identity was verified (in-process use without
    auth), refused only by a runtime told to ``require_principal``."""

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

    def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Log ``data`` (a message or any JSON value) at an MCP ``level`` from this call (see
        :func:`~tooldesign.runtime.log_message`): to an MCP client that listens, else to
        Python's logging."""
        log_message(level, data, logger=logger)

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
        if self.principal is not None:
            data["principal"] = self.principal.to_dict()
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
        principal = read.data.get("principal")
        return cls(
            **ids,
            labels=read.mapping("labels"),
            server_data=server_data,
            trace=trace,
            principal=Principal.from_dict(principal) if principal is not None else None,
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


def with_call_id(request: ToolRequest) -> ToolRequest:
    """``request`` with a call id in its metadata: the one it has, else :meth:`ToolCallMeta.
    stable_id`, else a fresh one (a call with no run id and tool call id is a call of its own).
    Every call a runtime runs has one, in process as on a worker."""
    meta = request.meta
    if meta.call_id:
        return request
    with_id = with_ids(
        meta,
        run_id=meta.run_id,
        tool_call_id=meta.tool_call_id,
        call_id=meta.stable_id() or fresh_call_id(),
    )
    # On every call's path, so copied slot by slot (as ``with_ids`` does).
    copy = _NEW(ToolRequest)
    _REQUEST_NAME(copy, request.name)
    _REQUEST_PAYLOAD(copy, request.payload)
    _REQUEST_META(copy, with_id)
    return copy


def with_ids(
    meta: ToolCallMeta, *, run_id: str | None, tool_call_id: str | None, call_id: str | None
) -> ToolCallMeta:
    """``meta`` with these ids, the rest kept. On every call's path, so copied slot by slot:
    a frozen dataclass's ``__init__`` (and ``dataclasses.replace``) costs several times as
    much."""
    copy = _NEW(ToolCallMeta)
    _META_RUN_ID(copy, run_id)
    _META_SESSION_ID(copy, meta.session_id)
    _META_TURN_ID(copy, meta.turn_id)
    _META_TOOL_CALL_ID(copy, tool_call_id)
    _META_PARENT_TOOL_CALL_ID(copy, meta.parent_tool_call_id)
    _META_LABELS(copy, meta.labels)
    _META_SERVER_DATA(copy, meta.server_data)
    _META_CALL_ID(copy, call_id)
    _META_TRACE(copy, meta.trace)
    _META_PRINCIPAL(copy, meta.principal)
    return copy


def entry_meta(
    session_id: str | None,
    tool_call_id: str | None,
    server_data: Mapping[str, bool],
    trace: Mapping[str, str],
) -> ToolCallMeta:
    """The metadata an entry point gives a call it received (the rest left unset), copied
    slot by slot as :func:`with_ids` does: on every call's path."""
    meta = _NEW(ToolCallMeta)
    _META_RUN_ID(meta, None)
    _META_SESSION_ID(meta, session_id)
    _META_TURN_ID(meta, None)
    _META_TOOL_CALL_ID(meta, tool_call_id)
    _META_PARENT_TOOL_CALL_ID(meta, None)
    _META_LABELS(meta, {})
    _META_SERVER_DATA(meta, server_data)
    _META_CALL_ID(meta, None)
    _META_TRACE(meta, trace)
    _META_PRINCIPAL(meta, None)
    return meta


def _slot_setter(cls: type, name: str) -> Callable[[object, Any], None]:
    """The setter of field ``name`` of slotted ``cls``, straight to its slot (past a frozen
    class's ``__setattr__``). Module constants: the interpreter's fastest lookup."""
    setter: Callable[[object, Any], None] = getattr(cls, name).__set__
    return setter


_NEW = object.__new__
_META_RUN_ID = _slot_setter(ToolCallMeta, "run_id")
_META_SESSION_ID = _slot_setter(ToolCallMeta, "session_id")
_META_TURN_ID = _slot_setter(ToolCallMeta, "turn_id")
_META_TOOL_CALL_ID = _slot_setter(ToolCallMeta, "tool_call_id")
_META_PARENT_TOOL_CALL_ID = _slot_setter(ToolCallMeta, "parent_tool_call_id")
_META_LABELS = _slot_setter(ToolCallMeta, "labels")
_META_SERVER_DATA = _slot_setter(ToolCallMeta, "server_data")
_META_CALL_ID = _slot_setter(ToolCallMeta, "call_id")
_META_TRACE = _slot_setter(ToolCallMeta, "trace")
_META_PRINCIPAL = _slot_setter(ToolCallMeta, "principal")
_REQUEST_NAME = _slot_setter(ToolRequest, "name")
_REQUEST_PAYLOAD = _slot_setter(ToolRequest, "payload")
_REQUEST_META = _slot_setter(ToolRequest, "meta")


class _IdSource:
    """Where fresh call ids come from: 64 random bits drawn once per process (again in a
    forked child, which must not repeat its parent's ids), then a counter."""

    def __init__(self) -> None:
        self.reseed()
        os.register_at_fork(after_in_child=self.reseed)

    def reseed(self) -> None:
        self.prefix = os.urandom(8).hex()
        self.counter = itertools.count(1)


_IDS = _IdSource()


def fresh_call_id() -> str:
    """A new call id (32 hex digits) for a call that has none: unique within the process by
    its counter, across processes and restarts by its random half — at a fraction of the cost
    of drawing 128 random bits for every call."""
    return f"{_IDS.prefix}{next(_IDS.counter):016x}"
