"""What a worker does with one stream entry it took: read it, decide, run it, answer it.

An entry comes from the ``take`` or ``claim`` script with its *start* already decided there
(see :mod:`.redis_scripts`): the call was marked started by this claim (``first``), or was
answered before, cancelled, bound to another request, or started by another claim (``again``:
that worker was lost). Then, in order:

- an entry that is not a readable call is answered ``malformed_call`` when it names a call id and
  a reply address, dead-lettered otherwise (one that was too large was dead-lettered by the
  script, before anyone read it whole);
- a call delivered more than ``max_deliveries`` times is dead-lettered and answered;
- a call of another version or tool is refused, and loses its start mark (it did not run);
- a call past its deadline is answered ``timeout`` ("it did not run") if nobody started it, and
  ``outcome_unknown`` if a lost worker had;
- a call started by a lost worker runs again only if its tool is ``idempotent`` or
  ``read_only``; otherwise it is answered ``outcome_unknown``;
- otherwise it runs (within its tool's concurrency limit), and the answer is stored when it ran
  to its end, so every later delivery and retry gets that answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tooldesign.runtime import answers
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.transports import serving
from tooldesign.runtime.transports.metrics import RemoteMetrics
from tooldesign.runtime.transports.redis_client import ERRORS, Backoff, ServerClock, transient
from tooldesign.runtime.transports.redis_keys import GROUP, RedisKeys
from tooldesign.runtime.transports.redis_scripts import Scripts
from tooldesign.runtime.transports.wire import CallMessage, ReplyMessage, WireError

log = logging.getLogger("tooldesign.worker")


@dataclass(frozen=True, slots=True)
class Stream:
    """One served toolset version: its request stream and its bell."""

    served: serving.ServedToolset
    key: str
    bell: str


@dataclass(frozen=True, slots=True)
class Taken:
    """One entry as the take or claim script gave it."""

    stream: Stream
    entry_id: str
    status: str
    fields: Mapping[str, str]
    detail: str
    deadline: float
    deliveries: int
    previous: str

    @classmethod
    def read(cls, stream: Stream, row: list[Any]) -> Taken:
        entry_id, status, flat, detail, deadline, deliveries, previous = row
        fields = dict(zip(flat[::2], flat[1::2], strict=True))
        try:
            when = int(deadline) / 1000 if deadline else 0.0
        except ValueError:
            when = 0.0
        return cls(
            stream, entry_id, status, fields, str(detail), when, int(deliveries), str(previous)
        )

    @property
    def call_id(self) -> str:
        return self.fields.get("id", "")


def _is_text(value: str) -> bool:
    """Whether ``value`` is UTF-8 text (what is not was read as lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class CallHandler:
    """Serves the entries a worker took; see the module doc. ``retrying`` runs a command again
    while the server is unreachable (until the worker gives its calls up)."""

    def __init__(
        self,
        worker_id: str,
        runtime: Runtime,
        keys: RedisKeys,
        scripts: Scripts,
        clock: ServerClock,
        metrics: RemoteMetrics,
        retrying: Callable[..., Coroutine[Any, Any, Any]],
        *,
        max_deliveries: int,
        result_ttl: int,
        dead_letter_limit: int,
        max_call_bytes: int,
        tool_concurrency: Mapping[str, int],
    ) -> None:
        self.id = worker_id
        self.runtime = runtime
        self.keys = keys
        self.scripts = scripts
        self.clock = clock
        self.metrics = metrics
        self.retrying = retrying
        self.max_deliveries = max_deliveries
        self.result_ttl = max(result_ttl, 60)
        self.dead_letter_limit = dead_letter_limit
        self.max_call_bytes = max_call_bytes
        self._limits = {name: asyncio.Semaphore(n) for name, n in tool_concurrency.items()}
        self.answered: dict[str, tuple[float, str, str, bool]] = {}
        """Entries this process answered lately: when, the tool, the answer, whether it was
        stored. A claim that was on its way with the answer finds one again (or a failover
        lost the answer): it is answered again, the same."""
        self.started: set[str] = set()
        """Entries this process started running and has not answered: a claim of one of them
        that comes back marked by this worker is a second start, not a lost reply."""
        self.cancelled: set[asyncio.Task[Any]] = set()
        """Running calls whose agent cancelled them."""
        self.parking: Callable[[bool], bool] = lambda parked: False
        """Told when a call waits for its tool's concurrency limit (True; answers whether its
        slot was given back) and when it stops waiting (False, only if it was)."""

    # ── one entry ────────────────────────────────────────────────────────────────────────

    async def handle(self, taken: Taken) -> None:
        served = taken.stream.served
        call_id = taken.call_id
        if taken.status == "too_large":
            self.metrics.dead_lettered(served.key, served.version)
            log.error(
                "worker %s: entry %s of %s is %s bytes, over %d: dead-lettered unread",
                self.id,
                taken.entry_id,
                taken.stream.key,
                taken.detail,
                self.max_call_bytes,
            )
            problem = (
                f"the call is {taken.detail} bytes, over the {self.max_call_bytes} a worker reads"
            )
            if call_id and taken.fields.get("reply") and _is_text(call_id):
                result = answers.malformed_call(f"{served.key}.?", problem)
                await self.answer(taken, result, store=False, ran=False)
            return
        try:
            message = self._message(taken)
        except WireError as exc:
            await self._malformed(taken, str(exc))
            return
        tool = message.tool
        if taken.deliveries > 1:
            self.metrics.redelivered(served.key, served.version, tool)
        if taken.deliveries > self.max_deliveries:
            log.error(
                "worker %s: call %s (%s) was delivered %d times; dead-lettered",
                self.id,
                call_id,
                tool,
                taken.deliveries,
            )
            self.metrics.dead_lettered(served.key, served.version)
            result = answers.dead_lettered(tool, taken.deliveries)
            await self.answer(taken, result, store=True, ran=True, reason="too many deliveries")
            return
        if taken.status == "answered":
            await self._send(taken, tool, taken.detail, store=True, ran=True)
            return
        if taken.status == "conflict":
            result = answers.call_id_conflict(tool, call_id)
            await self.answer(taken, result, store=False, ran=False)
            return
        if taken.status == "cancelled":
            await self.answer(taken, answers.cancelled(tool, started=False), store=True, ran=False)
            return
        refused = await self._refusal(taken, message)
        if refused is not None:
            await self.answer(taken, refused, store=False, ran=False)
            return
        again = taken.status == "again" or (
            taken.detail == "mine" and taken.entry_id in self.started
        )
        deadline = max(message.deadline, taken.deadline)
        if again and (deadline <= self.clock.now() or not served.repeatable(tool)):
            # Started by a worker that was lost: it may have taken effect.
            log.warning(
                "worker %s: call %s (%s) was started by lost worker %s; answered outcome_unknown",
                self.id,
                call_id,
                tool,
                taken.detail.split(" ")[0] or taken.previous or "?",
            )
            self.metrics.outcome_unknown(served.key, served.version, tool)
            result = answers.outcome_unknown(tool)
            result.tool_call_id = message.meta.tool_call_id
            await self.answer(taken, result, store=True, ran=True)
            return
        if deadline <= self.clock.now():
            await self.answer(taken, answers.expired(tool), store=False, ran=False)
            return
        if taken.detail == "mine":
            log.info(
                "worker %s: running call %s (%s), which it had taken without hearing so",
                self.id,
                call_id,
                taken.entry_id,
            )
        self.started.add(taken.entry_id)
        result, finished = await self._run(replace(message, deadline=deadline))
        await self.answer(taken, result, store=finished, ran=True)
        self.started.discard(taken.entry_id)

    def remember(self, entry_id: str, tool: str, body: str, store: bool) -> None:
        """Keep ``entry_id``'s answer a few minutes (the last few thousand answers)."""
        now = time.monotonic()
        self.answered[entry_id] = (now, tool, body, store)
        if len(self.answered) > 5_000:
            self.answered = {e: a for e, a in self.answered.items() if now - a[0] < 60}
            while len(self.answered) > 4_000:
                del self.answered[next(iter(self.answered))]

    async def answer_again(self, taken: Taken) -> None:
        """Answer an entry this worker answered before, the same (its claim came back)."""
        _, tool, body, store = self.answered[taken.entry_id]
        await self._send(taken, tool, body, store=store, ran=True)

    def _message(self, taken: Taken) -> CallMessage:
        fields = taken.fields
        body = fields.get("call")
        if body is None:
            raise WireError("the stream entry has no 'call' field")
        message = CallMessage.from_json(body)
        if taken.call_id != message.call_id:
            raise WireError(
                f"the entry's id {taken.call_id!r} is not the message's {message.call_id!r}"
            )
        if fields.get("tool") != message.tool:
            raise WireError(f"the entry's tool {fields.get('tool')!r} is not the message's")
        if taken.status == "entry":  # unmarked: the script found no id or tool to mark it by
            raise WireError("the stream entry's id or tool is missing or too long")
        return message

    async def _refusal(self, taken: Taken, message: CallMessage) -> ToolResult | None:
        """Why the call must not run here (another version, a tool the toolset lacks)."""
        served = taken.stream.served
        if message.toolset == served.key and message.version != served.version:
            live = await self.retrying(self._live_versions, served.key)
            return answers.other_version(
                message.tool, served.key, message.version, served.version, live
            )
        return serving.refusal(served, message, float("-inf"))

    async def _live_versions(self, toolset: str) -> tuple[str, ...]:
        now_ms = int(self.clock.now() * 1000)
        members: Any = await self.scripts.client.zrangebyscore(
            self.keys.workers(toolset), now_ms, "+inf"
        )
        return tuple(sorted({str(m).split(" ", 1)[0] for m in members}))

    async def _run(self, message: CallMessage) -> tuple[ToolResult, bool]:
        """The call run through the runtime, within its tool's concurrency limit; a call its
        agent cancelled is answered so (the handler saw the cancellation)."""
        task = asyncio.current_task()
        limit = self._limits.get(message.tool) or self._limits.get(message.tool.rsplit(".")[-1])
        try:
            if limit is None:
                return await serving.execute(self.runtime, message, self.clock.now())
            if limit.locked():
                released = self.parking(True)
                try:
                    await limit.acquire()
                finally:
                    if released:
                        self.parking(False)
            else:
                await limit.acquire()
            try:
                return await serving.execute(self.runtime, message, self.clock.now())
            finally:
                limit.release()
        except asyncio.CancelledError:
            if task is None or task not in self.cancelled:
                raise
            self.cancelled.discard(task)
            task.uncancel()
            log.info("worker %s: call %s cancelled by its agent", self.id, message.call_id)
            return answers.cancelled(message.tool, started=True), True

    # ── answers ──────────────────────────────────────────────────────────────────────────

    async def _malformed(self, taken: Taken, problem: str) -> None:
        served = taken.stream.served
        log.error(
            "worker %s: malformed call %s on %s: %s",
            self.id,
            taken.entry_id,
            taken.stream.key,
            problem,
        )
        call_id, reply = taken.call_id, taken.fields.get("reply", "")
        if call_id and reply and _is_text(call_id):
            result = answers.malformed_call(f"{served.key}.?", problem)
            await self.answer(taken, result, store=False, ran=False)
            return
        self.metrics.dead_lettered(served.key, served.version)
        flat: list[str] = []
        for name, value in taken.fields.items():
            flat += [name, value]
        letter = [
            *flat,
            "entry", taken.entry_id,
            "stream", taken.stream.key,
            "reason", f"malformed: {problem}",
            "deliveries", str(taken.deliveries),
            "worker", self.id,
        ]  # fmt: skip
        await self.retrying(
            self.scripts.run,
            "dead",
            [taken.stream.key, self.keys.dead(served.key), self._record(taken, "")],
            [GROUP, taken.entry_id, self.dead_letter_limit, self._claim(taken), *letter],
        )

    async def answer(
        self, taken: Taken, result: ToolResult, *, store: bool, ran: bool, reason: str = ""
    ) -> None:
        body = ReplyMessage(taken.call_id, result.to_dict(), self.id, taken.deliveries).to_json()
        await self._send(taken, result.name, body, store=store, ran=ran, reason=reason)

    async def _send(
        self, taken: Taken, tool: str, body: str, *, store: bool, ran: bool, reason: str = ""
    ) -> None:
        # Stores the answer (the first one stored wins), sends it, then acknowledges the entry:
        # a worker lost on the way leaves the entry pending, and its redelivery finds the answer.
        served = taken.stream.served
        reply, start = taken.fields.get("reply", ""), self.keys.replies_start(served.key)
        sent = await self.retrying(
            self.scripts.run,
            "answer",
            [self._record(taken, tool), taken.stream.key, self.keys.dead(served.key)],
            [
                GROUP,
                taken.entry_id,
                body,
                1 if store else 0,
                self.result_ttl,
                reply,
                self.result_ttl,
                taken.call_id,
                self._claim(taken),
                1 if ran else 0,
                start,
                reason,
                taken.deliveries,
                self.id,
                self.dead_letter_limit,
                tool,
                taken.fields.get("call", "") if reason or not reply.startswith(start) else "",
            ],
        )
        self.remember(taken.entry_id, tool, body, store)
        log.debug("worker %s: answered entry %s (sent %s)", self.id, taken.entry_id, sent)
        if sent == -1:
            self.metrics.dead_lettered(served.key, served.version)
            log.error(
                "worker %s: call %s names a reply address that is not a reply stream of %s; "
                "dead-lettered",
                self.id,
                taken.call_id,
                served.key,
            )

    def _record(self, taken: Taken, tool: str) -> str:
        """The key of the call's record, as the take and claim scripts name it: in the slot of
        the stream's toolset, by the entry's tool name and call id."""
        name = taken.fields.get("tool", tool).rsplit(".", 1)[-1]
        return f"{self.keys.calls(taken.stream.served.key)}{name}:{taken.call_id or '-'}"

    def _claim(self, taken: Taken) -> str:
        return f"{self.id} {taken.entry_id}"


async def retry_transient(
    abandon: asyncio.Event,
    worker_id: str,
    command: Callable[..., Awaitable[Any]],
    *args: Any,
    **kwargs: Any,
) -> Any:
    """``command`` retried with backoff while the server is unreachable, until ``abandon`` is
    set (a worker stopping past its grace): the entry then stays pending."""
    backoff = Backoff()
    while True:
        try:
            return await command(*args, **kwargs)
        except ERRORS as exc:
            if not transient(exc) or abandon.is_set():
                raise
            log.warning("worker %s: Redis unreachable (%s); retrying", worker_id, exc)
            await backoff.sleep()
