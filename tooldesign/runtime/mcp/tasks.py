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
  once; keys that were not asked are ignored);
- ``tasks/cancel``: cancels the call (the tool is cancelled; the task ends ``cancelled``); on
  an ended task it changes nothing.

Both acknowledge with an empty result. A client that did not negotiate the extension is
refused these methods (-32021) and gets a task-supporting tool's result synchronously, or, for
``LongRunning(required=True)``, -32021 naming the extension. With ``asks_first``, a call that
brings no answers yet runs in the call (its questions answered ``input_required``, 2026-07-28
round trips); the round that brings the answers becomes the task.

Tasks live in this process (:class:`TaskStore`: at most ``limit`` at once, each kept its
design's ``keep_ms`` after it ends, then forgotten), or in Redis
(:class:`~tooldesign.runtime.mcp.redis_tasks.RedisTaskStore`: shared by the servers behind a load
balancer, and kept across their restarts); ids are unguessable, and a task created by
an authenticated caller is visible to that caller only. ``Mcp-Name`` on ``tasks/*`` requests,
when sent, must be the ``taskId`` (-32020 otherwise).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import Field, ValidationError
from starlette.requests import Request
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.control.exchanges import InputRequest
from tooldesign.runtime.mcp import exchanges, task_calls
from tooldesign.runtime.mcp.access import access_token_of
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.transports.base import DETACHED

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
    runner: asyncio.Task[None] | None = None
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
    stranded: bool = False
    """A shared store's task whose server is gone (its lease expired) before it ended."""

    def __post_init__(self) -> None:
        self.updated_at = self.updated_at or self.created_at

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
        self.changed()

    def changed(self) -> None:
        self.revision += 1
        if self.on_change is not None:
            self.on_change(self)

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

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"TaskStore's limit is a positive number of tasks, not {limit!r}")
        self.limit = limit
        self._tasks: dict[str, Task] = {}

    def __len__(self) -> int:
        self._expire()
        return len(self._tasks)

    def add(self, tool: str, owner: str | None, support: TaskSupport) -> Task:
        self._expire()
        if len(self._tasks) >= self.limit:
            ended = [t for t in self._tasks.values() if t.ended is not None]
            if not ended:
                raise MCPError(
                    types.INTERNAL_ERROR,
                    f"This server runs {self.limit} tasks already; try again when one has ended.",
                )
            oldest = min(ended, key=lambda t: t.ended or 0.0)
            del self._tasks[oldest.id]
        task = Task(secrets.token_urlsafe(18), tool, owner, support)
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
        self, tool: str, owner: str | None, support: TaskSupport, call: dict[str, Any]
    ) -> Task:
        """A new task of ``owner`` running ``call``."""
        task = self.add(tool, owner, support)
        task.call = self.call_of(task.id, call)
        return task

    async def find(self, task_id: str, owner: str | None) -> Task | None:
        """The task, if it exists and ``owner`` may see it (its runner, if it runs here)."""
        return self.get(task_id, owner)

    def adopted(self, task: Task) -> None:
        """``task`` runs in this process now."""

    async def forward(self, task: Task, responses: Mapping[str, Any]) -> None:
        """Answers for a task another server runs (never, in this process's store)."""

    async def cancel_elsewhere(self, task: Task) -> bool:
        """Cancel a task another server runs (never, here): whether it was running."""
        return False

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
            del self._tasks[task_id]

    def cancel_all(self) -> None:
        """Cancel every running task (the server is closing)."""
        for task in self._tasks.values():
            if task.runner is not None and not task.runner.done():
                task.set_status("cancelled")
                task.runner.cancel()


class Parked:
    """The answerer of a call running as a task: a question with no answer parks the task
    (``input_required``) until ``tasks/update`` answers it."""

    __slots__ = ("answers", "asks", "call_id", "ctx", "result", "task")

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
        self.call_id: str | None = (task.call or {}).get("callId")
        """The id the call runs under (the server's ``_call_tool`` gives it to the call)."""
        self.result: ToolResult | None = None
        """The call's result, once it ran (set by :func:`exchanges.execute`)."""

    def can_answer(self, method: str) -> bool:
        return exchanges.declared(method, self.asks) and exchanges.can_answer(self.ctx, method)

    async def __call__(self, request: InputRequest) -> Mapping[str, Any]:
        exchanges.check_asked(request, self.asks, self.ctx)
        given = self.answers.pop(request.key, None)
        if isinstance(given, Mapping):
            return given
        task = self.task
        future: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()
        task.asked[request.key] = request
        task.waiting[request.key] = future
        task.set_status("input_required")
        try:
            return await future
        finally:
            task.asked.pop(request.key, None)
            task.waiting.pop(request.key, None)

    def ask_again(self, request: InputRequest) -> None:
        """An answer that did not match its form: the tool gets ``AnswerMismatch``."""


class Tasks:
    """The tasks extension on a :class:`ToolServer` (:meth:`serve_on`)."""

    def __init__(self, store: TaskStore | None = None) -> None:
        self.store = store if store is not None else TaskStore()
        self._server: ToolServer | None = None

    def serve_on(self, server: ToolServer) -> ToolServer:
        """Serve task-supporting tools as tasks on ``server`` (advertised under
        ``capabilities.extensions``), and ``tasks/get``, ``tasks/update``, ``tasks/cancel``."""
        self._server = server
        self.store.cancel_call = self._cancel_call
        low = server.server
        low.extensions[EXTENSION] = {}
        low.add_request_handler("tasks/get", _TaskParams, self._get)
        low.add_request_handler("tasks/update", _UpdateParams, self._update)
        low.add_request_handler("tasks/cancel", _TaskParams, self._cancel)
        low.middleware.append(self._middleware)
        return server

    def close(self) -> None:
        """Call it when the server stops: with a :class:`TaskStore`, cancels every running task
        (each ends ``cancelled``); with a shared store, hands them over to the other servers."""
        self.store.cancel_all()

    # ── tools/call ────────────────────────────────────────────────────────────────────────

    async def _middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params
        if ctx.method in _METHODS:
            _check_name_header(ctx)
            if not negotiated(ctx):
                raise _missing_extension(f"{ctx.method} needs")
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
                raise _missing_extension(f"The tool {spec.name!r} runs only as a task, which needs")
            return await call_next(ctx)
        answered = bool(params.get("inputResponses")) or bool(params.get("requestState"))
        if support.asks_first and not answered:
            return await call_next(ctx)  # its questions first, in the call's own rounds
        try:
            call = types.CallToolRequestParams.model_validate(params)
        except ValidationError:
            return await call_next(ctx)  # the SDK answers invalid parameters
        return await self._start(ctx, call, spec.asks, support)

    async def _start(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        asks: tuple[str, ...],
        support: TaskSupport,
    ) -> dict[str, Any]:
        arguments = dict(params.arguments or {})
        call = {"name": params.name, "arguments": arguments}
        task = await self.store.open(params.name, _owner(ctx), support, call)
        answers = exchanges.answers_of(params)
        parked = Parked(task, ctx, asks, answers)
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
        if self.store.hands_over:  # its call outlives this server: cancelled only when asked
            DETACHED.set(True)
        try:
            answer = await self._server._call_tool(ctx, params)
        except asyncio.CancelledError:
            if not self.store.hands_over:  # else: this server stops, another takes it over
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
        if task_calls.crashed(parked.result, self._server):
            task.error = _error(
                types.INTERNAL_ERROR, f"The tool {task.tool!r} failed with an internal error."
            )
            task.set_status("failed")
            return
        result = answer.model_dump(by_alias=True, exclude_none=True, mode="json")
        meta = result.get("_meta")
        if isinstance(meta, dict):
            meta.pop(_RELATED, None)
            if not meta:
                del result["_meta"]
        result.pop("resultType", None)
        task.result = result
        task.set_status("completed")

    # ── tasks/* ───────────────────────────────────────────────────────────────────────────

    async def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> Task:
        task = await self.store.find(task_id, _owner(ctx))
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
        task = await self._task(ctx, params.task_id)
        if task.stranded:
            task = await self._take_over(ctx, task)
        return task.detailed()

    async def _take_over(self, ctx: ServerRequestContext[Any, Any], task: Task) -> Task:
        """A task whose server is gone: its remote call is found again (same call id: the queue
        answers it once, or this server joins it), or, for a tool that ran in that server's
        process, the task fails (what it did is unknown)."""
        if not await self.store.claim(task):  # another server took it first: its record
            return await self._task(ctx, task.id)
        remote, _spec = task_calls.remote_of(self._server, task.tool)
        call = task.call or {}
        if remote is None or not call.get("callId") or self._server is None:
            task.error = _error(
                types.INTERNAL_ERROR,
                f"The server running this task stopped before it ended; the tool {task.tool!r} "
                "ran in that server's process, so it cannot go on, and whether it took effect "
                "is unknown.",
            )
            task.set_status("failed")
            return task
        params = types.CallToolRequestParams(name=call["name"], arguments=call.get("arguments"))
        spec = self._server._served_catalog().specs.get(task.tool)
        parked = Parked(task, ctx, spec.asks if spec is not None else (), {})
        log.info("task %s of tool %s: taken over, its call %s", task.id, task.tool, call["callId"])
        task.runner = asyncio.get_running_loop().create_task(
            self._run(task, ctx, params, parked), name=f"tooldesign task {task.id}"
        )
        self.store.adopted(task)
        return task

    async def _update(
        self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams
    ) -> dict[str, Any]:
        task = await self._task(ctx, params.task_id)
        if task.runner is None and task.status not in _ENDED:  # another server runs it
            await self.store.forward(task, params.input_responses)
            return {}
        answer_task(task, params.input_responses)
        return {}

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: _TaskParams
    ) -> dict[str, Any]:
        task = await self._task(ctx, params.task_id)
        if task.status in _ENDED:
            return {}
        if task.runner is None:  # another server runs it, or ran it and is gone
            if await self.store.cancel_elsewhere(task) and task.stranded:
                await task_calls.cancel_remote(self._server, task.id, task.tool, task.call or {})
            return {}
        task.set_status("cancelled")
        task.runner.cancel()
        if self.store.hands_over:  # its call is not cancelled with its runner
            await self._cancel_call(task)
        return {}

    async def _cancel_call(self, task: Task) -> None:
        await task_calls.cancel_remote(self._server, task.id, task.tool, task.call or {})


def answer_task(task: Task, responses: Mapping[str, Any]) -> None:
    """Answers (``inputResponses``) to what a task running here asked; keys not asked (or
    answered already) are ignored; an answer that is not a result of its request is refused
    (``MCPError``), and its question stays asked."""
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
        del task.asked[key]
        future.set_result(answer)
    if task.status == "input_required" and not task.asked:
        task.set_status("working")


def negotiated(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared the tasks extension (for its connection, or this request)."""
    capabilities = ctx.session.client_capabilities
    extensions = getattr(capabilities, "extensions", None) if capabilities is not None else None
    if isinstance(extensions, Mapping) and EXTENSION in extensions:
        return True
    declared = (ctx.meta or {}).get(_CLIENT_CAPABILITIES)
    if isinstance(declared, Mapping):
        extensions = declared.get("extensions")
        return isinstance(extensions, Mapping) and EXTENSION in extensions
    return False


def _missing_extension(what: str) -> MCPError:
    return MCPError(
        types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"{what} the client extension {EXTENSION}, which this client did not declare.",
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
