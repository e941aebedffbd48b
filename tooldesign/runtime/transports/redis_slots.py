"""A worker's slots: how many calls it may take, who gets the next free one, and parking.

One slot per call, from taking it to answering it. Calls of a dead worker waiting to be taken
over are *reserved* the next free slots: reading new calls leaves those free, so a busy worker
takes them over as fast as its calls end (not a few per claim round). A call waiting for its
tool's concurrency limit is *parked*: it gives its slot back (up to ``count`` parked calls), so
a slow tool cannot take every slot, and takes one again when it may run.
"""

from __future__ import annotations

import asyncio
import contextlib


class Slots:
    __slots__ = ("_freed", "count", "free", "parked", "reserved")

    def __init__(self, count: int) -> None:
        self.count = count
        self.free = count
        self.reserved = 0
        self.parked = 0
        self._freed = asyncio.Event()

    def take(self, most: int, *, claiming: bool = False) -> int:
        """Take up to ``most`` slots (reading leaves the reserved ones); how many were taken."""
        keep = 0 if claiming else self.reserved
        taken = max(0, min(most, self.free - keep))
        self.free -= taken
        return taken

    def give(self, count: int = 1) -> None:
        if count:
            self.free += count
            self._freed.set()

    def reserve(self, count: int) -> None:
        """Keep the next ``count`` free slots for calls being taken over."""
        self.reserved = min(count, self.count)

    async def freed(self, timeout: float | None = None) -> None:
        """Until a slot is given back (or ``timeout`` seconds)."""
        self._freed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._freed.wait()

    def wake(self) -> None:
        """Wake whoever waits for a slot, to look again."""
        self._freed.set()

    def park(self, parking: bool) -> bool:
        """A call starts (``True``) or stops waiting for its tool's limit; whether its slot was
        given back (then, and only then, it is taken again when it stops)."""
        if parking:
            if self.parked >= self.count:
                return False
            self.parked += 1
            self.give()
            return True
        self.parked -= 1
        self.free -= 1  # may go below 0 for a moment: nothing new is taken until calls end
        return True
