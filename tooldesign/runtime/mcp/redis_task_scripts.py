"""The Lua scripts of the Redis task store (:mod:`.redis_tasks`): each judges a task's record
atomically — making a task (the store's limit, a caller's share, a round made once), writing
it, reading it with its server's lease, looking after it each beat, taking it over, cancelling
it, renewing a lease."""

from __future__ import annotations

__all__ = ["SCRIPTS"]

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function ended(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end
"""
# A record is a hash: data (the task's JSON, written whole by its server), and the fields the
# scripts judge: status, updated, revision, runner (the server running it), and cancel (set
# when tasks/cancel reaches another server than the one running the task).
_CREATE = (
    _NOW
    + """
-- KEYS: running, ended, record, round (or ""), caller (or "").  ARGV: limit, data, status,
-- updated, runner, ttl (ms), id, record key prefix, round ttl (ms), per caller.  A round that
-- made a task already (its task, the round's id): -1. A caller running its share: -2. Ended
-- tasks make room, oldest first; with none, 0.
if KEYS[4] ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
if KEYS[5] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
  if redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[10]) then return -2 end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then return 0 end
  redis.call('ZREM', KEYS[2], oldest[1])
  redis.call('DEL', ARGV[8] .. oldest[1])
end
if KEYS[4] ~= '' then redis.call('SET', KEYS[4], ARGV[7], 'PX', ARGV[9]) end
redis.call('HSET', KEYS[3], 'data', ARGV[2], 'status', ARGV[3], 'updated', ARGV[4],
  'revision', 0, 'runner', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[7])
if KEYS[5] ~= '' then redis.call('ZADD', KEYS[5], now + tonumber(ARGV[6]), ARGV[7]) end
return 1
"""
)
_PUT = (
    _NOW
    + """
-- KEYS: record, running, ended, caller (or "").  ARGV: data, status, updated, revision, runner,
-- ttl (ms), id.  An ended record is final; a record another server took over is not this one's (-1); an
-- older revision changes nothing. A missing record (the server lost it) is written again.
local f = redis.call('HMGET', KEYS[1], 'status', 'runner', 'revision')
if f[1] then
  if ended(f[1]) then return 0 end
  if f[2] ~= ARGV[5] then return -1 end
  if tonumber(f[3]) >= tonumber(ARGV[4]) then return 0 end
end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'status', ARGV[2], 'updated', ARGV[3],
  'revision', ARGV[4], 'runner', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if ended(ARGV[2]) then
  redis.call('ZREM', KEYS[2], ARGV[7])
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[6]), ARGV[7])
  if KEYS[4] ~= '' then redis.call('ZREM', KEYS[4], ARGV[7]) end
else
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[7])
  if KEYS[4] ~= '' then redis.call('ZADD', KEYS[4], now + tonumber(ARGV[6]), ARGV[7]) end
end
return 1
"""
)
_LOAD = (
    _NOW
    + """
-- KEYS: record, servers.  The record, and whether its runner's lease is live.
local f = redis.call('HGETALL', KEYS[1])
if #f == 0 then return {f, 0} end
local runner = redis.call('HGET', KEYS[1], 'runner')
local lease = redis.call('ZSCORE', KEYS[2], runner)
return {f, (lease and tonumber(lease) > now) and 1 or 0}
"""
)
_CLAIM = (
    _NOW
    + """
-- KEYS: record, servers.  ARGV: this server, the runner the caller saw.
local f = redis.call('HMGET', KEYS[1], 'status', 'runner', 'revision')
if not f[1] or ended(f[1]) or f[2] ~= ARGV[2] then return -1 end
local lease = redis.call('ZSCORE', KEYS[2], f[2])
if lease and tonumber(lease) > now then return -1 end
local revision = tonumber(f[3]) + 1
redis.call('HSET', KEYS[1], 'runner', ARGV[1], 'revision', revision)
return revision
"""
)
_CANCEL = (
    _NOW
    + """
-- KEYS: record, running, ended, caller (or ""), servers.  ARGV: updated, ttl (ms), id.
-- 0: it was not running. 2: the server running it (its lease live) is asked to cancel it
-- (its call may have run: that server ends it as its call ends). 1: no server runs it any
-- more: it is cancelled.
local f = redis.call('HMGET', KEYS[1], 'status', 'revision', 'runner')
if not f[1] or ended(f[1]) then return 0 end
local lease = f[3] and redis.call('ZSCORE', KEYS[5], f[3])
if lease and tonumber(lease) > now then
  redis.call('HSET', KEYS[1], 'cancel', '1')
  return 2
end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'updated', ARGV[1], 'revision',
  tonumber(f[2]) + 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[3])
if KEYS[4] ~= '' then redis.call('ZREM', KEYS[4], ARGV[3]) end
return 1
"""
)
_LOOK = (
    _NOW
    + """
-- KEYS: record, running, caller (or ""), answers.  ARGV: this server, ttl (ms), id.
-- A running task's record, as its server sees it each beat: status, runner, cancel, and the
-- answers passed on by other servers. Its record's life and its places among the running and
-- its caller's share are renewed only while it runs here: an ended record keeps its own ttl
-- (keep_ms), and one another server took over is that server's to keep.
local f = redis.call('HMGET', KEYS[1], 'status', 'runner', 'cancel')
if f[1] and not ended(f[1]) and f[2] == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), ARGV[3])
  if KEYS[3] ~= '' then redis.call('ZADD', KEYS[3], 'XX', now + tonumber(ARGV[2]), ARGV[3]) end
end
local given = redis.call('LPOP', KEYS[4], 100)
return {f[1], f[2], f[3], given or {}}
"""
)
_HEARTBEAT = (
    _NOW
    + """
-- KEYS: servers.  ARGV: this server, lease (ms).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 600000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return now
"""
)
SCRIPTS = {
    "create": _CREATE,
    "put": _PUT,
    "load": _LOAD,
    "claim": _CLAIM,
    "cancel": _CANCEL,
    "look": _LOOK,
    "heartbeat": _HEARTBEAT,
}
