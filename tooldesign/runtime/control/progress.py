"""Progress from long tools: ``meta.progress(0.4, "copied 400 of 1000")``.

A handler reports through its call's metadata; a bound method (which gets no metadata) calls
:func:`report_progress` the same way. Either is a no-op when nobody listens, and never raises
into the tool: progress is for observers (an MCP client's progress bar, a UI), not part of the
result. Who listens is set per call by whoever runs it — the runtime for its event
subscribers, the MCP server for a client that sent a progress token — with :func:`progress_to`,
which is also how a test fakes it::

    updates: list[ProgressUpdate] = []
    with progress_to(updates.append):
        service.copy_files(...)
    assert updates[-1].fraction == 1.0

A sink may be called from any thread (sync tools run in worker threads): it must be quick and
thread-safe, and hand the update over rather than act on it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tooldesign.runtime.control.relay import Attached, Relay

log = logging.getLogger("tooldesign.runtime")

_MAX_MESSAGE = 200


@dataclass(frozen=True, slots=True)
class ProgressUpdate:
    """How far a call has come: ``progress`` of ``total`` (``total`` 1.0 for a fraction)."""

    progress: float
    total: float | None = 1.0
    message: str | None = None

    @property
    def fraction(self) -> float | None:
        """``progress / total``, when the total is known."""
        if not self.total:
            return None
        return self.progress / self.total


ProgressSink = Callable[[ProgressUpdate], None]
"""Where a call's progress goes: called with each update, from whatever thread reports it."""

_relay: Relay[ProgressUpdate] = Relay("tooldesign_progress_sink")
attach = _relay.attach
"""Send the progress of the running context to a sink too, until :func:`detach`."""
detach = _relay.detach
"""Undo the :func:`attach` that returned its argument: its sink is closed for good."""


def report_progress(
    progress: float, message: str | None = None, *, total: float | None = None
) -> None:
    """Report how far the running call has come.

    Without ``total``, ``progress`` is a fraction from 0 to 1 (``report_progress(0.4)``); with
    it, a count (``report_progress(400, "copied", total=1000)``). A no-op when nobody listens;
    a value that is not a finite number is ignored.
    """
    sink = _relay.sink()
    if sink is None:
        return
    if not _finite(progress) or (total is not None and not _finite(total)):
        log.debug("progress %r of %r ignored: not a finite number", progress, total)
        return
    if message is not None:
        message = str(message)
        if len(message) > _MAX_MESSAGE:
            message = message[: _MAX_MESSAGE - 1] + "…"
    update = ProgressUpdate(float(progress), float(total) if total is not None else 1.0, message)
    try:
        sink(update)
    except Exception:  # an observer's failure never reaches the tool
        log.debug("a progress sink failed", exc_info=True)


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@contextmanager
def progress_to(sink: ProgressSink) -> Iterator[None]:
    """Send the progress reported inside the block (and the threads it starts through the
    runtime) to ``sink`` as well as to whoever listened before."""
    with _relay.to(sink):
        yield


def listening() -> bool:
    """Whether anyone listens to the running call's progress."""
    return _relay.sink() is not None


__all__ = [
    "Attached",
    "ProgressSink",
    "ProgressUpdate",
    "attach",
    "detach",
    "listening",
    "progress_to",
    "report_progress",
]
