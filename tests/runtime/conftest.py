"""Fixtures of the runtime's tests: spans recorded in memory (OpenTelemetry's SDK, imported by
the tests that ask for them), and a Redis server shared by the session (the transports' tests and
the composition matrix's Redis worker column)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.support.redis import RedisServer


@pytest.fixture
def spans() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider (for ``Runtime(tracing=...)``) and the exporter its spans end in."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    from tests.support.programs import redis_binary
    from tests.support.redis import RedisServer

    server = RedisServer(redis_binary())
    server.start()
    yield server
    server.cleanup()
