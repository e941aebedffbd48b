"""Where the Redis transport keeps everything: the names of its keys, one hash slot per toolset.

Every key shares one prefix (``tooldesign`` unless configured). ``{service.toolset}`` is a hash
tag: all the keys of one toolset live in one slot, so each script touches one slot and a Redis
Cluster spreads toolsets over its shards. Only the set of toolsets lives elsewhere (read by the
agent and ``tooldesign workers``, never inside a script)::

    <p>:{<ts>}:requests:<version>      stream of calls, consumer group "workers"; each entry:
                                       id, tool, digest, reply, call (the message, JSON)
    <p>:{<ts>}:bell:<version>          list: a token when calls wait, for an idle worker to wake
    <p>:{<ts>}:queued:<version>        hash: calls each agent (its reply stream) has queued
    <p>:{<ts>}:workers                 sorted set "<version> <worker>": taking calls until (ms)
    <p>:{<ts>}:leases                  sorted set "<worker>": holds its calls until (ms)
    <p>:{<ts>}:tick                    "<ms> <stall ms>": when a worker last reached the server
    <p>:{<ts>}:epoch                   a token naming the toolset's data (another after a loss)
    <p>:{<ts>}:call:<tool>:<call id>   hash: digest, queued, reply, deadline, started, worker,
                                       result, cancelled
    <p>:{<ts>}:replies:<agent>         stream of answers to one agent (id, answer)
    <p>:{<ts>}:cancels                 stream of calls their agents cancelled (id, tool)
    <p>:{<ts>}:dead                    stream of dead letters
    <p>:toolsets                       set of the toolsets workers have served
"""

from __future__ import annotations

import re

from tooldesign.runtime.transports.base import TransportError

DEFAULT_PREFIX = "tooldesign"
GROUP = "workers"
"""The consumer group every worker of a toolset version reads its calls through."""

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]+")


class RedisKeys:
    """The names of every key a transport and its workers use (see the module doc)."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        if not _PREFIX.fullmatch(prefix):
            raise TransportError(
                f"a key prefix takes letters, digits and _ . : - only, got {prefix!r}"
            )
        self.prefix = prefix

    def tag(self, toolset: str) -> str:
        """The start every key of ``toolset`` shares (its hash tag included)."""
        return f"{self.prefix}:{{{toolset}}}:"

    def requests(self, toolset: str, version: str) -> str:
        return f"{self.tag(toolset)}requests:{version}"

    def bell(self, toolset: str, version: str) -> str:
        return f"{self.tag(toolset)}bell:{version}"

    def queued(self, toolset: str, version: str) -> str:
        return f"{self.tag(toolset)}queued:{version}"

    def workers(self, toolset: str) -> str:
        return f"{self.tag(toolset)}workers"

    def leases(self, toolset: str) -> str:
        return f"{self.tag(toolset)}leases"

    def tick(self, toolset: str) -> str:
        return f"{self.tag(toolset)}tick"

    def epoch(self, toolset: str) -> str:
        return f"{self.tag(toolset)}epoch"

    def calls(self, toolset: str) -> str:
        """The start of the names of ``toolset``'s call records (``…call:<tool>:<id>``)."""
        return f"{self.tag(toolset)}call:"

    def call(self, tool: str, call_id: str) -> str:
        """The record of call ``call_id`` of ``tool`` (an id: ``service.toolset.tool``). Keyed
        by the tool too: an answer is never sent for a call of another tool sharing its id."""
        toolset, _, name = tool.rpartition(".")
        return f"{self.calls(toolset)}{name}:{call_id}"

    def replies(self, toolset: str, agent: str) -> str:
        return f"{self.replies_start(toolset)}{agent}"

    def replies_start(self, toolset: str) -> str:
        """What every reply stream of ``toolset`` starts with: a worker sends answers only there."""
        return f"{self.tag(toolset)}replies:"

    def cancels(self, toolset: str) -> str:
        return f"{self.tag(toolset)}cancels"

    def dead(self, toolset: str) -> str:
        return f"{self.tag(toolset)}dead"

    @property
    def toolsets(self) -> str:
        return f"{self.prefix}:toolsets"

    def toolset_of(self, key: str) -> str:
        """The toolset a key of this prefix belongs to (``""`` for another key)."""
        match = re.match(re.escape(self.prefix) + r":\{([^}]*)\}:", key)
        return match.group(1) if match else ""
