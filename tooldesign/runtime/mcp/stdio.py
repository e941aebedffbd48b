"""Serving one MCP client on standard input and output.

Standard output is the protocol's channel, so while serving, ``sys.stdout`` is standard error:
what tools and observers print goes there at once, instead of waiting in the buffer of the real
standard output until the process exits, when it would land on the channel (the SDK points
file descriptor 1 at standard error only while it serves). When standard input ends, the calls
still running are finished and answered before the server stops.
"""

from __future__ import annotations

import contextlib
import sys
from types import TracebackType
from typing import Any, Self

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

DRAIN_TIMEOUT = 30.0
"""Seconds the calls still running when standard input ends have to finish."""


class _InFlight:
    """The client's requests the server has not answered yet."""

    def __init__(self) -> None:
        self._ids: set[types.RequestId] = set()
        self._drained = anyio.Event()
        self._drained.set()

    def received(self, item: SessionMessage | Exception) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, types.JSONRPCRequest):
            if not self._ids:
                self._drained = anyio.Event()
            self._ids.add(message.id)
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and isinstance(message.params, dict)
        ):
            # A cancelled request is never answered: nothing to wait for.
            self._settle(message.params.get("requestId"))

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._settle(message.id)

    def _settle(self, request_id: Any) -> None:
        if isinstance(request_id, str | int):  # what a client sends may be anything
            self._ids.discard(request_id)
        if not self._ids:
            self._drained.set()

    async def drained(self, seconds: float | None) -> None:
        with anyio.move_on_after(seconds):
            await self._drained.wait()


class _Wrapped:
    """A stream around the SDK's own: closing it closes theirs."""

    def __init__(self, inner: Any, in_flight: _InFlight) -> None:
        self._inner = inner
        self._in_flight = in_flight

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class _DrainingReader(_Wrapped):
    """The server's read stream: at the end of input, waits for the in-flight calls first
    (the server stops once its read stream ends, cancelling what still runs)."""

    def __init__(self, inner: Any, in_flight: _InFlight, drain_timeout: float | None) -> None:
        super().__init__(inner, in_flight)
        self._drain_timeout = drain_timeout

    @property
    def last_context(self) -> Any:  # the sender's context, read by the SDK's dispatcher
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except anyio.EndOfStream:
            await self._in_flight.drained(self._drain_timeout)
            raise
        self._in_flight.received(item)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _AnswerWatcher(_Wrapped):
    """The server's write stream: notes each answer on its way out."""

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        self._in_flight.sent(item)


async def serve_stdio(server: Server[Any], *, drain_timeout: float | None = DRAIN_TIMEOUT) -> None:
    """Serve one client on standard input and output until its input ends and the calls it
    sent are answered (for ``drain_timeout`` seconds at most; ``None``: as long as they take)."""
    stdout = sys.stdout
    async with stdio_server() as (read_stream, write_stream):
        in_flight = _InFlight()
        try:
            with contextlib.redirect_stdout(sys.stderr):
                await server.run(
                    _DrainingReader(read_stream, in_flight, drain_timeout),
                    _AnswerWatcher(write_stream, in_flight),
                    server.create_initialization_options(),
                )
        finally:
            # What code holding the real sys.stdout wrote is still in its buffer: out with it
            # while file descriptor 1 still points at standard error.
            with contextlib.suppress(Exception):
                stdout.flush()
