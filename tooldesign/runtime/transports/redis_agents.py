"""The journal of agent-implemented tools' inner runs on a worker's Redis.

A worker runs an agent-implemented tool's inner run. When the run waits for a person, the
worker answers the call awaiting that approval; the agent presents the call again with the
decision, and the worker that takes it up resumes the waiting run — or, when that run is gone
(its worker restarted, or another worker took the call), starts it again. The calls with side
effects the run made before are then answered from this journal, as they were, and not run
again. One hash per outer call, ``<prefix>:agentrun:<digest of its stable id>``, an entry per
inner call, kept as long as a waiting run is (:data:`~tooldesign.runtime.agents.PARKED_SECONDS`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


class RedisAgentJournal:
    """An :class:`~tooldesign.runtime.agents.AgentJournal` on Redis (``client``: a
    ``redis.asyncio`` client, the worker's)."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def key(self, run: str) -> str:
        digest = hashlib.sha256(run.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"{self.prefix}:agentrun:{digest}"

    async def recorded(self, run: str, entry: str) -> Mapping[str, Any] | None:
        raw = await self.client.hget(self.key(run), entry)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None  # damaged: as if it had not been recorded
        return value if isinstance(value, dict) else None

    async def record(self, run: str, entry: str, result: Mapping[str, Any], ttl: float) -> None:
        key = self.key(run)
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(key, entry, json.dumps(result, separators=(",", ":")))
        pipe.pexpire(key, max(1, int(ttl * 1000)))
        await pipe.execute()


__all__ = ["RedisAgentJournal"]
