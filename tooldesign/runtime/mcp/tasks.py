"""Long-running tools over the MCP tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663).

A tool whose design says ``LongRunning(...)`` (its spec's ``task``), called by a client that
negotiated the extension (at ``initialize``, or in the request's
``_meta["io.modelcontextprotocol/clientCapabilities"]``), answers at once with a task
(``resultType: "task"``, its ``taskId``, ``status``, ``createdAt``, ``lastUpdatedAt``, ``ttlMs``,
``pollIntervalMs``) and runs in the background, through :meth:`Runtime.execute` as any call
(approvals, limits, events unchanged). The client then:

- ``tasks/get``: the task's status (``working``, ``input_required``, ``completed``,
  ``failed``, ``cancelled``); once completed, the tool's result inlined under ``result``
  (a tool's own error is ``completed`` with ``result.isError``); a failed task carries
  ``error`` (``code``, ``message``): the call ended with no result to give (a crash in the
  tool or the server);
- ``tasks/update``: answers (``inputResponses``) to what the tool asked, listed under the
  task's ``inputRequests`` while it is ``input_required`` (answered one at a time or all at
  once; keys that were not asked are ignored; an accepted answer that does not match the form
  asked is refused, -32602, and stays asked). A ``Confirm`` tool's approval is asked there
  too, under ``approval`` (unless the runtime has an approver of its own);
- ``tasks/cancel``: cancels the call (the tool is cancelled; the task ends ``cancelled``); on
  an ended task, or one whose call has run already (its effect is not undone: the task
  completes with its result), it changes nothing.

Both acknowledge with an empty result. A client that did not negotiate the extension is
refused these methods (-32021) and gets a task-supporting tool's result synchronously, or, for
``LongRunning(required=True)``, -32021 naming the extension. With ``asks_first``, a call that
brings no answers yet runs in the call (its questions answered ``input_required``, 2026-07-28
round trips); the round that brings the answers becomes the task.

Tasks live in this process (:class:`TaskStore`: at most ``limit`` at once, each kept its
design's ``keep_ms`` after it ends, then forgotten; a question waits for its answer at most
``answer_within_ms``, by default the task's ``keep_ms``, then the tool goes on without it); ids are unguessable, and a task created by
an authenticated caller is visible to that caller only. ``Mcp-Name`` on ``tasks/*`` requests,
when sent, must be the ``taskId`` (-32020 otherwise).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError
from starlette.requests import Request
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.control.exchanges import InputRequest, InputUnavailable
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.mcp import exchanges, task_runs
from tooldesign.runtime.mcp.access import access_token_of
from tooldesign.runtime.reasons import RetryReason
from tooldesign.runtime.result import ToolResult

if TYPE_CHECKING:
    from tooldesign.runtime.mcp.server import ToolServer

log = logging.getLogger("tooldesign.runtime.mcp")

EXTENSION = "io.modelcontextprotocol/tasks"
"""The tasks extension's identifier (``capabilities.extensions``)."""
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_RELATED = "io.modelcontextprotocol/related-task"
_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
_ENDED = frozenset({"completed", "failed", "cancelled"})
DEFAULT_LIMIT = 1000
"""Tasks a server keeps at once (running and ended ones kept for their results)."""


class _TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId", min_length=1)


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


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
    answerer: Parked | None = None  # the call's, with its result once the call ran
    ended: float | None = None
    """When it ended (``time.monotonic()``); it is forgotten ``keep_ms`` later."""

    def __post_init__(self) -> None:
        self.updated_at = self.created_at

    @property
    def ran(self) -> bool:
        """Whether the call ran to its end (its result exists): cancelling it can no longer
        undo what it did, so the task ends ``completed`` with that result."""
        return self.answerer is not None and self.answerer.result is not None

    def set_status(self, status: str) -> None:
        if self.status in _ENDED:
            return
        self.status = status
        self.updated_at = _now()
        if status in _ENDED:
            self.ended = time.monotonic()
            for future in self.waiting.values():
                future.cancel()
            self.waiting.clear()
            self.asked.clear()

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
        elif self.status == "input_required" and self.asked:
            answer["inputRequests"] = {
                key: exchanges.wire_request(request) for key, request in self.asked.items()
            }
        return answer


class TaskStore:
    """The tasks of one server, in this process: at most ``limit`` at once; an ended task is
    kept its ``keep_ms``, then forgotten (and an ended one is dropped first when full)."""

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

    def get(self, task_id: str, owner: str | None) -> Task | None:
        """The task, if it exists and ``owner`` may see it."""
        self._expire()
        task = self._tasks.get(task_id)
        if task is None or (task.owner is not None and task.owner != owner):
            return None
        return task

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
        """Cancel every running task (the server is closing)."""
        for task in self._tasks.values():
            if task.runner is not None and not task.runner.done():
                if not task.ran:
                    task.set_status("cancelled")
                task.runner.cancel()


class Parked:
    """The answerer of a call running as a task: a question with no answer parks the task
    (``input_required``) until ``tasks/update`` answers it."""

    __slots__ = ("answers", "asks", "ctx", "result", "round", "task")

    def __init__(
        self,
        task: Task,
        ctx: ServerRequestContext[Any, Any],
        asks: tuple[str, ...],
        answers: Mapping[str, Any],
    ) -> None:
        self.task = task
        self.ctx = ctx
        self.asks = asks
        self.answers = dict(answers)
        self.round: types.CallToolRequestParams | None = None
        """The round that made the task (``asks_first``), whose approval answer, for exactly
        this call, decides its approval once."""
        self.result: ToolResult | None = None
        """The call's result, once it ran (set by :func:`exchanges.execute`)."""

    def can_answer(self, method: str) -> bool:
        return exchanges.declared(method, self.asks) and exchanges.can_answer(self.ctx, method)

    async def __call__(self, request: InputRequest) -> Mapping[str, Any]:
        exchanges.check_asked(request, self.asks, self.ctx)
        given = self.answers.pop(request.key, None)
        if isinstance(given, Mapping):
            return given
        return await self.park(request, task_runs.form_check(request))

    def approver(self, client: str | None) -> Any:
        """The call's approver: its question parks the task too (:mod:`.task_runs`)."""
        return task_runs.approver(self, client)

    async def park(self, request: InputRequest, check: task_runs.Check) -> Mapping[str, Any]:
        """Park the task on ``request`` until ``tasks/update`` answers it as ``check`` accepts
        (at most the task's ``waits_ms``: then ``InputUnavailable``)."""
        task = self.task
        future: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()
        task.asked[request.key] = request
        task.waiting[request.key] = future
        task.checks[request.key] = check
        task.set_status("input_required")
        try:
            # A question nobody answers does not hold the call (and a place in the store)
            # forever: after the task's keep (its ttlMs), the tool goes on without an answer.
            return await asyncio.wait_for(future, task.waits_ms / 1000)
        except TimeoutError:
            raise InputUnavailable(
                f"Nobody answered {request.key!r} within {task.waits_ms / 1000:g} second(s); "
                "the question is no longer asked. Tell the user what is needed instead."
            ) from None
        finally:
            task.asked.pop(request.key, None)
            task.waiting.pop(request.key, None)
            task.checks.pop(request.key, None)
            if task.status == "input_required" and not task.asked:
                task.set_status("working")

    def ask_again(self, request: InputRequest) -> None:
        """An answer that did not match its form: the tool gets ``AnswerMismatch``."""


class Tasks:
    """The tasks extension on a :class:`ToolServer` (:meth:`serve_on`)."""

    def __init__(self, store: TaskStore | None = None) -> None:
        self.store = TaskStore() if store is None else store  # an empty store is falsy
        self._server: ToolServer | None = None

    def serve_on(self, server: ToolServer) -> ToolServer:
        """Serve task-supporting tools as tasks on ``server`` (advertised under
        ``capabilities.extensions``), and ``tasks/get``, ``tasks/update``, ``tasks/cancel``."""
        self._server = server
        low = server.server
        low.extensions[EXTENSION] = {}
        low.add_request_handler("tasks/get", _TaskParams, self._get)
        low.add_request_handler("tasks/update", _UpdateParams, self._update)
        low.add_request_handler("tasks/cancel", _TaskParams, self._cancel)
        low.middleware.append(self._middleware)
        low.lifespan = task_runs.ending_with(low.lifespan, self.aclose)
        self.store.round_life_s = server._request_state.ttl
        return server

    def close(self) -> None:
        """Cancel every running task (each ends ``cancelled``; one whose call ran, with its
        result). The server's transport does it when it stops (:meth:`aclose`)."""
        self.store.cancel_all()

    async def aclose(self, timeout: float = 5.0) -> None:
        """:meth:`close`, then wait (``timeout`` seconds at most) until each task's call has
        ended: what the HTTP app's shutdown and the end of stdio do."""
        self.close()
        runners = self.store.runners()
        if runners:
            await asyncio.wait(runners, timeout=timeout)

    # ── tools/call ────────────────────────────────────────────────────────────────────────

    async def _middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params
        if ctx.method in _METHODS:
            _check_name_header(ctx)
            if not negotiated(ctx):
                raise _missing_extension(f"{ctx.method} needs", ctx)
            return await call_next(ctx)
        if ctx.method != "tools/call" or not isinstance(params, Mapping) or self._server is None:
            return await call_next(ctx)
        name = params.get("name")
        spec = self._server._served_catalog().specs.get(name) if isinstance(name, str) else None
        support = None if spec is None else spec.task
        if spec is None or support is None:
            return await call_next(ctx)
        if not negotiated(ctx):
            if support.required:
                raise _missing_extension(
                    f"The tool {spec.name!r} runs only as a task, which needs", ctx
                )
            return await call_next(ctx)
        answered = bool(params.get("inputResponses")) or bool(params.get("requestState"))
        if support.asks_first and not answered:
            return await call_next(ctx)  # its questions first, in the call's own rounds
        try:
            call = types.CallToolRequestParams.model_validate(params)
        except ValidationError:
            return await call_next(ctx)  # the SDK answers invalid parameters
        return self._start(ctx, call, spec.asks, support)

    def _start(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        asks: tuple[str, ...],
        support: TaskSupport,
    ) -> dict[str, Any]:
        task = self.store.add(params.name, _owner(ctx), support, exchanges.round_of(params))
        if task.runner is not None:  # the round that made it, sent again: that one task
            return {"resultType": "task", **task.envelope()}
        answers = exchanges.answers_of(params)
        parked = Parked(task, ctx, asks, answers)
        if params.request_state:
            parked.round = exchanges.approval_answered(params)
        task.answerer = parked
        plain = params.model_copy(update={"input_responses": None, "request_state": None})
        task.runner = asyncio.get_running_loop().create_task(
            self._run(task, ctx, plain, parked), name=f"tooldesign task {task.id}"
        )
        return {"resultType": "task", **task.envelope()}

    async def _run(
        self,
        task: Task,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        parked: Parked,
    ) -> None:
        assert self._server is not None
        token = exchanges.IN_TASK.set(parked)
        try:
            answer = await self._server._call_tool(ctx, params)
        except asyncio.CancelledError:
            if parked.result is not None:  # cancelled after the call ran: it ran, once
                self._complete(
                    task, self._server._served_catalog().adapter.result_message(parked.result)
                )
            task.set_status("cancelled")
            return
        except MCPError as exc:
            task.error = _error(exc.error.code, exc.error.message, exc.error.data)
            task.set_status("failed")
            return
        except Exception:
            log.exception("task %s of tool %s failed", task.id, task.tool)
            task.error = _error(types.INTERNAL_ERROR, "Internal error")
            task.set_status("failed")
            return
        finally:
            exchanges.IN_TASK.reset(token)
        if _crashed(parked.result, self._server):
            task.error = _error(
                types.INTERNAL_ERROR, f"The tool {task.tool!r} failed with an internal error."
            )
            task.set_status("failed")
            return
        self._complete(task, answer.model_dump(by_alias=True, exclude_none=True, mode="json"))

    @staticmethod
    def _complete(task: Task, result: dict[str, Any]) -> None:
        meta = result.get("_meta")
        if isinstance(meta, dict):
            meta.pop(_RELATED, None)
            if not meta:
                del result["_meta"]
        result.pop("resultType", None)
        task.result = result
        task.set_status("completed")

    # ── tasks/* ───────────────────────────────────────────────────────────────────────────

    def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> Task:
        task = self.store.get(task_id, _owner(ctx))
        if task is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"No task {task_id!r} here: it never existed, belongs to another caller, or "
                "ended longer ago than it is kept.",
            )
        return task

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: _TaskParams
    ) -> dict[str, Any]:
        return self._task(ctx, params.task_id).detailed()

    async def _update(
        self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams
    ) -> dict[str, Any]:
        task = self._task(ctx, params.task_id)
        for key, response in params.input_responses.items():
            request = task.asked.get(key)
            future = task.waiting.get(key)
            if request is None or future is None or future.done():
                continue  # not asked (or answered already): ignored
            try:
                answer = exchanges.answer_of(request, response)
            except ValidationError as exc:
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"The answer to {key!r} is not a {request.method} result: "
                    f"{exc.errors()[0]['msg']}",
                ) from None
            check = task.checks.get(key)
            problem = None if check is None else check(answer)
            if problem is not None:  # not what was asked: no answer, the question stays
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"The answer to {key!r} does not match its form ({problem}); "
                    "it is still asked.",
                )
            del task.asked[key]
            future.set_result(answer)
        if task.status == "input_required" and not task.asked:
            task.set_status("working")
        return {}

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: _TaskParams
    ) -> dict[str, Any]:
        task = self._task(ctx, params.task_id)
        # A call that ran already is not undone by cancelling its task (which would tell the
        # client it did not run): the task completes with its result, as it was about to.
        if task.status not in _ENDED and not task.ran:
            task.set_status("cancelled")
            if task.runner is not None:
                task.runner.cancel()
        return {}


def negotiated(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared the tasks extension (for its connection, or this request)
    on a 2026-07-28 request: the extension is of that revision, and the official clients (the
    MCP Inspector, ``@modelcontextprotocol/ext-tasks``) read a task only there — a handshake
    client declaring it (the Inspector's CLI does, at a 2025-11-25 ``initialize``) reads every
    ``tools/call`` answer as a result, so it gets one."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_capabilities
    extensions = getattr(capabilities, "extensions", None) if capabilities is not None else None
    if isinstance(extensions, Mapping) and EXTENSION in extensions:
        return True
    declared = (ctx.meta or {}).get(_CLIENT_CAPABILITIES)
    if isinstance(declared, Mapping):
        extensions = declared.get("extensions")
        return isinstance(extensions, Mapping) and EXTENSION in extensions
    return False


def _missing_extension(what: str, ctx: ServerRequestContext[Any, Any]) -> MCPError:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        why = "which this client did not declare"
    else:
        why = f"a 2026-07-28 one, and this connection speaks {ctx.protocol_version}"
    return MCPError(
        types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"{what} the client extension {EXTENSION}, {why}.",
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def _check_name_header(ctx: ServerRequestContext[Any, Any]) -> None:
    request = ctx.request if isinstance(ctx.request, Request) else None
    params = ctx.params
    if request is None or not isinstance(params, Mapping):
        return
    from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value

    sent = request.headers.get(MCP_NAME_HEADER)
    if sent is not None and decode_header_value(sent) != params.get("taskId"):
        raise MCPError(
            types.HEADER_MISMATCH, f"{MCP_NAME_HEADER} header does not match the body's taskId"
        )


def _owner(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Who created a task (an authenticated caller's client id), or ``None``."""
    request = ctx.request if isinstance(ctx.request, Request) else None
    token = access_token_of(request.scope) if request is not None else None
    return None if token is None else f"{token.client_id}:{getattr(token, 'subject', '') or ''}"


def _crashed(result: ToolResult | None, server: ToolServer) -> bool:
    """Whether the call ended with no result to give: the tool crashed (an exception the
    application does not show the model) or its worker was lost."""
    if result is None or result.error is None:
        return False
    hint = result.retry_hint
    if hint is not None and hint.reason is RetryReason.OUTCOME_UNKNOWN:
        return True
    cause = result.error.cause
    if cause is None or isinstance(cause, (ToolFailure, InputUnavailable)):
        return False
    shown: tuple[type[BaseException], ...] = getattr(
        getattr(server.runtime, "_pipeline", None), "expose", ()
    )
    return hint is None and not isinstance(cause, shown)


def _error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return error


def serve_tasks(server: ToolServer, store: TaskStore | None = None) -> Tasks:
    """Serve ``server``'s task-supporting tools as tasks (see the module): ``Tasks(store)``."""
    tasks = Tasks(store)
    tasks.serve_on(server)
    return tasks
