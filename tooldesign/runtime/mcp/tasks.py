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
  completes with its result), it changes nothing. Cooperative, as the extension says: a sync
  tool whose worker thread started runs to its end, and its task completes (it stays
  ``working`` meanwhile; ``task_store.stop``).

Both acknowledge with an empty result. A ``subscriptions/listen`` request asking for
``taskIds`` is told each state of those tasks as ``notifications/tasks``
(:mod:`.task_notices`). A client that did not negotiate the extension is
refused these methods (-32021) and gets a task-supporting tool's result synchronously, or, for
``LongRunning(required=True)``, -32021 naming the extension. With ``asks_first``, a call that
brings no answers yet runs in the call (its questions answered ``input_required``, 2026-07-28
round trips); the round that brings the answers becomes the task.

Tasks live in this process (:class:`TaskStore`: at most ``limit`` at once, each kept its
design's ``keep_ms`` after it ends, then forgotten; a question waits for its answer at most
``answer_within_ms``, by default the task's ``keep_ms``, then the tool goes on without it), or
in Redis (:class:`~tooldesign.runtime.mcp.redis_tasks.RedisTaskStore`: shared by the servers
behind a load balancer, and kept across their restarts); ids are unguessable, and a task created by
an authenticated caller is visible to that caller only. ``Mcp-Name`` on ``tasks/*`` requests,
when sent, must be the ``taskId`` (-32020 otherwise).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError
from starlette.requests import Request
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.control.exchanges import InputRequest, InputUnavailable
from tooldesign.runtime.mcp import exchanges, task_calls, task_runs
from tooldesign.runtime.mcp.access import access_token_of
from tooldesign.runtime.mcp.task_notices import listen, task_ids
from tooldesign.runtime.mcp.task_store import (
    DEFAULT_LIMIT,
    ENDED,
    Task,
    TaskStore,
    answer_task,
    stop,
)
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.transports.base import DETACHED, RESENT
from tooldesign.runtime.workers import RUN_TO_END, RunToEnd

if TYPE_CHECKING:
    from tooldesign.runtime.mcp.server import ToolServer

__all__ = ["DEFAULT_LIMIT", "Task", "TaskStore", "Tasks", "answer_task", "serve_tasks"]

log = logging.getLogger("tooldesign.runtime.mcp")

EXTENSION = "io.modelcontextprotocol/tasks"
"""The tasks extension's identifier (``capabilities.extensions``)."""
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_RELATED = "io.modelcontextprotocol/related-task"
_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


class _TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId", min_length=1)


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


class Parked:
    """The answerer of a call running as a task: a question with no answer parks the task
    (``input_required``) until ``tasks/update`` answers it."""

    __slots__ = ("answers", "asks", "call_id", "ctx", "end", "result", "round", "task")

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
        self.call_id: str | None = (task.call or {}).get("callId")
        """The id the call runs under (the server's ``_call_tool`` gives it to the call)."""
        self.result: ToolResult | None = None
        """The call's result, once it ran (set by :func:`exchanges.execute`)."""
        self.end = RunToEnd()
        """Cancelling the task waits for a sync tool's thread that started (``stop``)."""

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
        self.store.cancel_call = self._cancel_call
        self.store.stop_here = self._stop
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
        """Call it when the server stops (its transport does: :meth:`aclose`): with a
        :class:`TaskStore`, cancels every running task (each ends ``cancelled``; one whose call
        ran, with its result); with a shared store, hands them over to the other servers."""
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
        if ctx.method == "subscriptions/listen" and (wanted := task_ids(params)) is not None:
            if not negotiated(ctx):
                raise _missing_extension("Task status notifications need", ctx)
            current = functools.partial(self._current, ctx)
            return await listen(ctx, self.store, _owner(ctx), wanted, self._bus(), current)
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
        return await self._start(ctx, call, spec.asks, support)

    def _bus(self) -> Any:
        """The bus of the server's listen handler (the SDK's), for the other kinds of event a
        stream following tasks asks for (``None``: not known)."""
        low = self._server.server if self._server is not None else None
        entry = getattr(low, "_request_handlers", {}).get("subscriptions/listen")
        return getattr(getattr(entry, "handler", None), "_bus", None)

    async def _start(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        asks: tuple[str, ...],
        support: TaskSupport,
    ) -> dict[str, Any]:
        arguments = dict(params.arguments or {})
        call = {"name": params.name, "arguments": arguments}
        owner, round_id = _owner(ctx), exchanges.round_of(params)
        task, made = await self.store.open(params.name, owner, support, call, round_id)
        if not made:  # the round that made it, sent again: that one task
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
        resent: bool = False,
    ) -> None:
        assert self._server is not None
        token = exchanges.IN_TASK.set(parked)
        if self.store.hands_over:  # its call outlives this server: cancelled only when asked
            DETACHED.set(True)
        if resent:  # sent before, by a server gone: run only if the queue holds its record
            RESENT.set(True)
        RUN_TO_END.set(parked.end)  # a cancel does not hide what a started thread does
        try:
            answer = await self._server._call_tool(ctx, params)
        except asyncio.CancelledError:
            if parked.result is not None:  # cancelled after the call ran: it ran, once
                self._complete(
                    task, self._server._served_catalog().adapter.result_message(parked.result)
                )
            elif parked.end.asked or not self.store.hands_over:
                task.set_status("cancelled")  # else: this server stops, another takes it over
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
            task.error = _error(types.INTERNAL_ERROR, task_calls.failure(parked.result, task.tool))
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

    async def _current(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> Task | None:
        """The task as ``tasks/get`` finds it: one whose server is gone, taken over."""
        task = await self.store.find(task_id, _owner(ctx))
        if task is not None and task.stranded:
            task = await self._take_over(ctx, task)
        return task

    async def _take_over(self, ctx: ServerRequestContext[Any, Any], task: Task) -> Task:
        """A task whose server is gone: its remote call is found again (same call id: the queue
        answers it once, or this server joins it); for a tool that ran in that server's process,
        run again here when that is harmless (read-only or idempotent, and served here), else
        the task fails (what it did is unknown)."""
        if not await self.store.claim(task):  # another server took it first: its record
            return await self._task(ctx, task.id)
        remote, _spec = task_calls.remote_of(self._server, task.tool)
        call = task.call or {}
        again = remote is not None or task_calls.repeatable_here(self._server, task.tool)
        if not again or not call.get("callId") or self._server is None:
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
            self._run(task, ctx, params, parked, resent=True), name=f"tooldesign task {task.id}"
        )
        self.store.adopted(task)
        return task

    async def _update(
        self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams
    ) -> dict[str, Any]:
        task = await self._task(ctx, params.task_id)
        if task.runner is None and task.status not in ENDED:  # another server runs it
            await self.store.forward(task, params.input_responses)
            return {}
        answer_task(task, params.input_responses)
        return {}

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: _TaskParams
    ) -> dict[str, Any]:
        task = await self._task(ctx, params.task_id)
        # A call that ran already is not undone by cancelling its task (which would tell the
        # client it did not run): the task completes with its result, as it was about to.
        if task.status in ENDED or task.ran:
            return {}
        if task.runner is None:  # another server runs it, or ran it and is gone
            if await self.store.cancel_elsewhere(task) == 1:  # gone: nobody else cancels it
                await task_calls.cancel_remote(self._server, task.id, task.tool, task.call or {})
            return {}
        await self._stop(task)
        return {}

    async def _stop(self, task: Task) -> None:
        """Cancel the call of a task running here: it ends ``cancelled``, or, when its call
        ran meanwhile (a sync tool's thread cannot be stopped), ``completed`` (:func:`stop`)."""
        stop(task)
        if self.store.hands_over:  # its call is not cancelled with its runner
            await self._cancel_call(task)

    async def _cancel_call(self, task: Task) -> None:
        await task_calls.cancel_remote(self._server, task.id, task.tool, task.call or {})


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
