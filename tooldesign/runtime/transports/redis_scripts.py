"""The Redis transport's scripts: each one step of a call's life, atomic, in one hash slot.

- ``admit`` (agent): answer from the store, refuse a call id already bound to another request
  (its digest), check that a worker of the version is live and the queue under its limit, join a
  call already queued, else queue it and ring the bell.
- ``take`` (worker): read new calls for free slots, refusing by size before a worker reads one
  whole (dead-lettered), and mark each *started* by this claim (``<worker> <entry>``), or say
  why not: answered, cancelled, bound to another request, started by another claim.
- ``claim`` (worker): take over the calls of a worker whose lease expired (and this worker's own
  calls it no longer holds), with the same marks.
- ``renew``, ``answer``, ``heartbeat``, ``live``, ``cancel``.

Each script that judges a lease first settles the *stall clock*: when nobody (agent or worker)
reached the toolset for longer than ``stall`` ms, the server was down or stalled, so the
leases live when it stopped are extended by the gap. A Redis paused for 10 s therefore neither
makes its workers look dead (calls refused ``tool_unavailable``) nor hands their calls to others.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import Any

from redis import exceptions as redis_errors
from tooldesign.runtime.transports.redis_client import is_cluster, recover

log = logging.getLogger("tooldesign.transports.redis")

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# The stall clock: workers' scripts write "<now> <stall>" to the tick (stall: half their
# lease, more than their heartbeat interval). A gap longer than stall since the last write means
# no worker reached the server: it was down or paused. settle() (workers) then extends the
# leases live when it stopped by the gap; agents only judge by it (idle_for, live_at).
_TICK = """
local function read_tick(tick)
  local value = redis.call('GET', tick)
  if not value then return nil, nil end
  local last, stall = string.match(value, '^(%d+) (%d+)$')
  return tonumber(last), tonumber(stall)
end
"""

_SETTLE = (
    _TICK
    + """
local function settle(tick, zsets, stall, longest)
  local last, stored = read_tick(tick)
  if last and now - last > (stored or tonumber(stall)) and now - last <= tonumber(longest) then
    local gap = now - last
    for _, key in ipairs(zsets) do
      local members = redis.call('ZRANGEBYSCORE', key, last, '+inf', 'WITHSCORES')
      for i = 1, #members, 2 do
        redis.call('ZADD', key, tonumber(members[i + 1]) + gap, members[i])
      end
    end
  end
  if not last or now - last >= 100 then
    redis.call('SET', tick, now .. ' ' .. stall, 'PX', 86400000)
  end
end
"""
)

# Agents: whether a member scored ``score`` counts as live. After an outage no worker has
# reached yet (the tick older than its stall, for at most ``grace`` ms), a member live when it
# began still counts: its worker has not had the chance to say it is alive.
_LIVE_AT = (
    _TICK
    + """
local function live_at(tick, grace)
  local last, stall = read_tick(tick)
  if last and stall and now - last > stall and now - last <= tonumber(grace) then
    return last
  end
  return now
end
"""
)

# The fields of one stream entry, its size, and its *start*: the claim marks the call's record
# and says what to do with it. Used by take and claim; each entry comes back as
# {entry id, status, fields, detail, deadline (ms), deliveries, previous worker}. ARGV of both:
# [1] group [2] worker [3] count [4] max bytes [5] call key start [6] stall [7] longest
# [8] record ttl (s) [9] dead-letter limit
_START = """
local function start(eid, flat, deliveries, previous)
  local size = 0
  local fields = {}
  for i = 1, #flat, 2 do
    size = size + #flat[i] + #flat[i + 1]
    fields[flat[i]] = flat[i + 1]
  end
  if size > tonumber(ARGV[4]) then
    local small = {}
    for _, name in ipairs({'id', 'tool', 'reply', 'digest'}) do
      local value = fields[name]
      if value and #value <= 1024 then small[#small + 1] = name; small[#small + 1] = value end
    end
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[9], '*', 'reason',
      'too large: ' .. size .. ' bytes', 'entry', eid, 'stream', KEYS[1], 'deliveries',
      tostring(deliveries), 'worker', ARGV[2], unpack(small))
    redis.call('XACK', KEYS[1], ARGV[1], eid)
    redis.call('XDEL', KEYS[1], eid)
    return {eid, 'too_large', small, tostring(size), '', deliveries, previous}
  end
  local id, tool = fields['id'], fields['tool']
  if not id or id == '' or not tool or #id > 512 then
    return {eid, 'entry', flat, '', '', deliveries, previous}
  end
  local key = ARGV[5] .. string.match(tool, '([^.]*)$') .. ':' .. id
  local op = ARGV[2] .. ' ' .. eid
  local record = redis.call('HMGET', key, 'digest', 'result', 'started', 'cancelled', 'deadline')
  local status, detail = 'first', ''
  if record[1] and fields['digest'] and record[1] ~= fields['digest'] then
    status = 'conflict'
  elseif record[2] then
    status, detail = 'answered', record[2]
  elseif record[4] then
    status = 'cancelled'
  elseif record[3] and record[3] ~= op then
    status, detail = 'again', record[3]
  else
    redis.call('HSET', key, 'started', op, 'worker', ARGV[2])
    if not record[1] and fields['digest'] then redis.call('HSET', key, 'digest', fields['digest']) end
    if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, ARGV[8]) end
    if record[3] == op then detail = 'mine' end
  end
  return {eid, status, flat, detail, record[5] or '', deliveries, previous}
end
"""

_LEASED = """
local lease = tonumber(redis.call('ZSCORE', KEYS[3], ARGV[2]))
if not lease or lease < now then return {'fenced'} end
"""

TAKE = (
    _NOW
    + _SETTLE
    + _START
    + """
-- KEYS: requests, bell, leases, tick, workers, dead, queued.
settle(KEYS[4], {KEYS[5], KEYS[3]}, ARGV[6], ARGV[7])
"""
    + _LEASED
    + """
local got = redis.pcall('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', ARGV[3],
  'STREAMS', KEYS[1], '>')
if type(got) == 'table' and got.err then return {'error', got.err} end
local function taken_from(flat)  -- one call fewer queued by the agent that sent it
  for i = 1, #flat, 2 do
    if flat[i] == 'reply' and #flat[i + 1] <= 1024 then
      if redis.call('HINCRBY', KEYS[7], flat[i + 1], -1) <= 0 then
        redis.call('HDEL', KEYS[7], flat[i + 1])
      end
      return
    end
  end
end
local out = {}
local entries = got and got[1] and got[1][2] or {}
for _, entry in ipairs(entries) do
  taken_from(entry[2])
  out[#out + 1] = start(entry[1], entry[2], 1, '')
end
if #entries < tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[2])
elseif redis.call('LLEN', KEYS[2]) < 2 then
  redis.call('LPUSH', KEYS[2], '1')  -- more may wait: wake another worker
end
return {'ok', out}
"""
)

CLAIM = (
    _NOW
    + _SETTLE
    + _START
    + """
-- KEYS: requests, bell, leases, tick, workers, dead.  ARGV[3]: most calls to take over (the
-- free slots), [10]: min idle (ms), [11]: cursor, [12]: pending entries to look at.
-- A call is taken over when its worker's lease expired (or it has none), never for its idle
-- time alone; this worker's own calls idle that long are ones it no longer holds. Returns
-- 'ok', the calls taken, the next cursor ('' at the end), and how many more could be taken.
settle(KEYS[4], {KEYS[5], KEYS[3]}, ARGV[6], ARGV[7])
"""
    + _LEASED
    + """
local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[10], ARGV[11], '+',
  ARGV[12])
if type(pending) == 'table' and pending.err then return {'error', pending.err} end
local out = {}
local more = 0
local last = ''
for _, p in ipairs(pending) do
  local eid, owner, deliveries = p[1], p[2], tonumber(p[4])
  last = eid
  local alive = false
  if owner ~= ARGV[2] then
    local lease = tonumber(redis.call('ZSCORE', KEYS[3], owner))
    alive = lease ~= nil and lease >= now
  end
  if not alive then
    if #out >= tonumber(ARGV[3]) then
      more = more + 1
    else
      -- One more delivery when taken over; this worker's own keep their count.
      local count = deliveries
      if owner ~= ARGV[2] then count = deliveries + 1 end
      local claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[10], eid,
        'RETRYCOUNT', count)
      if claimed[1] then
        out[#out + 1] = start(claimed[1][1], claimed[1][2], count, owner)
      end
    end
  end
end
local cursor = ''
if #pending == tonumber(ARGV[12]) then cursor = '(' .. last end
return {'ok', out, cursor, more}
"""
)

RENEW = """
-- KEYS: requests.  ARGV: group, worker, entry ids...
-- Resets the idle time of the entries this worker still holds; returns those another worker
-- took over ('gone' when the stream or its group is gone: the server lost its data).
local taken = {}
for i = 3, #ARGV do
  local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if type(pending) == 'table' and pending.err then return {'gone'} end
  if pending[1] then
    if pending[1][2] == ARGV[2] then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    else
      taken[#taken + 1] = ARGV[i]
    end
  end
end
return taken
"""

ANSWER = """
-- KEYS: call, requests, dead.  ARGV: group, entry id, answer, store (1/0), record ttl (s),
-- reply (when the record has none), reply ttl (s), call id, claim, ran (1/0), reply start,
-- dead-letter reason, deliveries, worker, dead-letter limit, tool, call message (kept in a
-- dead letter, so that it can be replayed).
-- The first stored answer wins: a second run's answer is replaced by it. A call that did not
-- run (refused) loses its start mark, so that it may run later. The answer goes only to a
-- reply stream of this toolset; to anything else, the call is dead-lettered.
local answer = ARGV[3]
if ARGV[4] == '1' then
  if redis.call('HSETNX', KEYS[1], 'result', answer) == 0 then
    answer = redis.call('HGET', KEYS[1], 'result')
  end
  redis.call('EXPIRE', KEYS[1], ARGV[5])
elseif ARGV[10] == '0' and ARGV[9] ~= '' and redis.call('HGET', KEYS[1], 'started') == ARGV[9] then
  redis.call('HDEL', KEYS[1], 'started', 'worker')
end
redis.call('HDEL', KEYS[1], 'queued')
local reply = redis.call('HGET', KEYS[1], 'reply') or ARGV[6]
local reason = ARGV[12]
local sent = 0
if reply ~= '' then
  local kind = redis.call('TYPE', reply)['ok']
  if string.sub(reply, 1, #ARGV[11]) == ARGV[11] and (kind == 'stream' or kind == 'none') then
    redis.call('XADD', reply, '*', 'id', ARGV[8], 'answer', answer)
    redis.call('EXPIRE', reply, ARGV[7])
    sent = 1
  else
    sent = -1
    if reason == '' then reason = 'the reply address is not a reply stream of this toolset' end
  end
end
if reason ~= '' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[15], '*', 'id', ARGV[8], 'tool', ARGV[16],
    'reason', reason, 'entry', ARGV[2], 'stream', KEYS[2], 'deliveries', ARGV[13],
    'worker', ARGV[14], 'reply', string.sub(reply, 1, 1024), 'call', ARGV[17])
end
redis.pcall('XACK', KEYS[2], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[2], ARGV[2])
return sent
"""

DEAD = """
-- KEYS: requests, dead, record.  ARGV: group, entry id, dead-letter limit, claim, fields...
-- A stream entry that is not a call, dead-lettered as it was (with why), and acknowledged;
-- the record its claim marked loses the mark (gone when nothing else is in it).
if redis.call('HGET', KEYS[3], 'started') == ARGV[4] then
  redis.call('HDEL', KEYS[3], 'started', 'worker')
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', unpack(ARGV, 5))
redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return 1
"""

ADMIT = (
    _NOW
    + _LIVE_AT
    + """
-- KEYS: workers, leases, tick, requests, call, bell, epoch, queued.  ARGV: version,
-- max queue, record ttl (s), reply stream, call message, call id, digest, tool, deadline (ms),
-- grace (ms), new epoch, expected epoch, careful (2/1/0).
-- Fairness: once the queue is half full, an agent that has queued its share of it (the limit
-- over one more than the agents with calls queued: room is left for a newcomer) waits, as
-- for a full queue.
-- The epoch names the toolset's data: a server that lost it (restarted empty) has another.
-- A careful admission (an earlier attempt at it may have been queued, and the tool must not
-- run twice) of a call with no record under another epoch than expected is 'lost': that
-- attempt may have run before the data was lost. A call sent again by a server that took
-- over another's task (careful 2: it was sent before) with no record at all is 'lost': its
-- record expired or was lost, and it may have run.
local epoch = redis.call('GET', KEYS[7])
if not epoch then
  epoch = ARGV[11]
  redis.call('SET', KEYS[7], epoch)
end
local record = redis.call('HMGET', KEYS[5], 'digest', 'result', 'queued', 'deadline')
if record[1] and record[1] ~= ARGV[7] then return {'conflict', '', epoch} end
if record[2] then return {'done', record[2], epoch} end
if not record[1] and (ARGV[13] == '2' or (ARGV[13] == '1' and epoch ~= ARGV[12])) then
  return {'lost', '', epoch}
end
local since = live_at(KEYS[3], ARGV[10])
local others = {}
local live = false
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], since, '+inf')) do
  local version = string.match(member, '^(%S+)')
  if version == ARGV[1] then live = true; break end
  others[#others + 1] = version
end
if not live then return {'unavailable', table.concat(others, ' '), epoch} end
if record[3] then
  redis.call('HSET', KEYS[5], 'reply', ARGV[4])
  if tonumber(ARGV[9]) > (tonumber(record[4]) or 0) then
    redis.call('HSET', KEYS[5], 'deadline', ARGV[9])
  end
  return {'joined', '', epoch}
end
local queued = redis.call('XLEN', KEYS[4])
local limit = tonumber(ARGV[2])
if queued >= limit then return {'busy', tostring(queued), epoch} end
if queued * 2 >= limit then
  local mine = tonumber(redis.call('HGET', KEYS[8], ARGV[4]) or '0')
  if mine * (redis.call('HLEN', KEYS[8]) + 1) >= limit then
    return {'busy', tostring(queued), epoch}
  end
end
local id = redis.call('XADD', KEYS[4], '*', 'id', ARGV[6], 'tool', ARGV[8], 'digest', ARGV[7],
  'reply', ARGV[4], 'call', ARGV[5])
redis.call('HINCRBY', KEYS[8], ARGV[4], 1)
redis.call('HSET', KEYS[5], 'digest', ARGV[7], 'queued', id, 'reply', ARGV[4], 'deadline', ARGV[9])
redis.call('EXPIRE', KEYS[5], ARGV[3])
if redis.call('LLEN', KEYS[6]) < 2 then redis.call('LPUSH', KEYS[6], '1') end
return {'queued', id, epoch}
"""
)

CANCEL = """
-- KEYS: call, cancels.  ARGV: call id, tool, digest, limit.
-- Marks an unanswered call of this request cancelled and tells the workers.
local record = redis.call('HMGET', KEYS[1], 'digest', 'result')
if record[1] ~= ARGV[3] or record[2] then return 0 end
redis.call('HSET', KEYS[1], 'cancelled', '1')
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'id', ARGV[1], 'tool', ARGV[2])
redis.call('EXPIRE', KEYS[2], 3600)
return 1
"""

HEARTBEAT = (
    _NOW
    + _SETTLE
    + """
-- KEYS: workers, leases, tick.  ARGV: ttl (ms), worker, stall, longest, members...
-- The lease says the worker holds its calls; a member of workers, that it takes calls of
-- that version (a stopping worker keeps its lease and leaves workers).
settle(KEYS[3], {KEYS[1], KEYS[2]}, ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 600000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 600000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[2])
for i = 5, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
return t
"""
)

LIVE = (
    _NOW
    + _LIVE_AT
    + """
-- KEYS: workers, leases, tick, epoch.  ARGV: grace (ms).  The live members, and the epoch.
local since = live_at(KEYS[3], ARGV[1])
return {redis.call('ZRANGEBYSCORE', KEYS[1], since, '+inf'), redis.call('GET', KEYS[4]) or ''}
"""
)

SCRIPTS = {
    "admit": ADMIT,
    "take": TAKE,
    "claim": CLAIM,
    "renew": RENEW,
    "answer": ANSWER,
    "dead": DEAD,
    "cancel": CANCEL,
    "heartbeat": HEARTBEAT,
    "live": LIVE,
}


class Scripts:
    """Runs the scripts above, batched: the calls made while batches are on their way go out
    together in the next pipeline (one write and one read for all of them). A few batches are
    on their way at once, so Redis, the network and this process work at the same time.

    Scripts are loaded by hash; a server that lost them (a restart, a failover) gets them again.
    ``wait_replicas``: after a batch, wait (up to ``wait_timeout`` ms) until that many replicas
    have its writes, so a failover cannot lose them (``WAIT``): ``run_confirmed`` says whether
    they do.
    """

    MAX_BATCH = 256
    MAX_SENDING = 4

    def __init__(self, client: Any, *, wait_replicas: int = 0, wait_timeout: int = 1000) -> None:
        self.client = client
        self.wait_replicas = wait_replicas
        self.wait_timeout = wait_timeout
        self.shas = {
            name: hashlib.sha1(text.encode()).hexdigest() for name, text in SCRIPTS.items()
        }
        self._queue: list[tuple[str, list[Any], asyncio.Future[Any]]] = []
        self._confirm: set[asyncio.Future[Any]] = set()
        self._sending = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._warned = 0.0
        self._cluster = is_cluster(client)
        self._sem: asyncio.Semaphore | None = None

    async def load(self) -> None:
        for name, text in SCRIPTS.items():
            self.shas[name] = await self.client.script_load(text)

    async def run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        """The script's answer; raises what Redis raised for it (see ``redis_client.transient``:
        the caller decides whether to try again)."""
        return await self._run(name, keys, args, confirm=False)

    async def run_confirmed(self, name: str, keys: list[str], args: list[Any]) -> tuple[Any, bool]:
        """The script's answer, and whether ``wait_replicas`` replicas have its writes (always
        when none is asked for)."""
        answer: tuple[Any, bool] = await self._run(name, keys, args, confirm=True)
        return answer

    async def _run(self, name: str, keys: list[str], args: list[Any], *, confirm: bool) -> Any:
        if self._cluster:
            result = await self._one(name, [len(keys), *keys, *args])
            return (result, True) if confirm else result
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if confirm:
            self._confirm.add(future)
        self._queue.append((name, [len(keys), *keys, *args], future))
        if self._sending < self.MAX_SENDING:
            self._sending += 1
            task = loop.create_task(self._send())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    def _confirmed(self, acked: list[Any]) -> bool:
        """Whether ``wait_replicas`` replicas have the batch (``WAIT`` said so)."""
        return (
            bool(acked)
            and not isinstance(acked[0], Exception)
            and (int(acked[0]) >= self.wait_replicas)
        )

    async def _one(self, name: str, args: list[Any]) -> Any:
        """One script on its own (a Cluster's pipelines run no scripts): on the node of its
        keys' slot, a few at once per process."""
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.MAX_BATCH // 8)
        async with self._sem:
            try:
                return await self.client.evalsha(self.shas[name], *args)
            except redis_errors.NoScriptError:  # a node that restarted, or a new one
                await self.load()
                return await self.client.evalsha(self.shas[name], *args)

    async def _send(self) -> None:
        try:
            await asyncio.sleep(0)  # let the calls made in this turn of the loop join the batch
            while self._queue:
                batch = self._queue[: self.MAX_BATCH]
                del self._queue[: self.MAX_BATCH]
                await self._execute(batch, reloaded=False)
        finally:
            self._sending -= 1

    async def _execute(
        self, batch: list[tuple[str, list[Any], asyncio.Future[Any]]], *, reloaded: bool
    ) -> None:
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for name, args, _ in batch:
                    pipe.evalsha(self.shas[name], *args)
                if self.wait_replicas and not is_cluster(self.client):
                    pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout)
                results = await pipe.execute(raise_on_error=False)
        except BaseException as exc:
            for _, _, future in batch:
                self._confirm.discard(future)
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            await recover(self.client, exc)
            return
        acked = results[len(batch) :]
        results = results[: len(batch)]
        confirmed = not self.wait_replicas or self._confirmed(acked)
        if self.wait_replicas and not confirmed and time.monotonic() - self._warned > 10:
            self._warned = time.monotonic()
            log.warning(
                "only %s of %d replicas have the last writes (WAIT, %d ms): a failover now may "
                "lose them (said once every 10 s)",
                acked[0] if acked else "?",
                self.wait_replicas,
                self.wait_timeout,
            )
        for result in results:
            if isinstance(result, redis_errors.ResponseError):
                await recover(self.client, result)
                break
        lost = [
            item
            for item, result in zip(batch, results, strict=True)
            if isinstance(result, redis_errors.NoScriptError)
        ]
        if lost and not reloaded:  # the server restarted and forgot them: load, run those again
            try:
                await self.load()
            except Exception as exc:  # noqa: BLE001 - handed to every caller
                results = [exc] * len(batch)
            else:
                await self._execute(lost, reloaded=True)
        for (_, _, future), result in zip(batch, results, strict=True):
            if future.done():  # answered by the second attempt, or its caller gave up
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            elif future in self._confirm:
                future.set_result((result, confirmed))
            else:
                future.set_result(result)
            self._confirm.discard(future)
