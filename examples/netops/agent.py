"""A small agent loop over the generated netops toolsets, driven by a scripted planner.

No network and no API key: ``ScriptedPlanner`` stands in for the model. It makes the mistakes
models make (a missing field), and acts on each failed call's recovery: ``correct_call`` (it
repairs the call from the retry hint), ``replan`` (it takes another step), ``finish`` (it
stops). Restarting a device needs a person's approval (the design's ``Confirm``): the loop asks
the operator, then runs the exact call that was approved. Probing a host reports progress,
which an event subscriber (a UI, say) receives.

Run it from the repository root:  python -m examples.netops.agent

The same toolsets in an agent framework, with the framework's own scripted model
(``examples/netops/frameworks``):

    python -m examples.netops.agent --framework pydantic-ai     # or openai-agents, langchain

Code mode: the model writes one piece of code that calls the tools (``examples/netops/code_mode.py``
runs a multi-step task both ways and prints turns and tokens side by side):

    python -m examples.netops.agent --code-mode
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tooldesign.runtime import (
    ApprovalDecision,
    ApprovalRequest,
    CallEvent,
    CallProgress,
    CallStarted,
    Interceptor,
    LogCalls,
    RateLimit,
    Recovery,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    ToolsetRegistration,
)

from examples.netops.diagnosis import diagnose_site
from examples.netops.services import (
    DeviceService,
    DocumentService,
    Inventory,
    MetricsService,
    NotFoundError,
    ProfileService,
    SiteService,
)
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.diagnosis import executor as diagnosis
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites


async def restart_device(
    args: device_types.RestartDevicePayload, meta: ToolCallMeta
) -> device_types.RestartDeviceResult:
    """restart_device has no BindTo: the application handles it."""
    return device_types.RestartDeviceResult(accepted=True, job_id=f"restart-{args.device_id}")


def registrations(inventory: Inventory) -> list[ToolsetRegistration]:
    """The netops toolsets, served by the example's services over ``inventory``."""
    return [
        sites.new_registration(service=SiteService(inventory)),
        devices.new_registration(
            service=DeviceService(inventory), handlers={"restart_device": restart_device}
        ),
        metrics.new_registration(service=MetricsService(inventory)),
        profiles.new_registration(service=ProfileService()),
        docs.new_registration(service=DocumentService()),
        # An agent is its implementation (ImplementedByAgent): its calls are the run's own, and
        # an approval they need is asked of the outer call's person.
        diagnosis.new_registration(handlers={"diagnose_site": diagnose_site}),
    ]


def build_runtime(*, interceptors: Sequence[Interceptor] = (), rate_limit: bool = True) -> Runtime:
    """The example's runtime; ``interceptors`` run after the example's own (without its rate
    limit for a task that makes many calls at once: code mode's)."""
    return Runtime(
        registrations(Inventory()),
        interceptors=[
            LogCalls(),
            Timeout(5.0),
            *([RateLimit(rate=20, burst=5)] if rate_limit else []),
            *interceptors,
        ],
        expose=(NotFoundError,),
    )


@dataclass
class ScriptedPlanner:
    """Plays the model: one tool call per turn, decided from the previous result.

    Its plan: find an offline device at the goal site, restart it, then check the device; on a
    failure it does what the result's recovery says.
    """

    goal_site: str = "hq"
    turn: int = 0
    seen: list[str] = field(default_factory=list)
    target: str | None = None
    restarted: bool = False
    replanned: bool = False

    def next_call(self, previous: ToolResult | None) -> tuple[str, dict[str, Any]] | None:
        self.turn += 1
        if previous is None:
            # A typical first attempt: the model forgets a required argument.
            return "list_devices", {"status": "offline", "limit": 5}
        hint = previous.retry_hint
        if previous.recovery is Recovery.CORRECT_CALL and hint is not None and hint.missing_fields:
            # Repair from the hint: keep what was sent, add what is missing.
            repaired = dict(hint.prior_input or {})
            for name in hint.missing_fields:
                repaired[name] = (
                    self.goal_site if name == "site_id" else (hint.example_input or {}).get(name)
                )
            return hint.tool, repaired
        if previous.recovery is Recovery.REPLAN and not self.replanned:
            # The tool cannot help with this now: another way to the goal.
            self.replanned = True
            return "search_docs", {"query": "device offline after restart", "kinds": ["runbook"]}
        if previous.recovery is Recovery.FINISH or not previous.ok:
            return None
        if previous.bounds is not None and self.target is None:
            if previous.bounds.truncated:
                self.seen.append(previous.bounds.refinement_hint or "")
            self.target = json.loads(previous.for_model())["devices"][0]["id"]
            return "restart_device", {
                "device_id": self.target,
                "reason": "offline since last night",
            }
        if not self.restarted:
            self.restarted = True
            # The model misremembers the id it just restarted: get_device answers replan.
            return "get_device", {"device_id": "dev-ffffffff"}
        return None


class Operator:
    """The person who approves restarts (a UI would ask them; here the script answers)."""

    def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        print(f"the operator is asked: {request.prompt}")
        print(f"  exact call: {request.tool}({json.dumps(dict(request.arguments))})")
        return request.approve(by="operator alice")


def show(label: str, text: str) -> None:
    print(f"{label}\n  " + text.replace("\n", "\n  "))


FRAMEWORKS = {
    "pydantic-ai": "examples.netops.frameworks.pydantic_ai",
    "openai-agents": "examples.netops.frameworks.openai_agents",
    "langchain": "examples.netops.frameworks.langchain",
}
"""Each framework's variant of the agent (its module has ``run(runtime)``)."""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.netops.agent")
    parser.add_argument(
        "--framework",
        choices=sorted(FRAMEWORKS),
        help="run the agent in this framework (with its scripted model) instead of the plain loop",
    )
    parser.add_argument(
        "--code-mode",
        action="store_true",
        help="run a multi-step task with one tool call per turn, then as code (run_code)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    runtime = build_runtime()
    if args.code_mode:
        from examples.netops import code_mode

        code_mode.run(build_runtime(rate_limit=False), Operator().decide)
        return
    if args.framework is not None:
        # Imported only when asked for: each needs its framework installed.
        importlib.import_module(FRAMEWORKS[args.framework]).run(runtime)
        return
    planner = ScriptedPlanner()
    operator = Operator()
    meta = ToolCallMeta(session_id="sess-alice", run_id="run-1")
    previous: ToolResult | None = None
    while (call := planner.next_call(previous)) is not None:
        name, arguments = call
        print(f"\n── turn {planner.turn}: the model calls {name}({json.dumps(arguments)})")
        request = ToolRequest(name, json.dumps(arguments), meta)
        previous = runtime.execute_sync(request)
        if previous.awaiting_approval and previous.approval is not None:
            # Nothing ran yet. Ask the person, then run exactly the call they approved (the
            # request could be stored and decided later, in another process: its id is stable).
            decision = operator.decide(previous.approval)
            previous = runtime.execute_sync(request, approvals=[decision])
            print(f"approved by {decision.by}; the call ran")
        show("what goes back to the model:", previous.for_model())
        if previous.retry_hint is not None:
            hint = previous.retry_hint
            print(
                f"retry hint: reason={hint.reason}, missing={list(hint.missing_fields)}, example={hint.example_input}"
            )
        if previous.recovery is not None:
            print(f"recovery: {previous.recovery}")
        if previous.bounds is not None:
            b = previous.bounds
            print(f"bounds: returned={b.returned} total={b.total} truncated={b.truncated}")
            print(f"refinement hint: {b.refinement_hint}")
    # Server data reaches observers (a UI), never the model.
    chart = runtime.execute_sync(
        ToolRequest(
            "get_time_series",
            {"device_id": "dev-00000000", "metric": "latency", "window": "1h"},
            ToolCallMeta(session_id="sess-alice", server_data={"atlas.time_series": True}),
        )
    )
    print("\n── get_time_series with the chart data switched on for this call")
    show("what goes back to the model:", chart.for_model())
    for item in chart.server_data:
        print(f"server data for observers: {item.kind} ({type(item.data).__name__})")
    # A long tool reports progress; an event subscriber (a UI) receives it on its own thread.
    progress: list[str] = []

    def on_event(event: CallEvent) -> None:
        if isinstance(event, CallProgress):
            progress.append(f"{event.progress:g}/{event.total:g} {event.message}")

    subscription = runtime.subscribe(on_event)
    probe = runtime.execute_sync(ToolRequest("check_reachability", {"value": "core.hq"}, meta))
    subscription.close()  # delivers what is queued first
    print("\n── check_reachability, watched by an event subscriber")
    for line in progress:
        print(f"progress: {line}")
    show("what goes back to the model:", probe.for_model())
    # An agent as a tool: diagnose_site's inner agent lists devices and reads metrics (calls
    # nested under this one, in the user's session); the restart it decides on waits for the
    # same operator, and the inner run resumes once they decide.
    print("\n── diagnose_site, a tool whose implementation is an agent")
    nested: list[str] = []

    def on_inner(event: CallEvent) -> None:
        if isinstance(event, CallStarted) and event.parent_tool_call_id is not None:
            nested.append(f"{event.name} (inside {event.parent_tool_call_id})")

    subscription = runtime.subscribe(on_inner)
    diagnose = ToolRequest("diagnose_site", {"site_id": "hq"}, replace(meta, tool_call_id="t-9"))
    diagnosed = runtime.execute_sync(diagnose)
    if diagnosed.awaiting_approval and diagnosed.approval is not None:
        decision = operator.decide(diagnosed.approval)
        diagnosed = runtime.execute_sync(diagnose, approvals=[decision])
    subscription.close()
    for line in nested:
        print(f"inner call: {line}")
    show("what goes back to the model:", diagnosed.for_model())


if __name__ == "__main__":
    main()
