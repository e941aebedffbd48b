"""A throwaway ``redis-server`` for the benchmarks that need one (from PATH, on a unix socket,
in a temporary folder removed afterwards)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def redis_server() -> Iterator[str | None]:
    """The server's URL while it runs, or ``None`` when ``redis-server`` is not on PATH."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="tdbench-"))
    sock = folder / "redis.sock"
    process = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(sock), "--dir", str(folder), "--save", "",
         "--appendonly", "yes", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        while not sock.exists():
            time.sleep(0.01)
        yield f"unix://{sock}"
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)
