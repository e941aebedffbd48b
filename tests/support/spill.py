"""A model that reads a spilled result back in pieces, as each framework's scripted model plays
it: it lists the devices of a site (a result over the runtime's budget, spilled), then calls
``read_result`` from the offset each answer names until none is left."""

from __future__ import annotations

import json
import re
from typing import Any

from tooldesign.builtin.results import results_registration
from tooldesign.runtime import Limits, Runtime

from examples.netops.agent import registrations
from examples.netops.services import Inventory

BUDGET = 700
"""The runtime's result budget in bytes: the site's devices are ten times that."""

FIRST = ("list_devices", {"site_id": "hq", "limit": 50})
_READ = re.compile(r'read_result\(handle="([^"]+)", path="([^"]*)", offset=(\d+)\)')


def spilling_runtime(limits: Limits | None = None) -> Runtime:
    """The example's toolsets under a small budget that spills (or ``limits``), with
    ``read_result``."""
    limits = limits or Limits(result_bytes=BUDGET, result_overflow="spill")
    runtime = Runtime(registrations(Inventory()), limits=limits)
    runtime.register(results_registration(runtime))
    return runtime


def every_device_at_hq() -> list[str]:
    """The ids ``list_devices`` gives for hq, in its order."""
    return [d.id for d in Inventory().devices if d.site_id == "hq"][:50]


class Reader:
    """The model's side: each answer read (``texts``), the device ids found in order (``ids``)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.ids: list[str] = []
        self._handle: tuple[str, str] | None = None

    def next_call(self, answer: str | None) -> tuple[str, dict[str, Any]] | None:
        """The call to make after ``answer`` (``None``: the first), or ``None``: done."""
        if answer is None:
            return FIRST
        self.texts.append(answer)
        data, _, notice = answer.partition("\n\n[")
        value = json.loads(data)
        if self._handle is None:  # the preview: its first items, and where the rest is
            found = _READ.search(notice)
            assert found is not None, answer
            handle, path, offset = found.group(1), found.group(2), int(found.group(3))
            self._handle = (handle, path)
            self.ids += [d["id"] for d in value["devices"]]
        else:  # a piece: {"value": [...], "next_offset": n | null, ...}
            self.ids += [d["id"] for d in value["value"]]
            offset = value.get("next_offset")
            if offset is None:
                return None
        handle, path = self._handle
        return "read_result", {"handle": handle, "path": path, "offset": offset, "limit": 10}
