"""Telling connected clients that the runtime's registrations changed: callbacks run on the
event loops of the connections they serve, and a ``SubscriptionBus`` for 2026-07-28
``subscriptions/listen`` streams fed by them."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from mcp.shared.subscriptions import ServerEvent, ToolsListChanged

log = logging.getLogger("tooldesign.runtime.mcp")


class Listeners:
    """Callbacks to run on their own event loops when the runtime's registrations change.

    ``Runtime.register`` may run on any thread; each callback is handed to the loop it was
    added from, where the MCP connection it serves lives.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: dict[object, tuple[asyncio.AbstractEventLoop, Callable[[], None]]] = {}

    def add(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Register ``callback`` for the running loop; returns its (idempotent) removal."""
        loop = asyncio.get_running_loop()
        token = object()
        with self._lock:
            self._callbacks[token] = (loop, callback)

        def remove() -> None:
            with self._lock:
                self._callbacks.pop(token, None)

        return remove

    def fire(self) -> None:
        with self._lock:
            entries = list(self._callbacks.items())
        for token, (loop, callback) in entries:
            try:
                loop.call_soon_threadsafe(callback)
            except RuntimeError:  # the loop is closed: its connections are gone
                with self._lock:
                    self._callbacks.pop(token, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._callbacks)


class ChangeBus:
    """A ``SubscriptionBus`` for ``subscriptions/listen`` streams, fed by runtime changes."""

    def __init__(self, listeners: Listeners) -> None:
        self._listeners = listeners

    async def publish(self, event: ServerEvent) -> None:
        # The SDK's bus protocol; the server itself fires on registration changes. Tools are
        # the only list this server has, so any event is a tools event.
        self._listeners.fire()

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        def deliver() -> None:
            try:
                listener(ToolsListChanged())
            except Exception:
                log.exception("a subscriptions/listen stream failed to take an event")

        return self._listeners.add(deliver)


__all__ = ["ChangeBus", "Listeners"]
