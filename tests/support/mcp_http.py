"""``tooldesign serve-mcp --transport http`` in a process of its own, for tests that point real
clients (the conformance suite, the MCP Inspector, the TypeScript SDK) at it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tooldesign_script() -> str:
    """The ``tooldesign`` command of the running interpreter's environment."""
    script = shutil.which("tooldesign", path=str(Path(sys.executable).parent))
    assert script is not None, "tooldesign is not installed in this environment"
    return script


@contextlib.contextmanager
def serving_over_http(
    target: str, *options: str, log: Path, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Serve ``target`` on a free port of 127.0.0.1 until the block ends (stopped by its PID);
    the block gets its URL. What the server says goes to ``log``."""
    command = [tooldesign_script(), "serve-mcp", target, *options, "--transport", "http"]
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    with log.open("wb") as err:
        process = subprocess.Popen(
            [*command, "--port", "0"],
            cwd=REPO,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 30
        found = None
        while found is None and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            found = re.search(r"over MCP at (http://\S+)", log.read_text())
        assert found, log.read_text()
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(10)
