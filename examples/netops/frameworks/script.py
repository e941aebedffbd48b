"""The conversation every framework variant of the example agent has with its scripted model.

1. The model forgets ``list_devices``' ``site_id`` and reads the retry hint.
2. It makes three calls at once: the repaired ``list_devices`` (a bounded result),
   ``get_profile`` with a session id of its own (an injected field: the runtime discards it and
   uses the run's session), and ``get_time_series`` with the chart switched on for the UI
   (server data: for the application, never for the model).
3. It restarts a device: the design's ``Confirm`` makes the call wait for a person, in the
   framework's own approval flow; the operator approves, and exactly that call runs.
4. It asks for a diagnosis of nyc: ``diagnose_site`` is implemented by an agent, whose inner run
   restarts an offline device — that restart waits for the operator in the framework's own
   approval flow (in the Agents SDK, which decides approvals before a call runs, the runtime's
   approver asks them), and the resumed tool answers with the typed diagnosis.
5. It answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tooldesign.runtime import ToolCallMeta, ToolResult

SESSION = "sess-alice"
"""The signed-in user's session: the run's, never the model's."""


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call the scripted model makes."""

    name: str
    arguments: dict[str, Any]
    call_id: str


TURNS: tuple[tuple[Call, ...], ...] = (
    (Call("list_devices", {"status": "offline", "limit": 5}, "call-1"),),
    (
        Call("list_devices", {"status": "offline", "limit": 5, "site_id": "hq"}, "call-2"),
        Call("get_profile", {"session_id": "sess-bob"}, "call-3"),
        Call(
            "get_time_series",
            {"device_id": "dev-00000000", "metric": "latency", "window": "1h"},
            "call-4",
        ),
    ),
)
"""The model's tool calls, turn by turn."""

RESTART = Call("restart_device", {"device_id": "dev-00000000", "reason": "stuck port"}, "call-5")
"""The model's third turn: a call the design's ``Confirm`` makes wait for a person."""

DIAGNOSE = Call("diagnose_site", {"site_id": "nyc"}, "call-6")
"""The model's fourth turn: a tool implemented by an agent, whose inner restart waits too."""

SCRIPT: tuple[tuple[Call, ...], ...] = (*TURNS, (RESTART,), (DIAGNOSE,))
"""Every turn of the model's tool calls, in order."""

OPERATOR = "operator alice"
"""Who approves the restart."""

ANSWER = "5 of the 8 offline devices at hq are listed; raise the limit to 8 to see them all."
"""What the model says when it is done."""


def show_approval(prompt: str) -> None:
    """What the operator is asked, as they approve it."""
    print(f"the operator approves: {prompt}")


def session_meta(session_id: str) -> ToolCallMeta:
    """A call's metadata in the user's session: the injected session id, and the chart data
    switched on (it goes to the UI, not to the model)."""
    return ToolCallMeta(session_id=session_id, server_data={"atlas.time_series": True})


def show_calls(turn: int, calls: list[tuple[str, Any]]) -> None:
    """The calls of one turn of the model, as ``(name, arguments)``."""
    listed = ", ".join(f"{name}({json.dumps(arguments)})" for name, arguments in calls)
    print(f"\n── turn {turn}: the model calls {listed}")


def show_answer(call_id: str, text: str, result: ToolResult | None) -> None:
    """What the model reads for one call, and what only the application sees."""
    shown = text if len(text) <= 300 else text[:300] + "…"
    print(f"{call_id}, the model reads:\n  " + shown.replace("\n", "\n  "))
    if result is None:
        return
    if result.bounds is not None:
        b = result.bounds
        print(
            f"  the application: bounds returned={b.returned} total={b.total} truncated={b.truncated}"
        )
    if result.server_data:
        kinds = ", ".join(item.kind for item in result.server_data)
        print(f"  the application: server data {kinds}")
    approval = result.telemetry.approval
    if result.approval is not None and approval is not None:
        by = f" by {approval.by}" if approval.by else ""
        verdict = "approved" if approval.granted else "denied"
        print(f"  the application: {verdict}{by}: {result.approval.prompt}")
    if result.telemetry.discarded_injected:
        print(
            f"  the application: discarded the model's {', '.join(result.telemetry.discarded_injected)}"
        )
