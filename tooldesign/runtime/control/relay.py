"""What a running call reports (its progress, its log messages) relayed to whoever listens: the
sinks are kept in a context variable, so a call's reports reach the listeners of that call (and
of the threads it starts through the runtime) only, each listener chained to the one before."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class _Gate(Generic[T]):
    """A sink that closes for good when its call ends.

    A thread can outlive its call (a sync tool still running after a ``Timeout`` answered): it
    keeps the context it was started with, sink included, and reports into a closed gate. The
    lock makes the close a line: a report that got in before it is delivered before
    :meth:`Relay.detach` returns, none after, so nothing reaches a listener after the call's end.
    """

    __slots__ = ("_lock", "_open", "_sink")

    def __init__(self, sink: Callable[[T], None]) -> None:
        self._sink = sink
        self._lock = threading.Lock()
        self._open = True

    def __call__(self, report: T) -> None:
        with self._lock:
            if self._open:
                self._sink(report)

    def close(self) -> None:
        with self._lock:
            self._open = False


@dataclass(frozen=True, slots=True)
class Attached(Generic[T]):
    """What :meth:`Relay.attach` returns, for :meth:`Relay.detach`."""

    token: contextvars.Token[Callable[[T], None] | None]
    gate: _Gate[T]


class Relay(Generic[T]):
    """One kind of report's listeners, for the running context."""

    __slots__ = ("_sink",)

    def __init__(self, name: str) -> None:
        self._sink: contextvars.ContextVar[Callable[[T], None] | None] = contextvars.ContextVar(
            name, default=None
        )

    def sink(self) -> Callable[[T], None] | None:
        """Where the running context's reports go, or ``None`` when nobody listens."""
        return self._sink.get()

    def attach(self, sink: Callable[[T], None]) -> Attached[T]:
        """Send the running context's reports to ``sink`` too, until :meth:`detach` (after
        which ``sink`` hears nothing more, from any thread)."""
        gate = _Gate(sink)
        outer = self._sink.get()
        if outer is None:
            return Attached(self._sink.set(gate), gate)

        def chained(report: T) -> None:
            try:
                gate(report)
            finally:
                outer(report)

        return Attached(self._sink.set(chained), gate)

    def detach(self, attached: Attached[T]) -> None:
        """Undo the :meth:`attach` that returned ``attached``: its sink is closed for good."""
        attached.gate.close()
        self._sink.reset(attached.token)

    @contextmanager
    def to(self, sink: Callable[[T], None]) -> Iterator[None]:
        """:meth:`attach` for the block, then :meth:`detach`."""
        attached = self.attach(sink)
        try:
            yield
        finally:
            self.detach(attached)
