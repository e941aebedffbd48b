"""The tasks a server keeps (:class:`Task`, :class:`TaskStore`): what each runs, its status,
what it ended with or waits for, and the rules of a store kept in this process — at most
``limit`` at once, at most ``per_caller`` running for one authenticated caller, an ended task
kept its ``keep_ms``, and a round (``asks_first``) making one task. A shared store
(:mod:`.redis_tasks`) keeps the same records elsewhere. The protocol is :mod:`.tasks`'."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.control.exchanges import InputRequest
from tooldesign.runtime.mcp import exchanges, task_runs

ENDED = frozenset({"completed", "failed", "cancelled"})
DEFAULT_LIMIT = 1000
"""Tasks a server keeps at once (running and ended ones kept for their results)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True, eq=False)
class Task:
    """One task: the call it runs, its status, and what it ended with or waits for."""

    id: str
    tool: str
    owner: str | None
    support: TaskSupport
    status: str = "working"
    created_at: str = field(default_factory=_now)
    updated_at: str = ""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    asked: dict[str, InputRequest] = field(default_factory=dict)
    """What the tool asked that has no answer yet, by key."""
    waiting: dict[str, asyncio.Future[Mapping[str, Any]]] = field(default_factory=dict)
    checks: dict[str, task_runs.Check] = field(default_factory=dict)  # an answer's, by key
    runner: asyncio.Task[None] | None = None
    round: str | None = None  # the asks_first round that made it: the same round is this task
    waits_ms: int = 0  # how long a question waits for its answer
    answerer: task_runs.Parked | None = None  # the call's, with its result once the call ran
    ended: float | None = None
    """When it ended (``time.monotonic()``); it is forgotten ``keep_ms`` later."""
    call: dict[str, Any] | None = None
    """The call it runs (``name``, ``arguments``, ``callId``): a server that takes the task over
    after a restart finds the call's answer again by it (a remote call of the same id is
    answered once, from the queue's record)."""
    revision: int = 0
    """Bumped by each change, so that a shared store keeps the newest."""
    shown: dict[str, Any] | None = None
    """The questions as a shared store's record lists them (a task another server runs)."""
    on_change: Callable[[Task], None] | None = None
    """Told of each change (a shared store writes the record)."""
    watchers: list[Callable[[Task], None]] = field(default_factory=list)
    """Told of each change too: the listen streams following it (``notifications/tasks``)."""
    stranded: bool = False
    """A shared store's task whose server is gone (its lease expired) before it ended."""

    def __post_init__(self) -> None:
        self.updated_at = self.updated_at or self.created_at

    @property
    def ran(self) -> bool:
        """Whether the call ran to its end (its result exists): cancelling it can no longer
        undo what it did, so the task ends ``completed`` with that result."""
        return self.answerer is not None and self.answerer.result is not None

    def set_status(self, status: str) -> None:
        if self.status in ENDED:
            return
        self.status = status
        self.updated_at = _now()
        if status in ENDED:
            self.ended = time.monotonic()
            for future in self.waiting.values():
                future.cancel()
            self.waiting.clear()
            self.asked.clear()
        self.changed()

    def changed(self) -> None:
        self.revision += 1
        if self.on_change is not None:
            self.on_change(self)
        for watcher in list(self.watchers):
            watcher(self)

    def requests(self) -> dict[str, Any]:
        """What the tool asked that has no answer yet, as ``inputRequests`` lists it."""
        if self.asked:
            return {key: exchanges.wire_request(r) for key, r in self.asked.items()}
        return dict(self.shown or {})

    def envelope(self) -> dict[str, Any]:
        """The ``Task`` fields every task answer carries."""
        return {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": self.support.keep_ms,
            "pollIntervalMs": self.support.poll_ms,
        }

    def detailed(self) -> dict[str, Any]:
        """``tasks/get``'s answer: the envelope, and the result, error or questions."""
        answer = self.envelope()
        if self.status == "completed" and self.result is not None:
            answer["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            answer["error"] = self.error
        elif self.status == "input_required" and (asked := self.requests()):
            answer["inputRequests"] = asked
        return answer


class TaskStore:
    """The tasks of one server, in this process: at most ``limit`` at once; an ended task is
    kept its ``keep_ms``, then forgotten (and an ended one is dropped first when full)."""

    hands_over = False
    """Whether its tasks outlive this server (another takes them over): a shared store's."""
    cancel_call: Callable[[Task], Awaitable[None]] | None = None
    """Cancels a task's remote call on the workers (set by :class:`Tasks`)."""
    stop_here: Callable[[Task], Awaitable[None]] | None = None
    """Cancels the call of a task running here, as ``tasks/cancel`` does (set by :class:`Tasks`)."""

    def __init__(
        self,
        limit: int = DEFAULT_LIMIT,
        *,
        per_caller: int | None = None,
        answer_within_ms: int | None = None,
    ) -> None:
        for name, value in (
            ("limit", limit),
            ("per_caller", 1 if per_caller is None else per_caller),
        ):
            if value < 1:
                raise ValueError(f"TaskStore's {name} is a positive number of tasks, not {value!r}")
        if answer_within_ms is not None and answer_within_ms < 1:
            raise ValueError(f"TaskStore's answer_within_ms is positive, not {answer_within_ms!r}")
        self.limit = limit
        # One authenticated caller runs at most per_caller at once: it cannot take every place.
        self.per_caller = max(1, limit // 10) if per_caller is None else per_caller
        self.answer_within_ms = answer_within_ms  # a question's wait (None: the task's keep_ms)
        self._tasks: dict[str, Task] = {}
        self._rounds: dict[tuple[str | None, str], Task] = {}
        self._spent: dict[tuple[str | None, str], float] = {}  # forgotten tasks' rounds: until
        self.round_life_s = 600.0  # a round's state lasts (the server's RequestStateSecurity.ttl)

    def __len__(self) -> int:
        self._expire()
        return len(self._tasks)

    def add(
        self, tool: str, owner: str | None, support: TaskSupport, round_id: str | None = None
    ) -> Task:
        """A new task — or, for a round that made one already (``round_id``), that task."""
        self._expire()
        if round_id is not None and (made := self._rounds.get((owner, round_id))) is not None:
            return made
        if round_id is not None and (owner, round_id) in self._spent:
            raise MCPError(
                types.INVALID_PARAMS,
                "This round made a task already, which has ended and is no longer kept: it does "
                "not run again. Call the tool again without its requestState.",
            )
        if owner is not None:
            running = sum(1 for t in self._tasks.values() if t.owner == owner and t.ended is None)
            if running >= self.per_caller:
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"You run {self.per_caller} tasks on this server already; try again when "
                    "one has ended.",
                )
        if len(self._tasks) >= self.limit:
            ended = [t for t in self._tasks.values() if t.ended is not None]
            if not ended:
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"This server runs {self.limit} tasks already; try again when one has ended.",
                )
            oldest = min(ended, key=lambda t: t.ended or 0.0)
            self._forget(oldest)
        task = Task(secrets.token_urlsafe(18), tool, owner, support, round=round_id)
        if round_id is not None:
            self._rounds[owner, round_id] = task
        task.waits_ms = self.answer_within_ms or support.keep_ms
        self._tasks[task.id] = task
        return task

    @staticmethod
    def call_of(task_id: str, call: Mapping[str, Any]) -> dict[str, Any]:
        """The call a task runs, with its call id (the task's own, for every server)."""
        return {**call, "callId": f"mcp-task-{task_id}"}

    def get(self, task_id: str, owner: str | None) -> Task | None:
        """The task, if it exists and ``owner`` may see it."""
        self._expire()
        task = self._tasks.get(task_id)
        if task is None or (task.owner is not None and task.owner != owner):
            return None
        return task

    # The interface :class:`Tasks` uses (a shared store implements it too).

    async def open(
        self,
        tool: str,
        owner: str | None,
        support: TaskSupport,
        call: dict[str, Any],
        round_id: str | None = None,
    ) -> tuple[Task, bool]:
        """A new task of ``owner`` running ``call``, and ``True`` — or, for a round that made
        one already (``round_id``), that task, and ``False`` (it is not started again)."""
        task = self.add(tool, owner, support, round_id)
        if task.call is not None:
            return task, False
        task.call = self.call_of(task.id, call)
        return task, True

    async def find(self, task_id: str, owner: str | None) -> Task | None:
        """The task, if it exists and ``owner`` may see it (its runner, if it runs here)."""
        return self.get(task_id, owner)

    def adopted(self, task: Task) -> None:
        """``task`` runs in this process now."""

    async def forward(self, task: Task, responses: Mapping[str, Any]) -> None:
        """Answers for a task another server runs (never, in this process's store)."""

    async def cancel_elsewhere(self, task: Task) -> int:
        """Cancel a task another server runs (never, here): 0, it was not running; 1, no
        server runs it (gone): it is cancelled; 2, the server running it is asked to."""
        return 0

    async def claim(self, task: Task) -> bool:
        """Take a stranded task over (never, here: none is)."""
        return False

    def _expire(self) -> None:
        now = time.monotonic()
        gone = [
            task_id
            for task_id, task in self._tasks.items()
            if task.ended is not None and now - task.ended > task.support.keep_ms / 1000
        ]
        for task_id in gone:
            self._forget(self._tasks[task_id])
        for spent in [k for k, until in self._spent.items() if until <= now]:
            del self._spent[spent]

    def _forget(self, task: Task) -> None:
        del self._tasks[task.id]
        if task.round is not None:  # its state may still come back: remembered until it expires
            self._rounds.pop((task.owner, task.round), None)
            self._spent[task.owner, task.round] = time.monotonic() + self.round_life_s

    def runners(self) -> list[asyncio.Task[None]]:
        """The tasks' calls still running."""
        return [
            t.runner for t in self._tasks.values() if t.runner is not None and not t.runner.done()
        ]

    def cancel_all(self) -> None:
        """Cancel every running task (the server is closing): each ends as its call does."""
        for task in self._tasks.values():
            stop(task)


def stop(task: Task) -> None:
    """Cancel the call of a task running here, cooperatively: a sync tool whose worker thread
    started is waited for (it cannot be stopped, and what it did is not hidden), so the task
    stays ``working`` until its call ends — ``completed`` with its result once it ran,
    ``cancelled`` otherwise (the tasks extension's cancel is cooperative: a task may end in
    another state than ``cancelled`` when its work finished first)."""
    if task.answerer is not None:
        task.answerer.end.ask()
    if task.runner is not None and not task.runner.done():
        task.runner.cancel()


def answer_task(task: Task, responses: Mapping[str, Any]) -> None:
    """Answers (``inputResponses``) to what a task running here asked; keys not asked (or
    answered already) are ignored; an answer that is not a result of its request is refused
    (``MCPError``), and its question stays asked."""
    answered = False
    for key, response in responses.items():
        request = task.asked.get(key)
        future = task.waiting.get(key)
        if request is None or future is None or future.done():
            continue  # not asked (or answered already): ignored
        try:
            answer = exchanges.answer_of(request, response)
        except ValidationError as exc:
            raise MCPError(
                types.INVALID_PARAMS,
                f"The answer to {key!r} is not a {request.method} result: {exc.errors()[0]['msg']}",
            ) from None
        check = task.checks.get(key)
        problem = None if check is None else check(answer)
        if problem is not None:  # not what was asked: no answer, the question stays
            raise MCPError(
                types.INVALID_PARAMS,
                f"The answer to {key!r} does not match its form ({problem}); it is still asked.",
            )
        del task.asked[key]
        future.set_result(answer)
        answered = True
    if task.status == "input_required" and not task.asked:
        task.set_status("working")
    elif answered:  # still asked what was not answered: its record and listeners are told
        task.updated_at = _now()
        task.changed()
