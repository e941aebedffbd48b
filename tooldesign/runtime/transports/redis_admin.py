"""Looking after a fleet of workers on Redis: what ``tooldesign workers`` shows and does.

- :func:`fleet` — per toolset and version: the live workers (taking calls, or stopping and
  finishing theirs), the calls each holds, the queue (calls not yet taken), the consumers
  that are stale (no lease), and the dead letters;
- :func:`prune` — removes stale consumers that hold no call (those that hold calls keep them
  until a live worker of their version takes them over);
- :func:`dead_letters`, :func:`replay`, :func:`drop` — the dead-letter streams: read them,
  queue a dead letter's call again (with a fresh deadline, its record cleared so that it runs),
  or delete letters.

Everything here is plain data (dicts and lists) for JSON output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tooldesign.runtime.transports.base import TransportError
from tooldesign.runtime.transports.redis_client import ERRORS
from tooldesign.runtime.transports.redis_keys import GROUP, RedisKeys
from tooldesign.runtime.transports.wire import CallMessage, WireError


async def _now_ms(client: Any) -> int:
    seconds, micros = await client.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def _versions(client: Any, keys: RedisKeys, toolset: str) -> list[str]:
    start = keys.requests(toolset, "")
    found = [key async for key in client.scan_iter(match=f"{_escape(start)}*", count=1000)]
    return sorted({str(key)[len(start) :] for key in found})


def _escape(pattern: str) -> str:
    """``pattern`` with the glob characters of SCAN's MATCH escaped (a hash tag has braces)."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in pattern)


async def fleet(client: Any, keys: RedisKeys, only: Iterable[str] = ()) -> dict[str, Any]:
    """The state of every toolset's workers and queues (or of those in ``only``)."""
    wanted = set(only)
    toolsets = sorted(str(t) for t in await client.smembers(keys.toolsets))
    now = await _now_ms(client)
    out = []
    for toolset in toolsets:
        if wanted and toolset not in wanted and toolset.rsplit(".", 1)[-1] not in wanted:
            continue
        leases = {
            str(member): float(score)
            for member, score in await client.zrange(keys.leases(toolset), 0, -1, withscores=True)
        }
        taking = {
            str(member): float(score)
            for member, score in await client.zrange(keys.workers(toolset), 0, -1, withscores=True)
        }
        versions = []
        for version in await _versions(client, keys, toolset):
            versions.append(await _version(client, keys, toolset, version, now, leases, taking))
        out.append(
            {
                "toolset": toolset,
                "dead_letters": int(await client.xlen(keys.dead(toolset))),
                "versions": versions,
            }
        )
    return {"server_time_ms": now, "toolsets": out}


async def _version(
    client: Any,
    keys: RedisKeys,
    toolset: str,
    version: str,
    now: int,
    leases: dict[str, float],
    taking: dict[str, float],
) -> dict[str, Any]:
    stream = keys.requests(toolset, version)
    waiting = held = 0
    consumers: list[dict[str, Any]] = []
    try:
        for group in await client.xinfo_groups(stream):
            if group.get("name") == GROUP:
                waiting = int(group.get("lag") or 0)
                held = int(group.get("pending") or 0)
        consumers = list(await client.xinfo_consumers(stream, GROUP))
    except ERRORS as exc:
        if "NOGROUP" not in str(exc) and "no such key" not in str(exc).lower():
            raise
    workers: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    names = {str(c["name"]) for c in consumers}
    for worker in sorted(
        names | {m.split(" ", 1)[1] for m in taking if m.startswith(f"{version} ")}
    ):
        consumer = next((c for c in consumers if str(c["name"]) == worker), {})
        lease = leases.get(worker, 0.0)
        row = {
            "worker": worker,
            "live": lease >= now,
            "taking_calls": taking.get(f"{version} {worker}", 0.0) >= now,
            "lease_left_s": round(max(lease - now, 0) / 1000, 2),
            "holds": int(consumer.get("pending", 0)),
            "idle_s": round(int(consumer.get("idle", 0)) / 1000, 2),
        }
        (workers if row["live"] else stale).append(row)
    return {
        "version": version,
        "stream": stream,
        "waiting": waiting,
        "held": held,
        "workers": workers,
        "stale": stale,
    }


async def prune(client: Any, keys: RedisKeys, only: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Remove the stale consumers (no live lease) that hold no call; what was removed."""
    state = await fleet(client, keys, only)
    removed = []
    for toolset in state["toolsets"]:
        for version in toolset["versions"]:
            for row in version["stale"]:
                if row["holds"] == 0:
                    await client.xgroup_delconsumer(version["stream"], GROUP, row["worker"])
                    removed.append(
                        {
                            "toolset": toolset["toolset"],
                            "version": version["version"],
                            "worker": row["worker"],
                        }
                    )
    return removed


async def _toolsets(client: Any, keys: RedisKeys, only: Iterable[str]) -> list[str]:
    wanted = set(only)
    toolsets = sorted(str(t) for t in await client.smembers(keys.toolsets))
    return [t for t in toolsets if not wanted or t in wanted or t.rsplit(".", 1)[-1] in wanted]


async def dead_letters(
    client: Any, keys: RedisKeys, only: Iterable[str] = (), count: int = 100
) -> list[dict[str, Any]]:
    """The oldest ``count`` dead letters of each toolset: their id (``letter``), toolset and
    fields (``reason``, the call's ``id``, ``tool``, ``deliveries``, ``worker``…; a long call
    message cut short)."""
    letters = []
    for toolset in await _toolsets(client, keys, only):
        for letter_id, fields in await client.xrange(keys.dead(toolset), count=count):
            shown = {k: (v if len(v) <= 300 else v[:300] + "…") for k, v in fields.items()}
            letters.append({"letter": letter_id, "toolset": toolset, "fields": shown})
    return letters


async def _letters(
    client: Any, keys: RedisKeys, ids: Iterable[str], only: Iterable[str], every: bool
) -> list[tuple[str, str, dict[str, str]]]:
    wanted = set(ids)
    found = []
    for toolset in await _toolsets(client, keys, only):
        for letter_id, fields in await client.xrange(keys.dead(toolset)):
            if every or letter_id in wanted:
                found.append((toolset, str(letter_id), dict(fields)))
                wanted.discard(letter_id)
    if wanted:
        raise TransportError(f"no dead letter {', '.join(sorted(wanted))}")
    return found


async def drop(
    client: Any, keys: RedisKeys, ids: Iterable[str], only: Iterable[str] = (), every: bool = False
) -> list[str]:
    """Delete dead letters (by id, or ``every`` one of the toolsets); their ids."""
    dropped = []
    for toolset, letter_id, _ in await _letters(client, keys, ids, only, every):
        await client.xdel(keys.dead(toolset), letter_id)
        dropped.append(letter_id)
    return dropped


async def replay(
    client: Any,
    keys: RedisKeys,
    ids: Iterable[str],
    only: Iterable[str] = (),
    every: bool = False,
    timeout: float = 60.0,
) -> list[dict[str, str]]:
    """Queue the calls of dead letters again, each with a deadline ``timeout`` seconds away and
    its record cleared (its stored answer, its start mark), so that it runs; the letter is then
    deleted. A letter without a readable call is left, and said so."""
    done = []
    now = await _now_ms(client)
    for toolset, letter_id, fields in await _letters(client, keys, ids, only, every):
        try:
            message = CallMessage.from_json(fields.get("call", ""))
        except WireError as exc:
            done.append({"letter": letter_id, "replayed": "no", "why": str(exc)})
            continue
        if message.toolset != toolset:
            done.append({"letter": letter_id, "replayed": "no", "why": "another toolset's call"})
            continue
        body = json.loads(message.to_json())
        body["deadline"] = now / 1000 + timeout
        text = json.dumps(body)
        stream = keys.requests(toolset, message.version)
        record = keys.call(message.tool, message.call_id)
        reply = fields.get("reply", "")
        if not reply.startswith(keys.replies_start(toolset)):
            reply = ""
        await client.delete(record)
        entry = await client.xadd(
            stream,
            {
                "id": message.call_id,
                "tool": message.tool,
                "digest": message.digest,
                "reply": reply,
                "call": text,
            },
        )
        await client.hset(
            record,
            mapping={
                "digest": message.digest,
                "queued": entry,
                "reply": reply,
                "deadline": str(int(now + timeout * 1000)),
            },
        )
        await client.expire(record, int(timeout) + 3600)
        await client.lpush(keys.bell(toolset, message.version), "1")
        await client.xdel(keys.dead(toolset), letter_id)
        done.append(
            {"letter": letter_id, "replayed": "yes", "call": message.call_id, "entry": entry}
        )
    return done
