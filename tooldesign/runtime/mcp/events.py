"""A bounded in-memory ``EventStore``: SSE streams of a streamable-HTTP app that resume.

With an event store, the SDK's transport gives every SSE event an id (and first a priming
event, with the ``retry`` interval the app suggests), so a client whose connection dropped
reconnects with ``Last-Event-ID`` and gets what it missed instead of losing a call's answer.
This one keeps the most recent events in the server's memory: it resumes across a dropped
connection, not across a restart of the server (give ``streamable_http_app(event_store=...)``
one of your own, on a shared store, for that). ``tooldesign serve-mcp --transport http``
serves with one.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict, deque

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.types import JSONRPCMessage

RETRY_INTERVAL_MS = 1000
"""The ``retry`` interval (milliseconds) ``serve-mcp`` suggests to clients in SSE streams."""


class MemoryEventStore(EventStore):
    """The last ``max_events`` events (``max_per_stream`` per stream), oldest dropped first.

    A client that asks to resume after an event no longer kept is told nothing can be replayed
    (the SDK answers it as for an unknown id).
    """

    def __init__(self, *, max_events: int = 10_000, max_per_stream: int = 1_000) -> None:
        if max_events < 1 or max_per_stream < 1:
            raise ValueError("an event store keeps at least one event (and one per stream)")
        self.max_events = max_events
        self.max_per_stream = max_per_stream
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._events: OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()
        self._streams: dict[StreamId, deque[EventId]] = {}

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        with self._lock:
            event_id = str(next(self._ids))
            self._events[event_id] = (stream_id, message)
            stream = self._streams.setdefault(stream_id, deque())
            stream.append(event_id)
            if len(stream) > self.max_per_stream:
                self._events.pop(stream.popleft(), None)
            while len(self._events) > self.max_events:
                oldest, (oldest_stream, _) = self._events.popitem(last=False)
                kept = self._streams.get(oldest_stream)
                if kept and kept[0] == oldest:
                    kept.popleft()
                if kept is not None and not kept:
                    del self._streams[oldest_stream]
            return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        with self._lock:
            found = self._events.get(last_event_id)
            if found is None:
                return None
            stream_id = found[0]
            ids = self._streams.get(stream_id, deque())
            later = list(itertools.dropwhile(lambda i: i != last_event_id, ids))[1:]
            replay = [(i, self._events[i][1]) for i in later if i in self._events]
        for event_id, message in replay:
            if message is not None:  # a priming event carries nothing to replay
                await send_callback(EventMessage(message, event_id))
        return stream_id

    def size(self) -> int:
        """How many events are kept now. (Not ``len()``: the SDK tests a store for truth, and
        an empty one must not read as no store.)"""
        with self._lock:
            return len(self._events)


__all__ = ["RETRY_INTERVAL_MS", "MemoryEventStore"]
