"""Spilled results on Redis: where an agent and its workers both read them.

A tool that spills its result past its budget (``Limits(result_overflow="spill")``) keeps the
whole result in its runtime's result store. When the toolset runs on workers, the worker's
runtime spills and the agent's ``read_result`` reads: both runtimes are given the same
:class:`RedisResultStore` (``Runtime(result_store=RedisResultStore(url))``). Each result is one
key, ``<prefix>:result:<handle>``, written with its expiry (``PX``), so Redis forgets it on
time and a Cluster places it by its own slot.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tooldesign.runtime.spill import SpilledResult


class RedisResultStore:
    """Spilled results kept on Redis (``url``: ``redis://``, ``rediss://``, ``unix://``, a
    Sentinel or Cluster URL as the transport takes; or ``client``, a ``redis.asyncio`` client)."""

    def __init__(
        self, url: str | None = None, *, client: Any = None, prefix: str = "tooldesign"
    ) -> None:
        if (url is None) == (client is None):
            raise ValueError("give RedisResultStore a url or a client, not both")
        if client is None:
            from tooldesign.runtime.transports.redis_client import connect

            client = connect(url or "", connections=4)
        self.client = client
        self.prefix = prefix

    def key(self, handle: str) -> str:
        return f"{self.prefix}:result:{handle}"

    async def put(self, entry: SpilledResult) -> None:
        ttl_ms = max(1, int((entry.expires - time.time()) * 1000))
        record = {"tool": entry.tool, "run_id": entry.run_id, "value": entry.value_json}
        await self.client.set(self.key(entry.handle), json.dumps(record), px=ttl_ms)

    async def get(self, handle: str) -> SpilledResult | None:
        raw = await self.client.get(self.key(handle))
        if raw is None:
            return None
        ttl_ms = await self.client.pttl(self.key(handle))
        try:
            record = json.loads(raw)
            return SpilledResult(
                handle,
                str(record["tool"]),
                record["run_id"],
                str(record["value"]),
                time.time() + max(ttl_ms, 0) / 1000,
            )
        except (ValueError, KeyError, TypeError):
            return None  # not ours, or damaged: as if it had expired


__all__ = ["RedisResultStore"]
