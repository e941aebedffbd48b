"""Tools implemented by an agent (``ImplementedByAgent`` in the design): step 6 of such a call
runs an inner agent, and what crosses the boundary is decided here.

The application binds an :data:`AgentImplementation` (a plain async function running its own
loop, or a framework's agent through its integration): it receives an :class:`AgentTask` — the
decoded ``Args``, the outer call's metadata, the design's contract — and returns what ``Return``
describes. While it runs, every call it makes through a :class:`~tooldesign.runtime.Runtime`
(``task.call``, or a framework's toolset over the runtime) is a call of this *inner run*:

- its metadata carries the outer call as its parent (``parent_tool_call_id``), the inner run's
  id, and the values the design ``forward``s from the outer call's metadata (its injected
  fields are filled from them, never from a model);
- it may use only the toolsets the design ``uses``; it is counted against the budget (inner
  tool calls, model turns and tokens the implementation reports, time), and the run is stopped
  with a clear answer when one is spent;
- its events and spans are the runtime's, under the outer call's span (one trace);
- an approval it needs is asked of the outer call's approver; with none, or none that answers,
  the inner run waits and the outer call is answered awaiting that approval. The same outer
  call presented again with the decision resumes the waiting run where it stopped: nothing
  already done is done again.

An output outside ``Return`` is sent back to the implementation (``task.correction``) up to
``output_retries`` times; then step 7 answers it as a malformed result. Cancelling the outer
call cancels the inner run.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import itertools
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import pydantic
from tooldesign.contract.agents import AgentContract
from tooldesign.runtime import answers, held
from tooldesign.runtime.approval import NO_DECISIONS, Decisions
from tooldesign.runtime.control.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    ApproverAnswer,
    canonical_json,
    decision_for,
)
from tooldesign.runtime.control.interceptors import (
    current_deadlines,
    deadlines_paused,
    forget_deadlines,
)
from tooldesign.runtime.registration import Invoke, Outcome
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult

if TYPE_CHECKING:
    from tooldesign.runtime.registry import RegisteredTool
    from tooldesign.runtime.spec.specs import ToolSpec

PayloadT = TypeVar("PayloadT", bound=pydantic.BaseModel)
ResultT_co = TypeVar("ResultT_co", covariant=True)

log = logging.getLogger("tooldesign.runtime")

PARKED_SECONDS = 3600.0
"""How long an inner run waiting for a person's decision is kept (then it is cancelled)."""


class AgentBudgetExceeded(Exception):
    """An inner run spent one of its design's budgets (``budget``: which, ``limit``: its size).
    Raised by :meth:`AgentTask.turn`; framework integrations raise it for their own limits."""

    def __init__(self, budget: str, limit: float) -> None:
        super().__init__(f"the inner agent used its {limit:g} {budget}")
        self.budget = budget
        self.limit = limit


@dataclass(slots=True)
class AgentUsage:
    """What one call's inner run has used so far."""

    turns: int = 0
    tool_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0


@dataclass(eq=False)
class AgentTask(Generic[PayloadT]):
    """One call of an agent-implemented tool, as its implementation receives it.

    ``args`` are the decoded arguments the outer model sent, ``meta`` the outer call's
    metadata, ``spec`` the tool's spec (``spec.agent`` is the design's contract,
    ``spec.result.model`` the type to produce). ``correction`` is set when the implementation is
    asked again because its previous output was outside ``Return`` (it says what was wrong).
    """

    args: PayloadT
    meta: ToolCallMeta
    spec: ToolSpec[PayloadT, Any]
    runtime: Any = None
    """The :class:`~tooldesign.runtime.Runtime` that runs the outer call: inner calls go through
    it (``task.call``, a framework's toolset over it). (Typed loosely: the runtime imports this
    module.)"""
    correction: str | None = None
    attempt: int = 0
    usage: AgentUsage = field(default_factory=AgentUsage)
    run_id: str = ""
    """The inner run's id (the ``run_id`` of its calls' metadata)."""
    state: dict[str, Any] = field(default_factory=dict)
    """What the implementation keeps between attempts (a framework's conversation, say)."""
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1), repr=False)

    @property
    def contract(self) -> AgentContract:
        assert self.spec.agent is not None
        return self.spec.agent

    @property
    def toolsets(self) -> tuple[str, ...]:
        """The toolsets the inner agent may use, as ``service.toolset`` keys."""
        return tuple(f"{self.spec.service}.{name}" for name in self.contract.uses)

    @property
    def output_type(self) -> type[Any]:
        """The type the inner agent must produce (the tool's ``Return``)."""
        return self.spec.result.model

    def prompt(self) -> str:
        """The task as text for an inner model: the tool's description and the arguments (and,
        when asked again, what was wrong with the previous output)."""
        args = self.args.model_dump(mode="json", by_alias=True, exclude_none=True)
        text = f"{self.spec.description}\nArguments: {canonical_json(args)}"
        return text if self.correction is None else f"{text}\n{self.correction}"

    def turn(self, *, tokens: int | None = None) -> None:
        """Count one model request of the inner run (and the ``tokens`` it used, if known);
        raises :class:`AgentBudgetExceeded` past the design's ``max_turns`` or ``max_tokens``."""
        self.usage.turns += 1
        if tokens:
            self.usage.tokens += tokens
        contract = self.contract
        if contract.max_turns is not None and self.usage.turns > contract.max_turns:
            raise AgentBudgetExceeded("model turns", contract.max_turns)
        if contract.max_tokens is not None and self.usage.tokens > contract.max_tokens:
            raise AgentBudgetExceeded("tokens", contract.max_tokens)

    def inner_meta(self, tool_call_id: str | None = None) -> ToolCallMeta:
        """Metadata for a call of the inner run (``tool_call_id``: the inner model's id for it,
        else a numbered one)."""
        return ToolCallMeta(
            run_id=self.run_id,
            tool_call_id=tool_call_id or f"{self.run_id}-{next(self._ids)}",
            principal=self.meta.principal,  # the inner run acts for the outer call's caller
        )

    async def call(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any],
        *,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Run one tool call of the inner run through :attr:`runtime` (never raises)."""
        if self.runtime is None:
            raise RuntimeError("this task has no runtime to run calls with")
        result: ToolResult = await self.runtime.execute(
            ToolRequest(name, arguments, self.inner_meta(tool_call_id))
        )
        return result


class AgentJournal(Protocol):
    """Where the calls an inner run made are recorded, so that a run started again (its
    process restarted while it waited for a person; another worker took its resumed call up)
    is answered what its calls were answered instead of running them again. Workers keep one on
    their Redis (:class:`~tooldesign.runtime.transports.redis_agents.RedisAgentJournal`)."""

    async def recorded(self, run: str, entry: str) -> Mapping[str, Any] | None:
        """The result (``ToolResult.to_dict()``) recorded for ``entry`` of ``run``, if any."""
        ...

    async def record(self, run: str, entry: str, result: Mapping[str, Any], ttl: float) -> None:
        """Record ``result`` for ``entry`` of ``run``, kept ``ttl`` seconds."""
        ...


class AgentImplementation(Protocol[PayloadT, ResultT_co]):
    """What the application binds to an agent-implemented tool: one call's inner run."""

    def __call__(
        self, task: AgentTask[PayloadT], /
    ) -> ResultT_co | ToolResult | Awaitable[ResultT_co | ToolResult]: ...


@dataclass(frozen=True, slots=True)
class OuterCall:
    """What the pipeline hands an agent-implemented tool's step 6: the outer call's decisions,
    the runtime running it, and where waiting inner runs are kept."""

    decisions: Decisions
    runtime: Any
    parked: ParkedRuns


_outer: contextvars.ContextVar[OuterCall | None] = contextvars.ContextVar(
    "tooldesign_agent_outer", default=None
)
_scope: contextvars.ContextVar[InnerRun | None] = contextvars.ContextVar(
    "tooldesign_agent_run", default=None
)


def current_run() -> InnerRun | None:
    """The inner run the current code is part of (``None`` outside any)."""
    return _scope.get()


async def run_as_outer(outer: OuterCall, invoke: Callable[[], Awaitable[Outcome]]) -> Outcome:
    """Step 6 of an agent-implemented tool's call, with the outer call's context."""
    token = _outer.set(outer)
    try:
        return await invoke()
    finally:
        _outer.reset(token)


class InnerRun:
    """One call's inner run: its task, budget, waiting approval, and the decisions it may use."""

    def __init__(self, task: AgentTask[Any], outer: OuterCall | None, key: str) -> None:
        self.task = task
        self.key = key
        self.decisions = outer.decisions if outer is not None else NO_DECISIONS
        self.stopped: AgentBudgetExceeded | None = None
        self.waiting: tuple[ApprovalRequest, asyncio.Future[ApprovalDecision | None]] | None = None
        self.changed = asyncio.Event()
        self.runner: asyncio.Task[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.deadlines: tuple[asyncio.Timeout, ...] = current_deadlines()
        """The outer call's ``Timeout`` deadlines: an approver's wait pauses them too."""
        self.parked_at = 0.0
        self.context: contextvars.Context | None = None
        self.expiry: asyncio.TimerHandle | None = None
        self.journal = outer.parked.journal if outer is not None else None
        self.journal_key = task.meta.stable_id() if self.journal is not None else None
        """The outer call's stable id: what its calls are recorded under (none: not recorded,
        since nothing tells a call presented again from another identical call)."""
        self.occurrences: dict[str, int] = {}

    # ── inner calls (Runtime.execute asks) ─────────────────────────────────────────────

    async def admit(
        self,
        request: ToolRequest,
        approvals: Iterable[ApprovalDecision],
        approver: Approver | None,
        resolve: Callable[[str], RegisteredTool | None],
    ) -> tuple[ToolRequest, tuple[ApprovalDecision, ...], Approver, str | None] | ToolResult:
        """An inner call as it runs (its metadata, decisions, and the journal entry its result
        is recorded under), or the answer refusing it, or the one it got before the run was
        started again."""
        task, contract = self.task, self.task.contract
        tool = resolve(request.name) if isinstance(request.name, str) else None
        if tool is not None and contract.uses and tool.spec.toolset not in contract.uses:
            allowed = [
                s.name
                for s in (task.runtime.specs() if task.runtime else ())
                if s.toolset in contract.uses
            ]
            return answers.unknown_tool(request.name, request.name, allowed, ())
        task.usage.tool_calls += 1
        if contract.max_tool_calls is not None and task.usage.tool_calls > contract.max_tool_calls:
            self.stop(AgentBudgetExceeded("tool calls", contract.max_tool_calls))
            await asyncio.sleep(0)  # the outer call stops the run here (a loop never yields)
            return answers.agent_budget_spent(task.spec.id, "tool calls", contract.max_tool_calls)
        entry = self._entry(tool, request) if tool is not None else None
        if entry is not None:
            assert self.journal is not None and self.journal_key is not None
            recorded = await self.journal.recorded(self.journal_key, entry)
            if recorded is not None:  # it ran before this run was started again: not twice
                try:
                    return ToolResult.from_dict(recorded, tool.binding)  # type: ignore[union-attr]
                except Exception:  # damaged: as if it had not been recorded
                    log.exception("an inner call's recorded result cannot be read")
        meta = self.inner_meta(request.meta)
        given = (*approvals, *self.decisions.given)
        return ToolRequest(request.name, request.payload, meta), given, approver or self.ask, entry

    def _entry(self, tool: RegisteredTool, request: ToolRequest) -> str | None:
        """The journal entry of an inner call with side effects (neither ``read_only`` nor
        ``idempotent``: those run again harmlessly): its tool, canonical arguments, and how
        many identical calls the run made before it."""
        annotations = tool.spec.annotations
        if self.journal_key is None or annotations.read_only or annotations.idempotent:
            return None
        payload: Any = request.payload
        if isinstance(payload, str | bytes):
            try:
                payload = json.loads(payload)
            except ValueError:
                return None  # its decoder answers it: nothing runs
        call = f"{tool.spec.id}\n{canonical_json(payload)}"
        seen = self.occurrences[call] = self.occurrences.get(call, 0) + 1
        return f"{call}\n{seen}"

    async def ran(self, entry: str, result: ToolResult) -> None:
        """Record what an inner call with side effects was answered (not while it waits)."""
        if self.journal is None or self.journal_key is None or result.awaiting_approval:
            return
        try:
            await self.journal.record(self.journal_key, entry, result.to_dict(), PARKED_SECONDS)
        except Exception:  # the call ran: its answer stands; a restart may run it again
            log.exception("an inner call's result could not be recorded")

    def inner_meta(self, meta: ToolCallMeta) -> ToolCallMeta:
        """``meta`` (the inner call's own) with the outer call as its parent and the values the
        design forwards from the outer call's metadata. (Its span's parent is the current span,
        the outer call's: the inner run runs inside it.)"""
        outer = self.task.meta
        labels = dict(meta.labels)
        changes: dict[str, Any] = {"run_id": meta.run_id or self.task.run_id}
        for name in self.task.contract.forward:
            if name in ("run_id", "session_id", "turn_id"):
                changes[name] = getattr(outer, name)
            elif name in outer.labels:
                labels[name] = outer.labels[name]
            else:
                labels.pop(name, None)  # the outer call has none: nor does the inner one
        return replace(
            meta,
            parent_tool_call_id=outer.tool_call_id,
            labels=labels,
            server_data=meta.server_data or outer.server_data,
            call_id=None,
            **changes,
        )

    async def ask(self, request: ApprovalRequest, meta: ToolCallMeta) -> ApproverAnswer:
        """An inner call's approval: the outer call's approver decides; with none (or no
        answer), the run waits, and the outer call is answered awaiting this approval."""
        with deadlines_paused(self.deadlines):  # a person's time is not the outer call's
            decision = await self.decided(request, meta)
        if decision is not None:
            return decision
        future: asyncio.Future[ApprovalDecision | None] = asyncio.get_running_loop().create_future()
        self.waiting = (request, future)
        self.changed.set()
        return await future

    async def decided(
        self, request: ApprovalRequest, meta: ToolCallMeta
    ) -> ApprovalDecision | None:
        """The outer approver's decision on the request the run waits on (``None``: none)."""
        approver = self.decisions.approver
        if approver is None:
            return None
        try:
            if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
                getattr(approver, "__call__", None)  # noqa: B004 - an object with an async __call__
            ):
                answer: Any = await approver(request, meta)  # type: ignore[misc]
            else:  # a sync approver may wait for a person: not on the event loop
                answer = await asyncio.to_thread(approver, request, meta)
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception:  # undecided: the run waits, and can still be decided out of band
            log.exception("the approver failed on call %s of %s", request.id, request.tool_id)
            return None
        return decision_for(request, answer, by=None)

    def stop(self, why: AgentBudgetExceeded) -> None:
        self.stopped = why
        self.changed.set()

    # ── the outer call (step 6) ────────────────────────────────────────────────────────────

    def start(self, implementation: AgentImplementation[Any, Any]) -> None:
        self.loop = asyncio.get_running_loop()
        self.context = context = contextvars.copy_context()
        context.run(forget_deadlines)  # the run may outlive this call, waiting for a person
        context.run(_scope.set, self)
        self.runner = self.loop.create_task(self._attempts(implementation), context=context)
        self.runner.add_done_callback(lambda _: self.changed.set())
        held.hold(self.runner, context)

    def close(self) -> None:
        """End this run where it is (it waits for a decision that will not come here): it is
        cancelled on its own event loop, in its own context, from whichever thread or loop
        drops it. Until it has ended, its loop holds it (never garbage collected pending)."""
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None
        if self.runner is not None:
            held.cancel(self.runner)

    async def _attempts(self, implementation: AgentImplementation[Any, Any]) -> Any:
        task = self.task
        while True:
            value = implementation(task)
            if inspect.isawaitable(value):
                value = await value
            problem = _outside_return(task.spec, value)
            if problem is None or task.attempt >= task.contract.output_retries:
                return value  # step 7 checks it (and answers one still outside as malformed)
            task.attempt += 1
            task.correction = problem

    async def follow(self, decision: ApprovalDecision | None) -> Outcome | ToolResult:
        """Wait for the run: its output, its stop, or an approval it waits on."""
        if decision is not None and self.waiting is not None:
            _, future = self.waiting
            self.waiting = None
            if not future.done():
                future.set_result(decision)
        assert self.runner is not None
        timeout = self.task.contract.timeout
        try:
            while True:
                if self.runner.done():
                    return Outcome(self.runner.result())
                if self.stopped is not None:
                    return await self._stopped(self.stopped)
                if self.waiting is not None:
                    return answers.awaiting_approval(self.task.spec.id, self.waiting[0])
                self.changed.clear()
                started = time.monotonic()
                left = None if timeout is None else timeout - self.task.usage.seconds
                try:
                    await asyncio.wait_for(self.changed.wait(), left)
                except TimeoutError:
                    self.runner.cancel()
                    assert timeout is not None
                    return answers.out_of_time(self.task.spec.id, timeout)
                finally:
                    self.task.usage.seconds += time.monotonic() - started
        except AgentBudgetExceeded as exc:  # raised by the implementation (turns, tokens)
            return answers.agent_budget_spent(self.task.spec.id, exc.budget, exc.limit)
        except BaseException:
            self.runner.cancel()  # the outer call is cancelled: so is its inner run
            raise

    async def _stopped(self, why: AgentBudgetExceeded) -> ToolResult:
        assert self.runner is not None
        self.runner.cancel()
        await asyncio.gather(self.runner, return_exceptions=True)
        return answers.agent_budget_spent(self.task.spec.id, why.budget, why.limit)


class ParkedRuns:
    """Inner runs waiting for a person's decision, by the outer call they belong to (the tool
    and its canonical arguments): presented again, that call resumes its run.

    Each waiting run belongs to the event loop it runs on. It is cancelled there after
    :data:`PARKED_SECONDS` (its approval has expired), when a call takes it on another loop
    (that call starts the run again), and when its loop closes (``asyncio.run`` cancels what is
    left; ``execute_sync``'s per-thread loop too, see :mod:`tooldesign.runtime.held`; a loop closed without
    either has its runs ended in their own context when they are next looked at)."""

    def __init__(self) -> None:
        self._runs: dict[str, InnerRun] = {}
        self.journal: AgentJournal | None = None
        """Where inner runs record their calls with side effects (a worker's Redis)."""
        self._lock = threading.Lock()  # execute_sync calls park from several threads

    def park(self, run: InnerRun) -> None:
        now = time.monotonic()
        with self._lock:
            stale = [
                key
                for key, old in self._runs.items()
                if now - old.parked_at > PARKED_SECONDS
                or old.runner is None
                or old.runner.done()
                or (old.loop is not None and old.loop.is_closed())
            ]
            dropped = [self._runs.pop(key) for key in stale]
            previous = self._runs.get(run.key)
            run.parked_at = now
            self._runs[run.key] = run
        if previous is not None and previous is not run:
            dropped.append(previous)
        for old in dropped:
            old.close()
        if run.loop is not None and run.expiry is None:
            run.expiry = run.loop.call_later(PARKED_SECONDS, self._expire, run)

    def _expire(self, run: InnerRun) -> None:
        """``run``'s approval has waited :data:`PARKED_SECONDS`: it is cancelled."""
        run.expiry = None
        with self._lock:
            if self._runs.get(run.key) is run:
                del self._runs[run.key]
        run.close()

    def take(self, key: str) -> InnerRun | None:
        """The run waiting for this call, if it can resume on the running loop (a run on
        another loop, or one that has ended, is closed: the call starts its run again)."""
        with self._lock:
            run = self._runs.pop(key, None)
        if run is None:
            return None
        if run.expiry is not None:
            run.expiry.cancel()
            run.expiry = None
        if run.loop is not held.running_loop() or run.runner is None or run.runner.done():
            run.close()
            return None
        return run

    def waiting(self, key: str) -> ApprovalRequest | None:
        run = self._runs.get(key)
        return run.waiting[0] if run is not None and run.waiting is not None else None


def run_key(spec: ToolSpec[Any, Any], args: Any, meta: ToolCallMeta) -> str:
    """Which outer call a waiting run belongs to: the tool, its canonical arguments, and the
    values the design forwards from its metadata (another session's call is another call)."""
    full = args.model_dump(mode="json", by_alias=True) if hasattr(args, "model_dump") else args
    forwarded = {name: meta.value_for(name) for name in spec.agent.forward} if spec.agent else {}
    values = json.dumps(forwarded, sort_keys=True, default=repr)
    return f"{spec.id}\n{canonical_json(full)}\n{values}"


def agent_invoke(spec: ToolSpec[Any, Any], implementation: AgentImplementation[Any, Any]) -> Invoke:
    """Step 6 of an agent-implemented tool: its inner run (what generated executors bind)."""
    if not callable(implementation):
        raise TypeError(f"the agent implementing {spec.id} is not callable")

    async def invoke(args: Any, meta: ToolCallMeta) -> Outcome:
        outer = _outer.get()
        key = run_key(spec, args, meta)
        # A run waiting on another event loop (``asyncio.run`` per call, a sync framework) is
        # closed there: this call starts the run again, the decision applying to the same
        # inner call when it comes.
        run = outer.parked.take(key) if outer is not None else None
        decision = None
        if run is not None:
            assert run.waiting is not None
            given = outer.decisions.given if outer is not None else ()
            decision = next((d for d in given if d.id == run.waiting[0].id), None)
            run.decisions = outer.decisions if outer is not None else run.decisions
            run.deadlines = current_deadlines()
            if decision is None:  # the outer call's approver may decide now (an MCP client)
                decision = await run.decided(run.waiting[0], meta)
            run.task.meta = meta
        else:
            task = AgentTask(args, meta, spec, runtime=outer.runtime if outer is not None else None)
            task.run_id = f"agent-{meta.stable_id() or id(task)}"
            run = InnerRun(task, outer, key)
            run.start(implementation)
        answer = await run.follow(decision)
        if isinstance(answer, ToolResult) and answer.awaiting_approval and outer is not None:
            outer.parked.park(run)
        return answer if isinstance(answer, Outcome) else Outcome(answer)

    return invoke


def _outside_return(spec: ToolSpec[Any, Any], value: Any) -> str | None:
    """What the implementation's ``value`` breaks of the tool's ``Return`` (``None``: nothing)."""
    model = spec.result.model
    if isinstance(value, ToolResult | model):
        return None
    try:
        model.model_validate(value)
    except pydantic.ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'the output'}: {e['msg']}"
            for e in error.errors()[:5]
        )
        schema = json.dumps(spec.result.schema, separators=(",", ":"))
        return (
            f"Your previous output did not match the required result ({problems}). "
            f"Answer again with an output matching this JSON Schema: {schema}"
        )
    return None


__all__ = [
    "AgentBudgetExceeded",
    "AgentImplementation",
    "AgentJournal",
    "AgentTask",
    "AgentUsage",
    "agent_invoke",
    "current_run",
]
