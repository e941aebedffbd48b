"""A real Redis server on a unix socket, and workers serving a runtime through it.

``redis-server`` is found on PATH (``tests.support.programs``; .ci/run installs Debian's).
"""

from __future__ import annotations

import asyncio
import os
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


class RedisServer:
    """One redis-server process listening on a unix socket in its own folder."""

    def __init__(self, binary: str, *, appendonly: bool = False) -> None:
        self.binary = binary
        self.appendonly = appendonly
        # Short: a unix socket path must fit in 107 bytes.
        self.dir = Path(tempfile.mkdtemp(prefix="tdredis-"))
        self.socket = self.dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        command = [
            self.binary,
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.dir / "redis.log"),
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
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(1)
                sock.connect(str(self.socket))
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

    def restart(self, sig: int = signal.SIGTERM) -> None:
        self.stop(sig)
        self.socket.unlink(missing_ok=True)
        self.start()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, decode_responses=True)

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
    url: str, prefix: str, *options: str, log: Path, **env: str
) -> subprocess.Popen[bytes]:
    """``tooldesign worker`` serving tests.runtime.transports.app:runtime in a process of its own,
    logging to ``log``."""
    environment = {
        **os.environ,
        "TD_REDIS_URL": url,
        "TD_PREFIX": prefix,
        "PYTHONPATH": str(REPO),
        **env,
    }
    command = [
        sys.executable, "-m", "tooldesign.cli", "worker", "tests.runtime.transports.app:runtime",
        "--redis", url, "--prefix", prefix, *options,
    ]  # fmt: skip
    with log.open("ab") as sink:
        return subprocess.Popen(command, cwd=REPO, env=environment, stderr=sink)
