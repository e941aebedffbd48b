"""The worked example in two processes: a worker serving ``devices``, the agent calling it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.redis import RedisServer

pytestmark = pytest.mark.slow  # a Redis server, a worker in a subprocess


def test_the_example_agent_calls_devices_on_a_worker_process(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    url = redis_server.url
    log = tmp_path / "worker.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with log.open("wb") as sink:
        worker = subprocess.Popen(
            [sys.executable, "-m", "tooldesign.cli", "worker", "examples.netops.worker:runtime",
             "--redis", url, "--prefix", prefix],
            cwd=REPO, env=env, stderr=sink,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while "serving assistant.devices" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        done = subprocess.run(
            [sys.executable, "-m", "examples.netops.remote_agent", "--redis", url, "--prefix", prefix],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
    finally:
        worker.terminate()
        assert worker.wait(timeout=60) == 0
    turns = done.stdout.split("── turn ")
    # The call missing site_id is answered here, from the generated codec.
    assert "site_id: required field is missing" in turns[1]
    assert "answered by: this process" in turns[1]
    # The repaired call ran on the worker, and its bounded result came back.
    assert "bounds: returned=5 truncated=True" in turns[2]
    assert "answered by: " in turns[2] and "answered by: this process" not in turns[2]
    assert "tool call assistant.devices.list_devices: ok" in log.read_text()
