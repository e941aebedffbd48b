"""Pausing Python's cycle collector while a large, short-lived batch of objects is built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Pause the cycle collector for the block (it is left alone if it was off already).

    Generating, exporting or documenting a large catalog allocates enough containers to set off
    full collections that walk every live object: half the time of an export, and most of its
    variance. What these batches build holds no cycles worth collecting early, so reference
    counting frees it all the same.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
