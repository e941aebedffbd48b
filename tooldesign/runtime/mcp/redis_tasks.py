"""MCP tasks kept in Redis (``RedisTaskStore``): shared by the servers behind a load balancer,
and kept across their restarts. Needs ``tooldesign[redis]``.

``Tasks(RedisTaskStore(url))`` keeps each task's record in Redis: status, result or error, the
questions it waits on, its owner, its timestamps, and the call it runs (tool, arguments and its
call id, ``mcp-task-<task id>``). Any server sharing the store answers ``tasks/get``,
``tasks/update`` and ``tasks/cancel`` for any task:

- the server that runs a task writes each change of it; the others read the record;
- ``tasks/update`` sent to another server is passed on to the one running the task (a list per
  task, read on its next heartbeat); ``tasks/cancel`` asks the server running it (a field of
  the record), which cancels the call on its next heartbeat and ends the task as the call ends
  (a task no server runs any more is marked cancelled at once);
- each server holds a lease its heartbeat renews (``lease`` seconds); a task whose server's
  lease expired before it ended is *stranded*: the next server asked about it takes it over
  (one only: a script hands it over). A call of a remote toolset (``remote_registration``,
  run by Redis workers) is found again under its call id: the queue answers it from its
  record, or the new server joins it while it runs; it never runs twice (a queue that no
  longer holds its record does not run it again: the task fails, its outcome unknown, unless its
  tool may run twice, ``transports.base.RESENT``). A call that ran in
  the gone server's own process is run again by the server taking it over when its tool may
  run twice (and is served there); any other cannot go on: the task fails, saying so. A server whose event
  loop ends cancels nothing: a task's call is cancelled on the workers by ``tasks/cancel`` only
  (``transports.base.DETACHED``).

A record is kept ``keep_ms`` (the tool's ``LongRunning``) after its task ends, ``stranded_ttl``
seconds after the last sign of a server running it otherwise; at most ``limit`` tasks at once
(an ended one makes room first), and at most ``per_caller`` running for one authenticated
caller over every server (counted by the create script, in a sorted set per caller whose
entries leave when a task ends or its record would expire). Every key shares one prefix and the hash tag
``{mcp-tasks}``: on a Redis Cluster, all of them are on one shard.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError
from redis.exceptions import NoScriptError
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.mcp.redis_task_scripts import SCRIPTS
from tooldesign.runtime.mcp.task_store import DEFAULT_LIMIT, ENDED, Task, TaskStore, answer_task
from tooldesign.runtime.transports.redis_client import (
    DEFAULT_URL,
    ERRORS,
    Backoff,
    connect,
    process_id,
    transient,
)

__all__ = ["RedisTaskStore"]

log = logging.getLogger("tooldesign.runtime.mcp")


class RedisTaskStore(TaskStore):
    """MCP tasks kept in Redis at ``url`` (see the module): ``Tasks(RedisTaskStore(url))``.

    ``lease``: seconds after a server's last heartbeat at which its running tasks are taken
    over by another; ``stranded_ttl``: seconds a running task's record is kept after the last
    heartbeat of its server. ``await aclose()`` (or ``Tasks.close()``) hands this server's
    tasks over to the others at once.
    """

    hands_over = True

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        prefix: str = "tooldesign",
        limit: int = DEFAULT_LIMIT,
        per_caller: int | None = None,
        lease: float = 3.0,
        stranded_ttl: float = 3600.0,
        connections: int = 8,
    ) -> None:
        super().__init__(limit, per_caller=per_caller)
        if lease <= 0 or stranded_ttl <= lease:
            raise ValueError("a lease is positive seconds, and stranded_ttl longer than it")
        self.url = url
        self.base = f"{prefix}:{{mcp-tasks}}"
        self.lease_ms = int(lease * 1000)
        self.stranded_ms = int(stranded_ttl * 1000)
        self.connections = connections
        self.server_id = f"{process_id()}-{secrets.token_hex(3)}"
        self._client: Any = None
        self._shas: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loops: list[asyncio.Task[None]] = []
        self._local: dict[str, Task] = {}
        self._runners: dict[str, str] = {}
        self._dirty: dict[str, Task] = {}
        self._written: dict[str, int] = {}
        """The revision of each task running here last written."""
        self._stopped: set[str] = set()
        """Tasks running here whose cancel another server passed on (applied once)."""
        self._wake: asyncio.Event | None = None
        self._closed = False

    def _key(self, kind: str, task_id: str = "") -> str:
        return f"{self.base}:{kind}:{task_id}" if task_id else f"{self.base}:{kind}"

    def _caller(self, owner: str | None) -> str:
        """The sorted set of an authenticated caller's running tasks (scored by when each
        stops counting: its record's expiry), or ``""`` for a task nobody owns."""
        if owner is None:
            return ""
        return self._key("caller", hashlib.sha256(owner.encode()).hexdigest()[:32])

    # ── connection and loops ─────────────────────────────────────────────────────────────

    async def _ready(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._loop is loop:
            return self._client
        if self._closed:
            raise MCPError(types.INTERNAL_ERROR, "This server's task store is closed.")
        self._client = connect(self.url, connections=self.connections)
        self._loop = loop
        self._wake = asyncio.Event()
        await self._heartbeat()
        self._loops = [
            loop.create_task(self._supervised(self._beating), name="tooldesign tasks heartbeat"),
            loop.create_task(self._supervised(self._writing), name="tooldesign tasks writer"),
        ]
        return self._client

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        client = self._client
        sha = self._shas.get(name)
        if sha is None:
            sha = self._shas[name] = await client.script_load(SCRIPTS[name])
        try:
            return await client.evalsha(sha, len(keys), *keys, *args)
        except ERRORS as exc:
            if not isinstance(exc, NoScriptError):  # a server that lost its scripts: again
                raise
        self._shas[name] = await client.script_load(SCRIPTS[name])
        return await client.evalsha(self._shas[name], len(keys), *keys, *args)

    def _stopping(self) -> bool:
        """Closed, or this loop was cancelled (a cancellation that lands inside redis-py's read
        can be swallowed there: the loop must end all the same)."""
        task = asyncio.current_task()
        return self._closed or (task is not None and task.cancelling() > 0)

    async def _supervised(self, body: Any) -> None:
        backoff = Backoff()
        while not self._stopping():
            try:
                await body()
            except asyncio.CancelledError:
                raise
            except ERRORS as exc:
                if not transient(exc):
                    log.exception("the task store's loop failed; restarting it")
                else:
                    log.warning("the task store cannot reach Redis at %s (%s)", self.url, exc)
                await backoff.sleep()
            except Exception:
                log.exception("the task store's loop failed; restarting it")
                await backoff.sleep()
            else:
                backoff.reset()

    async def _heartbeat(self) -> None:
        await self._run("heartbeat", [self._key("servers")], [self.server_id, self.lease_ms])

    async def _beating(self) -> None:
        """Renew the lease; for each task running here, apply a cancel or answers another server
        took, keep its record (written again if Redis lost it), or let it go (taken over)."""
        while not self._stopping():
            await self._heartbeat()
            for task in list(self._local.values()):
                if task.status in ENDED:
                    if task.id not in self._dirty:
                        del self._local[task.id]
                        self._written.pop(task.id, None)
                        self._stopped.discard(task.id)
                    continue
                await self._look_after(task)
            await asyncio.sleep(self.lease_ms / 3000)

    async def _look_after(self, task: Task) -> None:
        keys = [self._key("task", task.id), self._key("running"), self._caller(task.owner)]
        keys.append(self._key("answers", task.id))
        # Its record, its place among the running and its caller's share renewed until
        # stranded_ttl after this, while it runs here (an ended record keeps its keep_ms).
        status, runner, cancel, given = await self._run(
            "look", keys, [self.server_id, self.stranded_ms, task.id]
        )
        if status is None:  # Redis lost it: written again
            self._changed(task)
        elif runner != self.server_id:
            log.warning("task %s was taken over by server %s", task.id, runner)
            self._local.pop(task.id, None)
        elif status == "cancelled":  # cancelled while it seemed stranded: final
            task.set_status("cancelled")
            if task.runner is not None:
                task.runner.cancel()
            if self.cancel_call is not None:
                await self.cancel_call(task)
        elif cancel and task.id not in self._stopped:  # tasks/cancel, sent to another server
            self._stopped.add(task.id)
            if self.stop_here is not None:
                await self.stop_here(task)
        for text in given or ():
            try:
                answer_task(task, json.loads(text))
            except (MCPError, ValueError, AttributeError) as exc:
                log.warning("task %s: an answer passed on was refused: %s", task.id, exc)

    async def _writing(self) -> None:
        assert self._wake is not None
        while not self._stopping():
            if not self._dirty:
                await self._wake.wait()
            self._wake.clear()
            while self._dirty and not self._stopping():
                task_id, task = next(iter(self._dirty.items()))
                await self._put(task)
                if self._dirty.get(task_id) is task and task.revision == self._written.get(task_id):
                    del self._dirty[task_id]

    async def _put(self, task: Task) -> None:
        revision = task.revision
        ended = task.status in ENDED
        ttl = task.support.keep_ms if ended else self.stranded_ms
        done = await self._run(
            "put",
            [
                self._key("task", task.id),
                self._key("running"),
                self._key("ended"),
                self._caller(task.owner),
            ],
            [_data(task), task.status, task.updated_at, revision, self.server_id, ttl, task.id],
        )
        if int(done) == -1:
            log.warning("task %s was taken over by another server; not writing it", task.id)
            self._local.pop(task.id, None)
        self._written[task.id] = revision

    def _changed(self, task: Task) -> None:
        if self._closed or self._wake is None:
            return
        self._dirty[task.id] = task
        self._wake.set()

    # ── the store's interface ────────────────────────────────────────────────────────────

    async def open(
        self,
        tool: str,
        owner: str | None,
        support: TaskSupport,
        call: dict[str, Any],
        round_id: str | None = None,
    ) -> tuple[Task, bool]:
        task = Task(secrets.token_urlsafe(18), tool, owner, support, round=round_id)
        task.call = self.call_of(task.id, call)
        task.waits_ms = self.answer_within_ms or support.keep_ms
        # A round (asks_first) makes one task, on whichever server it is sent to, as long as
        # its sealed state lasts: sent again, it is that task, or refused once it is forgotten.
        round_key = "" if round_id is None else self._key("round", _digest(owner, round_id))
        try:
            await self._ready()
            made = await self._run(
                "create",
                [
                    self._key("running"),
                    self._key("ended"),
                    self._key("task", task.id),
                    round_key,
                    self._caller(owner),
                ],
                [
                    self.limit,
                    _data(task),
                    task.status,
                    task.updated_at,
                    self.server_id,
                    self.stranded_ms,
                    task.id,
                    f"{self.base}:task:",
                    int(self.round_life_s * 1000),
                    self.per_caller,
                ],
            )
            if made == -1:
                made_id = await self._client.get(round_key)
        except ERRORS as exc:
            raise _unreachable(self.url, exc) from None
        if made == -1:
            found = await self.find(str(made_id or ""), owner)
            if found is None:
                raise MCPError(
                    types.INVALID_PARAMS,
                    "This round made a task already, which has ended and is no longer kept: it "
                    "does not run again. Call the tool again without its requestState.",
                )
            return found, False
        if made == -2:
            raise MCPError(
                types.INTERNAL_ERROR,
                f"You run {self.per_caller} tasks already (on the servers sharing this task "
                "store); try again when one has ended.",
            )
        if not made:
            raise MCPError(
                types.INTERNAL_ERROR,
                f"The task store keeps {self.limit} tasks already; try again when one has ended.",
            )
        task.on_change = self._changed
        self._local[task.id] = task
        return task, True

    async def find(self, task_id: str, owner: str | None) -> Task | None:
        local = self._local.get(task_id)
        if local is not None:
            return local if local.owner is None or local.owner == owner else None
        try:
            await self._ready()
            flat, alive = await self._run(
                "load", [self._key("task", task_id), self._key("servers")], []
            )
        except ERRORS as exc:
            raise _unreachable(self.url, exc) from None
        if not flat:
            return None
        fields = dict(zip(flat[::2], flat[1::2], strict=True))
        task = _task(task_id, fields)
        if task is None or (task.owner is not None and task.owner != owner):
            return None
        self._runners[task_id] = fields.get("runner", "")
        task.stranded = task.status not in ENDED and not int(alive)
        task.on_change = self._changed
        return task

    async def claim(self, task: Task) -> bool:
        try:
            revision = await self._run(
                "claim",
                [self._key("task", task.id), self._key("servers")],
                [self.server_id, self._runners.get(task.id, "")],
            )
        except ERRORS as exc:
            raise _unreachable(self.url, exc) from None
        if int(revision) < 0:
            return False
        task.revision = int(revision)
        self._written[task.id] = task.revision
        self._local[task.id] = task
        return True

    def adopted(self, task: Task) -> None:
        self._local[task.id] = task

    async def forward(self, task: Task, responses: Mapping[str, Any]) -> None:
        key = self._key("answers", task.id)
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.rpush(key, json.dumps(dict(responses)))
                pipe.pexpire(key, self.stranded_ms)
                await pipe.execute()
        except ERRORS as exc:
            raise _unreachable(self.url, exc) from None

    async def cancel_elsewhere(self, task: Task) -> int:
        from tooldesign.runtime.mcp.task_store import _now

        try:
            done = await self._run(
                "cancel",
                [
                    self._key("task", task.id),
                    self._key("running"),
                    self._key("ended"),
                    self._caller(task.owner),
                    self._key("servers"),
                ],
                [_now(), task.support.keep_ms, task.id],
            )
        except ERRORS as exc:
            raise _unreachable(self.url, exc) from None
        return int(done)

    def __len__(self) -> int:
        """The tasks this server runs (the others' are in Redis)."""
        return len(self._local)

    def cancel_all(self) -> None:
        """Hand this server's tasks over (the server is closing): it stops writing them and
        gives up its lease, so that another server takes them over when next asked."""
        if self._closed:
            return
        loop = self._loop
        if loop is not None and loop.is_running():
            with contextlib.suppress(RuntimeError):
                task = loop.create_task(self.aclose())
                self._loops.append(task)
                return
        self._closed = True

    async def aclose(self) -> None:
        """Hand this server's tasks over at once, and close the connection."""
        self._closed = True
        client, self._client = self._client, None
        current = asyncio.current_task()
        for loop_task in self._loops:
            if loop_task is not current:
                loop_task.cancel()
        self._local.clear()
        self._dirty.clear()
        if client is None:
            return
        with contextlib.suppress(*ERRORS):
            await client.zrem(self._key("servers"), self.server_id)
        with contextlib.suppress(*ERRORS):
            await client.aclose()


def _data(task: Task) -> str:
    return json.dumps(
        {
            "tool": task.tool,
            "owner": task.owner,
            "keepMs": task.support.keep_ms,
            "pollMs": task.support.poll_ms,
            "createdAt": task.created_at,
            "result": task.result,
            "error": task.error,
            "inputRequests": task.requests() if task.status == "input_required" else None,
            "call": task.call,
        },
        separators=(",", ":"),
    )


def _task(task_id: str, fields: Mapping[str, str]) -> Task | None:
    try:
        data = json.loads(fields["data"])
        task = Task(
            task_id,
            data["tool"],
            data.get("owner"),
            TaskSupport(keep_ms=int(data["keepMs"]), poll_ms=int(data["pollMs"])),
            status=fields["status"],
            created_at=data["createdAt"],
            updated_at=fields.get("updated", ""),
            result=data.get("result"),
            error=data.get("error"),
            call=data.get("call"),
            revision=int(fields.get("revision", 0)),
            shown=data.get("inputRequests") if fields["status"] == "input_required" else None,
        )
    except (KeyError, ValueError, TypeError) as exc:
        log.error("task %s: its record in Redis cannot be read (%s)", task_id, exc)
        return None
    if task.status in ENDED:
        task.ended = 0.0  # ended: kept by the record's expiry
    return task


def _unreachable(url: str, exc: BaseException) -> MCPError:
    return MCPError(
        types.INTERNAL_ERROR,
        f"The task store (Redis at {url}) cannot be reached now ({type(exc).__name__}); try again.",
    )


def _digest(owner: str | None, round_id: str) -> str:
    """A round's key: its caller's and its own (a round id is secret, sealed in its state)."""
    return hashlib.sha256(f"{owner or ''}\0{round_id}".encode()).hexdigest()[:32]
