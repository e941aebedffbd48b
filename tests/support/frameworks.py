"""The worked example in agent frameworks, as tests check it: the scripted conversation
(``examples/netops/frameworks/script.py``) and what every framework must make of it."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from tooldesign.runtime import Bounds, Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.registration import CallNext

from examples.netops.agent import build_runtime
from examples.netops.frameworks.script import ANSWER, SESSION, TURNS, session_meta
from gen.assistant.toolsets.devices.types import ListDevicesResult
from gen.assistant.toolsets.profiles.types import Profile

__all__ = [
    "ANSWER",
    "SESSION",
    "SHORT_WINDOW",
    "TURNS",
    "Answer",
    "Overlap",
    "check_conversation",
    "netops_runtime",
    "session_meta",
]

SHORT_WINDOW = {
    "device_ids": ["dev-00000000"],
    "start": "2026-11-21T22:00:00Z",
    "duration_minutes": 30,
    "reason": "Firmware upgrade",
}
"""A maintenance window short enough that the design's ``Confirm`` (``when``) does not ask."""

HINT = "site_id: required field is missing (expected string) — Site identifier"
"""What the retry hint for the first call says, in the runtime's words."""


class Overlap:
    """An interceptor that counts how many calls run at once (each lingers a moment, so calls
    a framework runs in parallel overlap). Thread-safe: a sync framework runs calls in threads,
    each on its own event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.running = 0
        self.most = 0

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(0.05)
            result: ToolResult = await call_next(request, meta)
            return result
        finally:
            with self._lock:
                self.running -= 1


def netops_runtime() -> tuple[Runtime, Overlap]:
    """The example's runtime, with an :class:`Overlap` watching its calls."""
    overlap = Overlap()
    return build_runtime(interceptors=[overlap]), overlap


@dataclass(frozen=True)
class Answer:
    """What a framework sent the model for one call, and what it gave the application."""

    text: str
    result: ToolResult | None


def check_conversation(
    answers: dict[str, Answer], second_turn_input: str, overlap: Overlap
) -> None:
    """What every framework must make of the script, by call id.

    ``second_turn_input`` is what the model was sent before its second turn (as text).
    """
    first = answers["call-1"]
    # An invalid call: the model reads the retry hint, in full, before it repairs the call.
    assert HINT in first.text
    assert HINT in second_turn_input
    assert "Call 'list_devices' again with corrected arguments." in second_turn_input

    # A valid call to a bounded tool: the model reads the runtime's encoding, the application
    # gets the typed result and its bounds.
    devices = answers["call-2"]
    assert devices.result is not None and devices.result.ok
    assert isinstance(devices.result.result, ListDevicesResult)
    assert devices.text == devices.result.result_json
    assert devices.result.bounds == Bounds(
        returned=5,
        total=8,
        truncated=True,
        refinement_hint="8 offline devices match: raise limit to 8 to see them all.",
    )
    assert [d.site_id for d in devices.result.result.devices] == ["hq"] * 5

    # The model's value for the injected session id is discarded: the run's session is used.
    profile = answers["call-3"]
    assert profile.result is not None and isinstance(profile.result.result, Profile)
    assert profile.result.result.user_id == "u-alice"
    assert profile.result.telemetry.discarded_injected == ("session_id",)
    assert "u-alice" in profile.text and "u-bob" not in profile.text

    # Server data reaches the application, never the model.
    series = answers["call-4"]
    assert series.result is not None
    assert {item.kind for item in series.result.server_data} == {
        "atlas.time_series",
        "atlas.thresholds",
    }
    assert '"points":12' in series.text and '"value"' not in series.text
    assert "critical" not in series.text

    # The three calls of the second turn ran at once.
    assert overlap.most >= 2, overlap.most
