"""A one-line progress display for commands that take seconds (``gen`` of a large design).

On a terminal, the line is rewritten in place (``\\r``, then "erase to the end of the line") as
the work goes on, and erased when it ends, so what stays on the screen is the command's own
output. Anywhere else (a pipe, a file, CI logs) nothing is shown.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WORDS = {
    "evaluate": "evaluating the design",
    "plan and catalogs": "planning",
    "render": "rendering",
    "format": "formatting",
    "write": "writing",
}
"""How each phase of ``gen`` is shown."""

_INTERVAL = 0.1
"""Seconds between two redraws of the same phase: often enough to see it move."""


class ProgressLine:
    """Call it with ``(phase, done, total)``; :meth:`close` erases the line."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self._shown = ""
        self._phase = ""
        self._drawn_at = 0.0

    @classmethod
    def for_terminal(cls, *, quiet: bool = False) -> ProgressLine | None:
        """A display on standard error when it is a terminal and ``quiet`` is not asked."""
        stream = sys.stderr
        if quiet or not stream.isatty():
            return None
        return cls(stream)

    def __call__(self, phase: str, done: int = 0, total: int = 0) -> None:
        now = time.monotonic()
        finished = total and done == total
        if phase == self._phase and not finished and now - self._drawn_at < _INTERVAL:
            return
        self._phase, self._drawn_at = phase, now
        words = _WORDS.get(phase, phase)
        count = f" {done}/{total} toolset{'s' if total != 1 else ''}" if total else "…"
        self._draw(f"tooldesign: {words}{count}")

    def close(self) -> None:
        """Erase the line (before the command prints its result)."""
        if self._shown:
            self._draw("")

    def _draw(self, text: str) -> None:
        self._shown = text  # first: a Ctrl-C during the write still has the line erased
        self.stream.write(f"\r\x1b[K{text}")
        self.stream.flush()
