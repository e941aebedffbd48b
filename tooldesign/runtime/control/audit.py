"""The audit trail: one record for every call a runtime answers, whoever called it and however.

The pipeline hands each call's answer to the runtime's :class:`AuditSink` at its very end (step
9), so every entry point is audited the same way: ``execute`` in process, MCP, the framework
integrations, remote workers. A record says who called (the verified :class:`~tooldesign.
runtime.Principal`), what tool, a digest of the arguments (SHA-256 of their canonical JSON,
never the arguments themselves), the approval decision (granted or denied, by whom; ``none``
when the call needed none), the outcome, the call's id and the time.

A sink never fails a call: one that raises is logged (``tooldesign.runtime.audit``) and the call
is answered all the same. The record is written after the call, so a failing sink cannot undo
what ran; failing closed would take a record written before every run, a second write per call
(see docs/mcp.md, "Scopes and audit").

:class:`JsonLinesAudit` is a tamper-evident sink: one JSON object per line, each carrying the
digest of the record before it (``prev``; :data:`GENESIS` for the first) and its own (``digest``,
over everything else in it). Each record is one ``O_APPEND`` write under an exclusive ``flock``
of the file, so several processes may write the same file on one machine (not over NFS).
:func:`verify_audit` (and ``tooldesign audit verify PATH``) names the first line that was edited,
deleted, moved or inserted. A chain cannot see its own tail cut off: keep the last ``digest``
(the ``head`` a verification returns) somewhere else to catch that.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

from tooldesign.runtime.control.approvals import canonical_json
from tooldesign.runtime.principal import Principal
from tooldesign.runtime.request import ToolRequest
from tooldesign.runtime.result import ToolResult

log = logging.getLogger("tooldesign.runtime.audit")

GENESIS = "0" * 64
"""The ``prev`` of a trail's first record."""

_TAIL = 64 * 1024
"""How much of a file's end is read to find its last record (a record is far shorter)."""


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One answered call, as the audit keeps it."""

    at: str
    """When the call was answered: RFC 3339, UTC, milliseconds."""
    call_id: str | None
    tool: str
    """The tool's id, or for a name no tool has, the name asked for."""
    principal: Principal | None
    """The verified caller; ``None`` when the entry point verified nobody."""
    arguments: str
    """``sha256:<hex>`` of the arguments' canonical JSON (sorted keys, no spaces), as the caller
    sent them; of their bytes when they are not JSON."""
    approval: str
    """``"granted"``, ``"denied"``, ``"waiting"`` (asked, not decided yet) or ``"none"``."""
    approved_by: str | None
    outcome: str
    """The call's outcome (``ok``, ``forbidden``, ``approval_denied``, ``timeout``, …)."""
    error: bool
    duration_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "call_id": self.call_id,
            "tool": self.tool,
            "principal": None if self.principal is None else self.principal.to_dict(),
            "arguments": self.arguments,
            "approval": self.approval,
            "approved_by": self.approved_by,
            "outcome": self.outcome,
            "error": self.error,
            "duration_ms": self.duration_ms,
        }


@runtime_checkable
class AuditSink(Protocol):
    """Where a runtime's audit records go (``Runtime(audit=...)``). ``record`` is called once
    per answered call, on the call's own path: keep it quick, and thread-safe."""

    def record(self, record: AuditRecord) -> None: ...


def arguments_digest(payload: str | bytes | Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``payload`` (JSON text, bytes or a mapping);
    of its bytes as sent when it is not JSON."""
    value: Any = payload
    if isinstance(payload, str | bytes):
        try:
            value = json.loads(payload)
        except ValueError:
            raw = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload
            return "sha256:" + hashlib.sha256(raw).hexdigest()
    try:
        text = canonical_json(value)
    except (TypeError, ValueError):  # a mapping holding what JSON cannot say
        text = repr(value)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_of(request: ToolRequest, tool: str, result: ToolResult) -> AuditRecord:
    """The audit record of ``request`` (to ``tool``, the id or the name asked), answered by
    ``result``."""
    decision = result.telemetry.approval
    if decision is not None:
        approval, by = ("granted" if decision.granted else "denied"), decision.by
    else:
        approval, by = ("waiting" if result.awaiting_approval else "none"), None
    meta = request.meta
    return AuditRecord(
        at=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        call_id=meta.stable_id(),
        tool=tool,
        principal=meta.principal,
        arguments=arguments_digest(request.payload),
        approval=approval,
        approved_by=by,
        outcome=result.telemetry.outcome,
        error=result.error is not None,
        duration_ms=round(result.telemetry.duration_ms, 3),
    )


def audit_call(sink: AuditSink, request: ToolRequest, tool: str, result: ToolResult) -> None:
    """Give ``sink`` the record of one answered call; a sink that fails is logged, never
    raised into the call."""
    try:
        sink.record(record_of(request, tool, result))
    except Exception:
        log.exception("the audit sink failed to record call %s of %s", request.meta.call_id, tool)


# ── the tamper-evident JSON-lines sink ────────────────────────────────────────────────────


def record_digest(body: Mapping[str, Any]) -> str:
    """The digest of a chained record: SHA-256 of its canonical JSON without ``digest``."""
    rest = {key: value for key, value in body.items() if key != "digest"}
    return hashlib.sha256(canonical_json(rest).encode("utf-8")).hexdigest()


def chained_line(body: Mapping[str, Any], prev: str) -> tuple[bytes, str]:
    """``body`` as one line of a trail after the record whose digest is ``prev``, and its own
    digest."""
    linked = {**body, "prev": prev}
    digest = record_digest(linked)
    return (canonical_json({**linked, "digest": digest}) + "\n").encode("utf-8"), digest


class JsonLinesAudit:
    """An :class:`AuditSink` appending hash-chained JSON lines to ``path`` (created if missing,
    readable by its owner only). ``fsync=True`` forces each record to disk before the call is
    answered (slower: a disk flush per call)."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = threading.Lock()
        self._last: tuple[int, str] | None = None
        """The file's size after this sink's last write, and that record's digest: while the
        size is unchanged, no other writer came in between, and the tail need not be read."""

    def record(self, record: AuditRecord) -> None:
        body = record.to_dict()
        with self._lock, _locked(self._fd):
            size = os.fstat(self._fd).st_size
            if self._last is not None and self._last[0] == size:
                prev, cut = self._last[1], False
            else:
                prev, cut = _tail_digest(self.path, size)
            line, digest = chained_line(body, prev)
            if cut:  # a writer died mid-line: the next record starts on a line of its own
                line = b"\n" + line
            written = os.write(self._fd, line)  # one O_APPEND write: never interleaved
            if written != len(line):
                raise OSError(f"audit: wrote {written} of {len(line)} bytes to {self.path}")
            if self.fsync:
                os.fsync(self._fd)
            self._last = (size + written, digest)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _locked:
    """An exclusive ``flock`` of ``fd`` while in the block (writers in other processes wait)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> None:
        import fcntl  # POSIX only: imported where it is used

        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        fcntl.flock(self.fd, fcntl.LOCK_UN)


def _tail_digest(path: Path, size: int) -> tuple[str, bool]:
    """The digest of the last record of the file at ``path`` (``size`` bytes long), and whether
    it ends mid-line. A last line that is not a record chains on the digest of its bytes (the
    verifier names that line)."""
    if size == 0:
        return GENESIS, False
    with path.open("rb") as file:
        file.seek(max(0, size - _TAIL))
        tail = file.read(size - max(0, size - _TAIL))
    cut = not tail.endswith(b"\n")
    last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    try:
        digest = json.loads(last)["digest"]
        if isinstance(digest, str):
            return digest, cut
    except (ValueError, KeyError, TypeError):
        pass
    return hashlib.sha256(last).hexdigest(), cut


# ── verification ──────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class AuditVerification:
    """What :func:`verify_audit` found: ``ok`` with ``records`` records whose last digest is
    ``head``, or the first broken ``line`` (1-based) and what is wrong with it."""

    records: int
    head: str
    line: int | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.line is None

    def __str__(self) -> str:
        if self.ok:
            return f"ok: {self.records} records, head {self.head}"
        return f"line {self.line}: {self.problem}"


def verify_audit(path: str | os.PathLike[str]) -> AuditVerification:
    """Check the chain of the trail at ``path``: each line a record, each record's ``prev`` the
    digest of the one before (:data:`GENESIS` for the first), each ``digest`` its own. Names the
    first line where the chain breaks: a record edited, deleted, moved or inserted."""
    prev, count = GENESIS, 0
    with Path(path).open("rb") as file:
        for number, raw in enumerate(file, 1):
            problem = _line_problem(raw, prev)
            if problem is not None:
                return AuditVerification(count, prev, number, problem)
            prev, count = json.loads(raw)["digest"], count + 1
    return AuditVerification(count, prev)


def _line_problem(raw: bytes, prev: str) -> str | None:
    if not raw.endswith(b"\n"):
        return "the last record is cut short (a writer stopped mid-line)"
    try:
        body = json.loads(raw)
    except ValueError:
        return "not a JSON record"
    if not isinstance(body, dict) or not isinstance(body.get("digest"), str):
        return "not an audit record (no digest)"
    if body.get("prev") != prev:
        return (
            "its prev is not the digest of the record before it: a record before it was "
            "deleted, moved or inserted"
        )
    if record_digest(body) != body["digest"]:
        return "its digest does not match its content: the record was edited"
    return None
