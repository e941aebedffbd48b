"""Log messages from tools: ``meta.log("warning", "probe 3 of 5 lost")``.

A handler logs through its call's metadata; a bound method (which gets no metadata) calls
:func:`log_message` the same way. The levels are MCP's (RFC 5424's): ``debug``, ``info``,
``notice``, ``warning``, ``error``, ``critical``, ``alert``, ``emergency``; ``data`` is a
message or any JSON value.

Who hears a call's messages is set per call by whoever runs it, with :func:`logs_to` (also how
a test catches them): the MCP server forwards them to its client as ``notifications/message``
(at the level the client chose with ``logging/setLevel``, or, on 2026-07-28, asked for in the
request's ``_meta``), naming the tool as the logger unless the message names one. When nobody
listens, a message goes to Python's logging, under ``tooldesign.tools`` (and its ``logger``
below it), so nothing a tool logs is lost in process. Like progress, logging never raises into
the tool, and a sink may be called from any thread: it must be quick and hand the message over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

from tooldesign.runtime.control.relay import Attached, Relay

log = logging.getLogger("tooldesign.runtime")

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""MCP's log levels, least severe first."""

LOG_LEVELS: tuple[LogLevel, ...] = get_args(LogLevel)

_PYTHON_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}

_MAX_TEXT = 4000


@dataclass(frozen=True, slots=True)
class ToolLog:
    """One message a tool logged: its ``level``, ``data`` (text or a JSON value), and the
    ``logger`` it names, if any."""

    level: LogLevel
    data: Any
    logger: str | None = None


LogSink = Callable[[ToolLog], None]
"""Where a call's log messages go: called with each, from whatever thread logs it."""

_relay: Relay[ToolLog] = Relay("tooldesign_log_sink")
attach = _relay.attach
"""Send the messages logged in the running context to a sink too, until :func:`detach`."""
detach = _relay.detach
"""Undo the :func:`attach` that returned its argument: its sink is closed for good."""


def log_message(level: LogLevel, data: Any, *, logger: str | None = None) -> None:
    """Log ``data`` (a message, or any JSON value) at ``level`` from the running call.

    ``logger`` names the part of the tool speaking (a listener may fill in the tool's name). A level that is
    not one of :data:`LOG_LEVELS` is read as ``info``; text longer than 4,000 characters is cut.
    """
    if level not in LOG_LEVELS:
        log.debug("log level %r is not an MCP level: read as info", level)
        level = "info"
    if isinstance(data, str) and len(data) > _MAX_TEXT:
        data = data[: _MAX_TEXT - 1] + "…"
    message = ToolLog(level, data, logger)
    sink = _relay.sink()
    if sink is None:
        name = "tooldesign.tools" + (f".{message.logger}" if message.logger else "")
        logging.getLogger(name).log(_PYTHON_LEVELS[level], "%s", data)
        return
    try:
        sink(message)
    except Exception:  # an observer's failure never reaches the tool
        log.debug("a log sink failed", exc_info=True)


@contextmanager
def logs_to(sink: LogSink) -> Iterator[None]:
    """Send the messages logged inside the block (and by the threads it starts through the
    runtime) to ``sink`` as well as to whoever listened before; after the block, ``sink``
    hears nothing more, from any thread."""
    with _relay.to(sink):
        yield


def at_least(level: LogLevel, threshold: LogLevel) -> bool:
    """Whether ``level`` is as severe as ``threshold`` or more."""
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


__all__ = [
    "LOG_LEVELS",
    "Attached",
    "LogLevel",
    "LogSink",
    "ToolLog",
    "at_least",
    "attach",
    "detach",
    "log_message",
    "logs_to",
]
