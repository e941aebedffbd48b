"""Connecting to Redis: a standalone server, a Sentinel-managed primary, or a Redis Cluster.

``redis://``, ``rediss://`` and ``unix://`` URLs name one server (a Cluster node is recognised by
what it answers, and the client becomes cluster-aware). ``redis+sentinel://[:password@]host:port
[,host:port…]/<service>[/<db>]`` asks the Sentinels for the current primary of ``<service>``, and
asks again after a failover. ``redis+cluster://host:port[,host:port…]`` names Cluster nodes.

Text is decoded as UTF-8 with ``surrogateescape``: bytes that are not UTF-8 never stop a read,
and are written back as they were (a dead letter keeps them).

The errors of a server that is down, restarting, loading, demoted (``READONLY``: a failover made
it a replica) or being resharded (``TRYAGAIN``, ``CLUSTERDOWN``) are :func:`transient`: every
caller retries them with :class:`Backoff`. Clients never retry by themselves: whether a command
may run again is the caller's to decide.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from tooldesign.runtime.transports.base import TransportError

DEFAULT_URL = "redis://localhost:6379/0"
MIN_SERVER = (7, 0)
SOCKET_TIMEOUT = 15.0
"""Seconds a command may wait for its reply before the connection counts as lost (longer than
any blocking read: those block for at most 2 s)."""

_TRANSIENT = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ReadOnlyError,
    redis_errors.TryAgainError,
    redis_errors.ClusterDownError,
    redis_errors.MovedError,
    redis_errors.SlotNotCoveredError,
    OSError,
)
_TRANSIENT_TEXT = ("READONLY", "LOADING", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "UNBLOCKED")

ERRORS: tuple[type[BaseException], ...] = (
    redis_errors.RedisError,
    redis_errors.RedisClusterException,
    OSError,
    AttributeError,
)
"""What a command may raise: catch these, and ask :func:`transient` whether to try again.

``AttributeError``: redis-py raises ``'NoneType' object has no attribute …`` when another task
closes a connection this one is using (a Cluster client does, refreshing its nodes after a
node failed): a lost connection, transient like the others. Any other one is not."""


def transient(exc: BaseException) -> bool:
    """Whether ``exc`` says the server is (for now) unreachable or cannot write: try again."""
    if isinstance(exc, _TRANSIENT):
        return True
    if isinstance(exc, AttributeError):
        return "'NoneType' object has no attribute" in str(exc)
    return isinstance(exc, redis_errors.ResponseError) and str(exc).startswith(_TRANSIENT_TEXT)


async def disconnect(client: Any) -> None:
    """Close every connection of ``client`` (blocked reads end); the client reconnects when
    used again."""
    if is_cluster(client):
        for node in client.get_nodes():
            await node.disconnect()
    else:
        await client.connection_pool.disconnect()


async def recover(client: Any, exc: BaseException) -> None:
    """After a transient error: a primary that was demoted (``READONLY``), or a blocked read
    it ended (``UNBLOCKED``), means a failover. Every connection is dropped, so the next ones go
    to the new primary (a Sentinel is asked again; a managed Redis's name resolves again)."""
    text = str(exc)
    if text.startswith(("READONLY", "UNBLOCKED")) or "previous master" in text:
        pool = getattr(client, "connection_pool", None)
        if pool is not None:  # those in use drop themselves on their own READONLY
            await pool.disconnect(inuse_connections=False)


_OPTIONS: dict[str, Any] = {
    "decode_responses": True,
    "encoding_errors": "surrogateescape",
    "protocol": 2,
    "socket_timeout": SOCKET_TIMEOUT,
    "socket_connect_timeout": 5.0,
}


def _no_retry() -> Retry:
    return Retry(NoBackoff(), 0)


def _nodes(netloc: str, url: str) -> tuple[list[tuple[str, int]], str | None, str | None]:
    """The ``host:port`` pairs of a Sentinel or Cluster URL, and its user and password."""
    credentials, _, hosts = netloc.rpartition("@")
    user, _, password = credentials.partition(":")
    nodes = []
    for part in hosts.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise TransportError(f"not a host:port in {url!r}: {part!r}")
        nodes.append((host.strip("[]"), int(port)))
    return nodes, unquote(user) or None, unquote(password) or None


def connect(url: str, *, connections: int) -> Any:
    """A client for ``url`` (a ``Redis``, or a ``RedisCluster`` for ``redis+cluster://``)."""
    scheme = url.partition("://")[0].lower()
    try:
        if scheme == "redis+sentinel":
            return _sentinel(url)
        if scheme == "redis+cluster":
            return _cluster(url)
        pool = BlockingConnectionPool.from_url(
            url, max_connections=connections, timeout=None, retry=_no_retry(), **_OPTIONS
        )
    except (ValueError, IndexError) as exc:
        raise TransportError(f"not a Redis URL: {url!r} ({exc})") from None
    return Redis(connection_pool=pool)


def _sentinel(url: str) -> Redis:
    from redis.asyncio.sentinel import Sentinel

    parts = urlsplit(url)
    nodes, user, password = _nodes(parts.netloc, url)
    path = [p for p in parts.path.split("/") if p]
    if not path:
        raise TransportError(
            f"a Sentinel URL names its service: redis+sentinel://host:port/NAME, got {url!r}"
        )
    db = int(path[1]) if len(path) > 1 else 0
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        nodes, sentinel_kwargs={"socket_timeout": 2.0, "password": password}
    )
    client: Redis = sentinel.master_for(
        path[0], db=db, username=user, password=password, retry=_no_retry(), **_OPTIONS
    )
    return client


def _cluster(url: str, nodes: list[tuple[str, int]] | None = None) -> Any:
    from redis.asyncio.cluster import ClusterNode, RedisCluster

    parts = urlsplit(url)
    found, user, password = _nodes(parts.netloc, url)
    startup = [ClusterNode(host, port) for host, port in (nodes or found)]
    options = {k: v for k, v in _OPTIONS.items() if k != "protocol"}
    return RedisCluster(
        startup_nodes=startup,
        username=user,
        password=password,
        retry=_no_retry(),
        **options,
    )


def is_cluster(client: Any) -> bool:
    return type(client).__name__ == "RedisCluster"


def require_server(info: Mapping[str, Any], url: str) -> str:
    """The server's name and version from its ``INFO server``; raises :class:`TransportError`
    for a server older than Redis 7 (Redis 6 answers XAUTOCLAIM in another shape)."""
    if info and all(isinstance(v, Mapping) for v in info.values()):  # a cluster: one per node
        names = {require_server(node, url) for node in info.values()}
        return ", ".join(sorted(names)) + " (cluster)"
    version = str(info.get("redis_version", "0"))
    numbers = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if numbers < MIN_SERVER:
        raise TransportError(
            f"the server at {url} runs Redis {version}; tooldesign's Redis transport needs "
            "Redis 7.0 or later (or Valkey 7.2 or later): older servers answer XAUTOCLAIM in "
            "another shape"
        )
    if "valkey_version" in info:
        return f"Valkey {info['valkey_version']}"
    return f"Redis {version}"


async def open_server(url: str, *, connections: int, wait: float = 0.0) -> tuple[Any, str]:
    """A client for ``url`` once the server answers (waiting up to ``wait`` seconds for it),
    after checking its version. A node of a Redis Cluster gets a cluster-aware client."""
    client = connect(url, connections=connections)
    backoff = Backoff()
    give_up = time.monotonic() + wait
    while True:
        try:
            info = await client.info("server")
            server = require_server(info, url)
            if not is_cluster(client) and url.partition("://")[0] in ("redis", "rediss"):
                cluster = await client.info("cluster")
                if str(cluster.get("cluster_enabled", "0")) == "1":
                    await client.aclose()
                    parts = urlsplit(url)
                    client = _cluster(url, [(parts.hostname or "localhost", parts.port or 6379)])
                    continue
            return client, server
        except TransportError:
            await client.aclose()
            raise
        except ERRORS as exc:
            if not transient(exc) and not isinstance(exc, redis_errors.RedisClusterException):
                await client.aclose()
                raise TransportError(f"Redis at {url} refused to talk: {exc}") from None
            if time.monotonic() >= give_up:
                await client.aclose()
                raise TransportError(f"cannot reach Redis at {url}: {exc}") from None
            await backoff.sleep()


class Backoff:
    """Waits that double from 50 ms to 2 s between attempts at a server that is down."""

    __slots__ = ("delay",)

    def __init__(self) -> None:
        self.delay = 0.05

    async def sleep(self) -> None:
        await asyncio.sleep(self.delay * (0.5 + secrets.randbelow(1000) / 1000))
        self.delay = min(self.delay * 2, 2.0)

    def reset(self) -> None:
        self.delay = 0.05


class ServerClock:
    """The server's time, from the local clock and a measured offset: deadlines are counted in
    it, so processes whose clocks differ still agree on them."""

    __slots__ = ("offset",)

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def observe(self, server: tuple[Any, Any] | list[Any], sent: float, received: float) -> None:
        """Record a server ``TIME`` (seconds, microseconds) read between ``sent`` and ``received``."""
        seconds = int(server[0]) + int(server[1]) / 1_000_000
        self.offset = seconds - (sent + received) / 2


def process_id() -> str:
    """An id for this process among all agents and workers: host, pid and a random part."""
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())[:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def live_versions(members: list[str]) -> tuple[str, ...]:
    """The versions in a workers set's members (``"<version> <worker id>"``)."""
    return tuple(sorted({member.split(" ", 1)[0] for member in members}))
