"""The agent behind ``diagnose_site`` (``ImplementedByAgent`` in the design), as a plain async
function running its own loop: a scripted "model" decides each step, and every tool call goes
through the runtime as a call of the inner run (``task.call``): nested under the outer call,
counted against the design's budget, in the user's session (the design forwards
``session_id``), and a restart it decides on waits for the outer call's approver.

The same agent in pydantic-ai is :func:`pydantic_ai_diagnoser` (``examples/netops/frameworks``).
"""

from __future__ import annotations

import json

from tooldesign.runtime import AgentTask, ToolResult

from gen.assistant.toolsets.diagnosis import types as t


async def diagnose_site(
    task: AgentTask[t.DiagnoseSitePayload],
) -> t.DiagnoseSiteResult | ToolResult:
    """Look at the site's offline devices and their packet loss; restart the first offline one."""
    site = task.args.site_id
    task.turn()  # one model request: "which devices are offline?"
    listed = await task.call("list_devices", {"site_id": site, "status": "offline", "limit": 3})
    if not listed.ok:
        return listed  # the inner run's failure, as the outer call's answer
    devices = json.loads(listed.for_model())["devices"]
    findings: list[t.DiagnoseSiteResultFindingsItem] = []
    for device in devices[:2]:
        task.turn()  # "how lossy is it?"
        loss = await task.call(
            "get_time_series", {"device_id": device["id"], "metric": "packet_loss"}
        )
        mean = json.loads(loss.for_model())["mean"] if loss.ok else None
        findings.append(
            t.DiagnoseSiteResultFindingsItem(
                device_id=device["id"], problem=f"offline; mean packet loss {mean}%"
            )
        )
    if not findings:
        task.turn()
        return t.DiagnoseSiteResult(
            summary=f"Nothing is offline at {site}.", findings=[], action="none"
        )
    task.turn()  # "restart the first one" (it needs a person's approval: the outer call's)
    restart = await task.call(
        "restart_device",
        {"device_id": findings[0].device_id, "reason": "offline, seen by diagnose_site"},
    )
    task.turn()  # the answer
    action = "restart" if restart.ok else "escalate"
    return t.DiagnoseSiteResult(
        summary=f"{len(devices)} device(s) offline at {site}; "
        + ("the first was restarted." if restart.ok else "the restart did not happen."),
        findings=findings,
        action=action,
    )
