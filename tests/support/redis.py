"""A real Redis server on a unix socket, and workers serving a runtime through it.

``redis-server`` is found on PATH (``tests.support.programs``; .ci/run installs Debian's).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import redis
from tooldesign.runtime import Runtime
from tooldesign.runtime.transports.redis import RedisTransport
from tooldesign.runtime.transports.redis_worker import RedisWorker

from tests.support import REPO
from tests.support.programs import missing


class RedisServer:
    """One redis-server process in its own folder, listening on a unix socket, or on
    127.0.0.1:``port`` (with ``extra`` arguments: a replica's, a Cluster node's)."""

    def __init__(
        self,
        binary: str,
        *,
        appendonly: bool = False,
        port: int | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.binary = binary
        self.appendonly = appendonly
        self.port = port
        self.extra = extra
        # Short: a unix socket path must fit in 107 bytes.
        self.dir = Path(tempfile.mkdtemp(prefix="tdredis-"))
        self.socket = self.dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.port is not None:
            return f"redis://127.0.0.1:{self.port}"
        return f"unix://{self.socket}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        if self.port is not None:
            listen = ["--port", str(self.port), "--bind", "127.0.0.1"]
        else:
            listen = ["--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700"]
        command = [
            self.binary,
            *listen,
            "--dir", str(self.dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.dir / "redis.log"),
            *self.extra,
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"{self.binary} exited at start: {err}")
            if self._answers_ping():
                return
            time.sleep(0.01)
        raise RuntimeError(f"{self.binary} did not start within 10 s")

    def _answers_ping(self) -> bool:
        try:
            if self.port is not None:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=1)
            else:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(1)
                sock.connect(str(self.socket))
            with sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server by its PID (SIGTERM: a clean shutdown; SIGKILL: a crash)."""
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()

    def restart(self, sig: int = signal.SIGTERM, *, empty: bool = False) -> None:
        """Stop and start again; ``empty``: as a server without persistence would, with none
        of its data."""
        self.stop(sig)
        self.socket.unlink(missing_ok=True)
        if empty:
            shutil.rmtree(self.dir / "appendonlydir", ignore_errors=True)
            (self.dir / "dump.rdb").unlink(missing_ok=True)
        self.start()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, decode_responses=True)

    def pause(self) -> None:
        """SIGSTOP: the server stalls, its connections stay open."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@asynccontextmanager
async def running_worker(
    runtime: Runtime, url: str, prefix: str, **options: Any
) -> AsyncIterator[RedisWorker]:
    """A worker serving ``runtime`` in this event loop, live when the block starts."""
    options.setdefault("heartbeat_interval", 0.2)
    worker = RedisWorker(runtime, url, prefix=prefix, **options)
    task = asyncio.create_task(worker.run())
    probe = RedisTransport(url, prefix=prefix)
    try:
        await wait_live(probe, worker.served[0].key, worker.served[0].version, task)
    finally:
        await probe.close()
    try:
        yield worker
    finally:
        worker.stop()
        await task


async def wait_live(
    transport: RedisTransport, toolset: str, version: str, task: asyncio.Task[Any] | None = None
) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if task is not None and task.done():
            task.result()  # raises what stopped the worker
        if version in (await transport.live_toolsets()).get(toolset, ()):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no worker of {toolset} {version} became live")


def worker_process(
    url: str,
    prefix: str,
    *options: str,
    log: Path,
    target: str = "tests.runtime.transports.app:runtime",
    **env: str,
) -> subprocess.Popen[bytes]:
    """``tooldesign worker`` serving ``target`` (tests.runtime.transports.app:runtime) in a
    process of its own, logging to ``log``."""
    environment = {
        **os.environ,
        "TD_REDIS_URL": url,
        "TD_PREFIX": prefix,
        "PYTHONPATH": str(REPO),
        **env,
    }
    command = [
        sys.executable, "-m", "tooldesign.cli", "worker", target,
        "--redis", url, "--prefix", prefix, *options,
    ]  # fmt: skip
    with log.open("ab") as sink:
        return subprocess.Popen(command, cwd=REPO, env=environment, stderr=sink)


def free_ports(count: int) -> list[int]:
    """``count`` TCP ports of 127.0.0.1 free now, each with its Cluster bus port (+10000)."""
    found: list[int] = []
    candidate = 20000 + secrets.randbelow(20000)
    while len(found) < count:
        candidate += 1
        if candidate > 45000:
            candidate = 20000
        if all(_free(port) for port in (candidate, candidate + 10000)):
            found.append(candidate)
    return found


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class SentinelGroup:
    """A primary, a replica and a Sentinel watching them (quorum 1, 1 s to call the primary
    down), each a process on 127.0.0.1; ``url`` names them for the transport."""

    SERVICE = "tdprimary"

    def __init__(self, binary: str, *, appendonly: bool = True) -> None:
        primary, replica, sentinel = free_ports(3)
        self.primary = RedisServer(binary, appendonly=appendonly, port=primary)
        self.replica = RedisServer(
            binary,
            appendonly=appendonly,
            port=replica,
            extra=("--replicaof", "127.0.0.1", str(primary)),
        )
        self.sentinel_port = sentinel
        self.dir = Path(tempfile.mkdtemp(prefix="tdsentinel-"))
        self.binary = binary
        self.sentinel: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.sentinel_port}/{self.SERVICE}"

    def start(self) -> None:
        self.primary.start()
        self.replica.start()
        config = self.dir / "sentinel.conf"
        config.write_text(
            f"port {self.sentinel_port}\nbind 127.0.0.1\ndir {self.dir}\n"
            f"logfile {self.dir / 'sentinel.log'}\n"
            f"sentinel monitor {self.SERVICE} 127.0.0.1 {self.primary.port} 1\n"
            f"sentinel down-after-milliseconds {self.SERVICE} 1000\n"
            f"sentinel failover-timeout {self.SERVICE} 5000\n"
        )
        self.sentinel = subprocess.Popen(
            [self.binary, str(config), "--sentinel"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with redis.Redis(port=self.replica.port or 0) as replica:
            deadline = time.monotonic() + 10
            while replica.info("replication").get("master_link_status") != "up":
                assert time.monotonic() < deadline, "the replica did not sync"
                time.sleep(0.05)
        deadline = time.monotonic() + 10
        while self.primary_port() != self.primary.port:
            assert time.monotonic() < deadline, "the Sentinel did not start"
            time.sleep(0.05)

    def primary_port(self) -> int | None:
        try:
            with redis.Redis(port=self.sentinel_port, socket_timeout=1) as sentinel:
                address = sentinel.execute_command(
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.SERVICE
                )
        except redis.RedisError:
            return None
        return int(address[1]) if address else None

    def current(self) -> RedisServer:
        """The server that is the primary now."""
        return self.replica if self.primary_port() == self.replica.port else self.primary

    def failover(self) -> int:
        """Promote the replica (the primary becomes its replica); the new primary's port."""
        before = self.primary_port()
        deadline = time.monotonic() + 10
        with redis.Redis(port=self.sentinel_port) as sentinel:
            while True:  # until the Sentinel sees a replica it may promote
                try:
                    sentinel.execute_command("SENTINEL", "FAILOVER", self.SERVICE)
                    break
                except redis.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
        deadline = time.monotonic() + 20
        while (now := self.primary_port()) in (before, None):
            assert time.monotonic() < deadline, "no failover"
            time.sleep(0.05)
        assert now is not None
        return now

    def cleanup(self) -> None:
        if self.sentinel is not None:
            self.sentinel.terminate()
            self.sentinel.wait(timeout=10)
        self.primary.cleanup()
        self.replica.cleanup()
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisClusterGroup:
    """A Redis Cluster of three primaries on 127.0.0.1 (no replicas), each a process."""

    def __init__(self, binary: str, *, appendonly: bool = False) -> None:
        ports = free_ports(3)
        self.nodes = [
            RedisServer(
                binary,
                appendonly=appendonly,
                port=port,
                extra=("--cluster-enabled", "yes", "--cluster-node-timeout", "2000"),
            )
            for port in ports
        ]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli")
        if cli is None:
            missing("redis-cli", "the Redis Cluster tests", "it comes with redis-server")
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        deadline = time.monotonic() + 20
        for node in self.nodes:
            with redis.Redis(port=node.port or 0) as client:
                while client.cluster("info").get("cluster_state") != "ok":
                    assert time.monotonic() < deadline, "the cluster did not form"
                    time.sleep(0.05)

    def node_for(self, key: str) -> RedisServer:
        """The node that serves ``key``'s hash slot."""
        with redis.Redis(port=self.nodes[0].port or 0, decode_responses=True) as client:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
            for start, end, primary, *_ in client.execute_command("CLUSTER", "SLOTS"):
                if int(start) <= slot <= int(end):
                    port = int(primary[1])
                    return next(node for node in self.nodes if node.port == port)
        raise AssertionError(f"no node serves slot {slot}")

    def cleanup(self) -> None:
        for node in self.nodes:
            node.cleanup()
