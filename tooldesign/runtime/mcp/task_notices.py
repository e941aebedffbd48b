"""``notifications/tasks``: a task's status pushed to the client that listens for it.

The tasks extension at 2026-07-28 (``io.modelcontextprotocol/tasks``, "Task Status
Notifications") lets a server push each task's state instead of being polled: the client sends
``subscriptions/listen`` with ``notifications.taskIds``; the acknowledgement lists the ids the
server agreed to (here: the tasks that exist and that this caller may see — a task created by
an authenticated caller is that caller's alone, so another caller's id is left out, as an
unknown one is); then each ``notifications/tasks`` carries the task's ``DetailedTask``, what
``tasks/get`` would answer at that moment (``result``, ``error`` or ``inputRequests`` inlined),
stamped with the subscription's id like every frame of the stream.

The stream starts with each task's current state (so nothing that happened before it opened is
missed), then one notification per change (``working`` → ``input_required`` → ``working`` →
``completed`` / ``failed`` / ``cancelled``, a new question while ``input_required``); the same
state is never sent twice. A task running in this process is followed as it changes (kept in
Redis, its record is read too, so that once another server takes it over the stream follows
the record, not this process's copy); one kept in Redis and run by another server is read from its record every ``pollIntervalMs`` (its
record gone, expired or lost with Redis's data, it is followed no more). Once every task it
follows has ended or is gone (and it asked for no other kind of event), the stream ends with
its result. The other kinds a listen request may ask for (list changes, resource updates) are
honoured on the same stream when the server's listen handler is the SDK's. A client that did
not declare the extension is refused (-32021), as the extension requires; ``notifications/
progress`` and ``notifications/message`` never ride this stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp import types
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    ServerEvent,
    event_matches,
    event_to_notification,
)
from pydantic import BaseModel, ValidationError
from tooldesign.runtime.mcp.task_store import ENDED, Task

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from tooldesign.runtime.mcp.task_store import TaskStore

__all__ = ["METHOD", "listen", "task_ids"]

log = logging.getLogger("tooldesign.runtime.mcp")

METHOD = "notifications/tasks"
_TASK_IDS = "taskIds"
_MOST = 100  # task ids one stream follows
_BACKLOG = 1024


class _Notice(BaseModel):
    method: str
    params: dict[str, Any]


def task_ids(params: Any) -> list[str] | None:
    """The task ids a ``subscriptions/listen`` request asks to follow (``None``: none)."""
    notifications = params.get("notifications") if isinstance(params, Mapping) else None
    wanted = notifications.get(_TASK_IDS) if isinstance(notifications, Mapping) else None
    if not isinstance(wanted, list):
        return None
    return list(dict.fromkeys(i for i in wanted if isinstance(i, str) and i))[:_MOST]


async def listen(
    ctx: ServerRequestContext[Any, Any],
    store: TaskStore,
    owner: str | None,
    wanted: list[str],
    bus: Any,
    current: Callable[[str], Awaitable[Task | None]],
) -> types.SubscriptionsListenResult:
    """Serve one listen stream that follows the tasks ``wanted`` (see the module); ``bus``: the
    server's ``SubscriptionBus`` for the other kinds of event, if there is one; ``current``: a
    task as ``tasks/get`` finds it (a stranded one taken over, as a poll would)."""
    subscription_id = ctx.request_id
    if subscription_id is None:
        raise MCPError(types.INVALID_REQUEST, "subscriptions/listen requires a request id")
    try:
        params = types.SubscriptionsListenRequestParams.model_validate(ctx.params)
    except ValidationError as exc:
        problem = exc.errors()[0]["msg"]
        raise MCPError(types.INVALID_PARAMS, f"Invalid subscriptions/listen parameters: {problem}")
    meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: subscription_id}
    followed: dict[str, Task] = {}
    for task_id in wanted:
        task = await store.find(task_id, owner)
        if task is not None:  # unknown, or another caller's: not honoured
            followed[task_id] = task
    honored = _standard(params.notifications) if bus is not None else types.SubscriptionFilter()
    uris = frozenset(honored.resource_subscriptions or ())
    queue: asyncio.Queue[dict[str, Any] | ServerEvent] = asyncio.Queue(_BACKLOG)

    def put(item: dict[str, Any] | ServerEvent) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a client not reading: it polls instead
            queue.put_nowait(item)

    def changed(task: Task) -> None:
        put(task.detailed())

    def heard(event: ServerEvent) -> None:
        if event_matches(honored, uris, event):
            put(event)

    unsubscribe = bus.subscribe(heard) if bus is not None and _any(honored) else None
    pollers: list[asyncio.Task[None]] = []
    for task in followed.values():
        put(task.detailed())
        if task.runner is not None or not store.hands_over or task.status in ENDED:
            task.watchers.append(changed)
        if store.hands_over and task.status not in ENDED:
            # Run elsewhere: read from its record. Run here: followed as it changes, and read
            # too, so that once another server takes it over (this one's lease lapsed) the
            # stream follows its record, not this process's copy.
            poll = _poll(task, current, put, lambda t: _unwatch(t, changed))
            pollers.append(asyncio.get_running_loop().create_task(poll))
    acknowledged = honored.model_dump(by_alias=True, exclude_none=True)
    if followed:
        acknowledged[_TASK_IDS] = list(followed)
    try:
        await ctx.session.send_notification(
            types.SubscriptionsAcknowledgedNotification(
                params=types.SubscriptionsAcknowledgedNotificationParams(
                    notifications=types.SubscriptionFilter.model_validate(acknowledged),
                    _meta=meta,
                )
            ),
            related_request_id=subscription_id,
        )
        sent: dict[str, dict[str, Any]] = {}
        open_ = set(followed)
        while open_ or unsubscribe is not None:
            item = await queue.get()
            if not isinstance(item, dict):
                notice: Any = event_to_notification(item, meta)
            else:
                task_id = item["taskId"]
                if sent.get(task_id) == item or task_id not in open_:
                    continue
                if _GONE in item:  # forgotten: nothing more to tell
                    open_.discard(task_id)
                    continue
                sent[task_id] = item
                if item["status"] in ENDED:
                    open_.discard(task_id)
                notice = _Notice(method=METHOD, params={**item, "_meta": meta})
            await ctx.session.send_notification(
                cast("types.ServerNotification", notice), related_request_id=subscription_id
            )
    finally:
        if unsubscribe is not None:
            unsubscribe()
        for poller in pollers:
            poller.cancel()
        for task in followed.values():
            _unwatch(task, changed)
    return types.SubscriptionsListenResult(_meta=meta)


def _unwatch(task: Task, changed: Callable[[Task], None]) -> None:
    with contextlib.suppress(ValueError):
        task.watchers.remove(changed)


async def _poll(
    task: Task,
    current: Callable[[str], Awaitable[Task | None]],
    put: Callable[[dict[str, Any]], None],
    left: Callable[[Task], None],
) -> None:
    """Follow a task kept where servers share it: its record, read every ``pollIntervalMs``
    (a task whose server is gone is taken over, as ``tasks/get`` would, so a client that only
    listens still sees it end). While it runs here, reading it finds this process's own copy
    (nothing new); once another server has it, ``left(task)``: this copy is followed no more."""
    interval = max(task.support.poll_ms, 100) / 1000
    mine = task if task.runner is not None else None  # this process's copy, watched
    while True:
        await asyncio.sleep(interval)
        try:
            seen = await current(task.id)
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: try again next time
            log.warning("task %s: its record cannot be read now (%s)", task.id, exc)
            continue
        if mine is not None and seen is not mine:  # another server has it: its record now
            left(mine)
            mine = None
        if seen is None:  # forgotten (expired, or lost with Redis's data): nothing more
            put(_gone(task.id))  # will happen to it, so the stream stops waiting for its end
            return
        put(seen.detailed())
        if seen.status in ENDED:
            return


_GONE = "\0gone"


def _gone(task_id: str) -> dict[str, Any]:
    """The mark a poller puts for a task no longer kept (never sent to the client)."""
    return {"taskId": task_id, _GONE: True}


def _standard(requested: types.SubscriptionFilter) -> types.SubscriptionFilter:
    """The other kinds of event asked for, honoured as the SDK's listen handler does."""
    return types.SubscriptionFilter(
        tools_list_changed=True if requested.tools_list_changed else None,
        prompts_list_changed=True if requested.prompts_list_changed else None,
        resources_list_changed=True if requested.resources_list_changed else None,
        resource_subscriptions=list(requested.resource_subscriptions)
        if requested.resource_subscriptions
        else None,
    )


def _any(honored: types.SubscriptionFilter) -> bool:
    return bool(
        honored.tools_list_changed
        or honored.prompts_list_changed
        or honored.resources_list_changed
        or honored.resource_subscriptions
    )
