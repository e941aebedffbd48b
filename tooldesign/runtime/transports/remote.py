"""Remote registrations: toolsets an agent's runtime calls on workers in other processes.

``remote_registration(devices, transport=RedisTransport(url))`` registers next to local
toolsets. A call goes through the agent's interceptors as any other; at the end of the chain the
payload is decoded locally with the generated codec, so a bad call gets its retry hint with no
round trip, and only valid calls travel. The worker's runtime runs the call; its result comes
back typed through the same codecs, with its bounds, retry hint and telemetry, and server data
for observers. ``execute`` keeps its contract: it never raises, and a missing worker, a full
queue or a deadline are answers with retry hints like any other.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import ModuleType
from typing import Any

import pydantic_core
from tooldesign.contract.catalog import toolset_version
from tooldesign.runtime import answers
from tooldesign.runtime.approval import granted_approval
from tooldesign.runtime.control.approvals import ApprovalDecision
from tooldesign.runtime.control.otel import with_trace_context
from tooldesign.runtime.dict_reader import DictFormatError
from tooldesign.runtime.errors import ToolValidationError
from tooldesign.runtime.pipeline import call_decisions
from tooldesign.runtime.registration import (
    Interceptor,
    Outcome,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
)
from tooldesign.runtime.request import ToolCallMeta, ToolRequest, fresh_call_id
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.specs import ToolSpec
from tooldesign.runtime.transports.base import (
    RESENT,
    BadAnswer,
    Conflict,
    Lost,
    NoAnswer,
    NoWorker,
    QueueFull,
    Replied,
    Transport,
    TransportError,
)
from tooldesign.runtime.transports.wire import CallMessage, WireError
from tooldesign.runtime.validation.codecs import PayloadCodec, ResultCodec

log = logging.getLogger("tooldesign.transports")

DEFAULT_TIMEOUT = 30.0
"""Seconds a remote call may take, from sending it to its answer, unless configured."""


def remote_registration(
    toolset: ModuleType | Iterable[ToolSpec[Any, Any]],
    *,
    transport: Transport,
    timeout: float = DEFAULT_TIMEOUT,
    per_tool: Mapping[str, float] | None = None,
    interceptors: Sequence[Interceptor] = (),
) -> ToolsetRegistration:
    """A registration whose calls run on the workers serving ``toolset``.

    ``toolset`` is a generated toolset package (``gen.assistant.toolsets.devices``), its
    ``specs`` module, or its specs. ``timeout`` (or ``per_tool``, by tool name or id) sets each
    call's deadline; ``interceptors`` run in the agent, before the call is sent.
    """
    specs = _specs_of(toolset)
    if timeout <= 0 or any(limit <= 0 for limit in (per_tool or {}).values()):
        raise RegistrationError("a remote call's timeout must be positive")
    remote = RemoteToolset(specs, transport, timeout=timeout, per_tool=per_tool)
    return ToolsetRegistration(
        service=specs[0].service,
        toolset=specs[0].toolset,
        tools=tuple(remote.bindings.values()),
        interceptors=tuple(interceptors),
        remote=remote,
    )


def _specs_of(toolset: ModuleType | Iterable[ToolSpec[Any, Any]]) -> list[ToolSpec[Any, Any]]:
    if isinstance(toolset, ModuleType):
        module = toolset
        if not hasattr(module, "SPECS"):
            try:
                module = importlib.import_module(f"{toolset.__name__}.specs")
            except ModuleNotFoundError:
                raise RegistrationError(
                    f"{toolset.__name__} is not a generated toolset package or specs module"
                ) from None
        specs = list(getattr(module, "SPECS", ()))
    else:
        specs = list(toolset)
    if not specs or not all(isinstance(spec, ToolSpec) for spec in specs):
        raise RegistrationError("a remote registration needs the toolset's specs (ToolSpec)")
    keys = {(spec.service, spec.toolset) for spec in specs}
    if len(keys) != 1:
        listed = ", ".join(sorted(f"{s}.{t}" for s, t in keys))
        raise RegistrationError(f"a remote registration takes one toolset, got {listed}")
    return specs


class RemoteToolset:
    """Where a remote registration's calls run: the pipeline sends each call that decoded (and
    was approved, if it needed to be) to the workers, in place of running a tool.

    It also tells ``Runtime.toolsets()`` whether a worker of this toolset's version was live
    when the transport last looked.
    """

    def __init__(
        self,
        specs: Sequence[ToolSpec[Any, Any]],
        transport: Transport,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        per_tool: Mapping[str, float] | None = None,
    ) -> None:
        self.key = f"{specs[0].service}.{specs[0].toolset}"
        self.version = toolset_version(specs)
        self.transport = transport
        self.timeout = timeout
        self.per_tool = dict(per_tool or {})
        self.bindings: dict[str, ToolBinding] = {
            spec.id: ToolBinding(
                spec,
                PayloadCodec(spec.name, spec.payload, injected=spec.injected),
                ResultCodec(spec.name, spec.result),
                _runs_remotely,
            )
            for spec in specs
        }

    def live(self) -> bool | None:
        return self.transport.last_seen_live(self.key, self.version)

    def timeout_for(self, binding: ToolBinding) -> float:
        spec = binding.spec
        return self.per_tool.get(spec.id, self.per_tool.get(spec.name, self.timeout))

    async def run(self, tool_id: str, request: ToolRequest, meta: ToolCallMeta) -> ToolResult:
        """The call of ``tool_id`` answered by a worker: ``request``'s payload as the last
        interceptor passed it on (the worker decodes it, and repairs it, the same), with the
        approval the call was granted. The worker checks the result and holds it to its
        budget; it comes back typed through the tool's codecs."""
        binding = self.bindings[tool_id]
        # The worker's span continues the agent's trace.
        if not meta.call_id:  # the runtime gives every call one; a caller of run() may not
            meta = replace(meta, call_id=meta.stable_id() or fresh_call_id())
        meta = with_trace_context(meta)
        assert meta.call_id is not None
        timeout = self.timeout_for(binding)
        decisions = call_decisions().given if binding.spec.agent is not None else ()
        try:
            message = CallMessage(
                call_id=_attempt_id(meta.call_id, decisions),
                tool=binding.spec.id,
                toolset=self.key,
                version=self.version,
                payload=_json_text(request.payload),
                meta=meta,
                approval=granted_approval(),
                decisions=tuple(decisions),
                repeatable=bool(
                    binding.spec.annotations.idempotent or binding.spec.annotations.read_only
                ),
            )
            answer = await self.transport.call(message, timeout)
        except (WireError, pydantic_core.PydanticSerializationError) as exc:
            log.error("call %s to %s cannot be sent: %s", meta.call_id, request.name, exc)
            return answers.unsendable(binding.spec.id, str(exc))
        except TransportError as exc:  # no server, or one that cannot work (older than Redis 7)
            log.error("remote toolset %s: %s", self.key, exc)
            return answers.unreachable(binding.spec.id, str(exc))
        return self._result(binding, answer, timeout, meta)

    def _result(
        self, binding: ToolBinding, answer: Any, timeout: float, meta: ToolCallMeta
    ) -> ToolResult:
        tool_id = binding.spec.id
        if isinstance(answer, NoWorker):
            return answers.no_worker(tool_id, self.key, self.version, answer.live_versions)
        if isinstance(answer, QueueFull):
            return answers.queue_full(tool_id, answer.queued, answer.limit, answer.retry_after)
        if isinstance(answer, NoAnswer):
            return answers.no_answer(tool_id, timeout, sent=answer.sent, detail=answer.detail)
        if isinstance(answer, Lost):
            why = "has no record of it, sent again" if RESENT.get() else "lost its data meanwhile"
            log.error("call %s to %s: the queue %s", meta.call_id, tool_id, why)
            return answers.queue_lost(tool_id)
        if isinstance(answer, Conflict):
            log.error("call %s to %s: its id is bound to another request", meta.call_id, tool_id)
            return answers.call_id_conflict(tool_id, meta.call_id or "")
        if isinstance(answer, BadAnswer):
            log.error("call %s to %s: unreadable answer: %s", meta.call_id, tool_id, answer.detail)
            return answers.bad_answer(tool_id, answer.detail)
        assert isinstance(answer, Replied)
        try:
            result = ToolResult.from_dict(answer.result, binding)
        except (DictFormatError, ToolValidationError, ValueError) as exc:
            log.error(
                "call %s to %s: unreadable answer from %s: %s",
                meta.call_id,
                tool_id,
                answer.worker,
                exc,
            )
            return answers.bad_answer(tool_id, str(exc))
        result.name = tool_id
        # Where it ran, for observers: the worker, its own duration, and the deliveries (more
        # than one: the worker first holding the call was lost).
        result.telemetry.extra["remote"] = {
            "worker": answer.worker,
            "duration_ms": result.telemetry.duration_ms,
            "deliveries": answer.deliveries,
        }
        return result


def _attempt_id(call_id: str, decisions: Sequence[ApprovalDecision]) -> str:
    """The queue's id of a call presented with ``decisions`` for its inner run: another attempt
    than the call without them (whose answer, awaiting a person, the queue keeps for its
    retries), one for each set of decisions, retried under the same id. The call's own id, in
    its metadata, stays the same: on the worker, the run is the same outer call's."""
    if not decisions:
        return call_id
    given = sorted(f"{d.id}:{d.nonce}:{int(d.granted)}" for d in decisions)
    text = "\n".join((call_id, *given))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


async def _runs_remotely(args: Any, meta: ToolCallMeta) -> Outcome:
    """The invoke of a remote tool: never reached, since the pipeline sends a remote tool's
    calls to its workers (``RemoteToolset.run``) in place of invoking it."""
    raise RuntimeError("a remote tool cannot run in this process")


def _json_text(payload: str | bytes | Mapping[str, Any]) -> str:
    """The payload as JSON text, as the model sent it (a mapping is encoded)."""
    if isinstance(payload, str):
        return payload
    if isinstance(payload, bytes | bytearray):
        return bytes(payload).decode("utf-8")
    return pydantic_core.to_json(payload).decode()
