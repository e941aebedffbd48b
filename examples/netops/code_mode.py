"""The worked example's multi-step task two ways: one tool call per turn, and code mode.

The task: find the online devices at a site whose CPU peaked above a threshold, then restart
the worst one, after a person approves. A scripted model plays both ways, so the figures are
reproducible: turns, the input tokens the model reads (tool definitions and the conversation so
far, each turn), the output tokens it writes (its calls), and wall time.

    python -m examples.netops.agent --code-mode
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooldesign.builtin.code_mode import code_mode_registration
from tooldesign.runtime import ApprovalRequest, Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.codemode import CodeMode
from tooldesign.runtime.providers.tokens import token_counter

SITE = "hq"
THRESHOLD = 70.0

CODE = f"""
hot = []
for device in list_devices(site_id="{SITE}", status="online")["devices"]:
    cpu = get_time_series(device_id=device["id"], metric="cpu")
    if cpu["maximum"] > {THRESHOLD}:
        hot.append((cpu["maximum"], device["id"]))
hot.sort()
peak, worst = hot[-1]
restart = restart_device(device_id=worst, reason="CPU peaked at " + str(peak) + "%")
{{"above_threshold": len(hot), "restarted": worst, "peak": peak, "accepted": restart["accepted"]}}
"""
"""What the scripted model writes in code mode: the whole task in one run."""


@dataclass
class Figures:
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    answer: Any = None


def _counter() -> Callable[[str], int]:
    count = token_counter()
    return count if count is not None else (lambda text: len(text) // 4)


def _definitions(runtime: Runtime, names: list[str] | None = None) -> str:
    """The tool definitions a model reads each turn (name, description, argument schema)."""
    return json.dumps(
        [
            {"name": s.name, "description": s.description, "parameters": dict(s.payload.schema)}
            for s in runtime.specs()
            if (s.name in names if names is not None else s.name != "run_code")
        ]
    )


class _Conversation:
    def __init__(self, definitions: str) -> None:
        self.count = _counter()
        self.definitions = self.count(definitions)
        self.history = self.count(f"Find the online devices at {SITE} above {THRESHOLD}% CPU.")
        self.figures = Figures()

    def turn(self, written: str) -> None:
        """The model reads everything so far and writes ``written``."""
        self.figures.turns += 1
        self.figures.input_tokens += self.definitions + self.history
        out = self.count(written)
        self.figures.output_tokens += out
        self.history += out

    def read(self, result: ToolResult) -> None:
        self.history += self.count(result.for_model())


Approve = Callable[[ApprovalRequest], Any]


def direct(runtime: Runtime, approve: Approve, meta: ToolCallMeta) -> Figures:
    """One tool call per turn, every result in the context."""
    talk = _Conversation(_definitions(runtime))
    started = time.perf_counter()

    def call(name: str, arguments: dict[str, Any]) -> ToolResult:
        talk.turn(json.dumps({"name": name, "arguments": arguments}))
        request = ToolRequest(name, json.dumps(arguments), meta)
        result = runtime.execute_sync(request)
        if result.awaiting_approval and result.approval is not None:
            result = runtime.execute_sync(request, approvals=[approve(result.approval)])
        talk.read(result)
        return result

    page = call("list_devices", {"site_id": SITE, "status": "online"})
    hot = []
    for device in json.loads(page.for_model())["devices"]:
        cpu = json.loads(
            call("get_time_series", {"device_id": device["id"], "metric": "cpu"}).for_model()
        )
        if cpu["maximum"] > THRESHOLD:
            hot.append((cpu["maximum"], device["id"]))
    hot.sort()
    peak, worst = hot[-1]
    restart = call("restart_device", {"device_id": worst, "reason": f"CPU peaked at {peak}%"})
    answer = {"above_threshold": len(hot), "restarted": worst, "peak": peak}
    answer["accepted"] = json.loads(restart.for_model())["accepted"]
    talk.turn(json.dumps(answer))  # the final answer
    talk.figures.seconds = time.perf_counter() - started
    talk.figures.answer = answer
    return talk.figures


def code_mode(runtime: Runtime, approve: Approve, meta: ToolCallMeta) -> Figures:
    """The same task as one run of code: one turn writes it, one answers."""
    if runtime.spec("run_code") is None:
        runtime.register(code_mode_registration(CodeMode(runtime)))
    talk = _Conversation(_definitions(runtime, ["run_code"]))
    started = time.perf_counter()
    talk.turn(json.dumps({"name": "run_code", "arguments": {"code": CODE}}))
    request = ToolRequest("run_code", json.dumps({"code": CODE}), meta)
    result = runtime.execute_sync(request)
    if result.awaiting_approval and result.approval is not None:
        # The run paused at restart_device; it resumes there once the person decides.
        result = runtime.execute_sync(request, approvals=[approve(result.approval)])
    talk.read(result)
    answer = json.loads(result.for_model())["value"]
    talk.turn(json.dumps(answer))
    talk.figures.seconds = time.perf_counter() - started
    talk.figures.answer = answer
    return talk.figures


def run(runtime: Runtime, approve: Approve) -> tuple[Figures, Figures]:
    """The task both ways, on ``runtime``; prints the figures side by side."""
    first = direct(runtime, approve, ToolCallMeta(session_id="sess-alice", run_id="direct"))
    second = code_mode(runtime, approve, ToolCallMeta(session_id="sess-alice", run_id="code"))
    print(f"{'':16}{'direct':>10}{'code mode':>12}")
    for label, a, b in (
        ("turns", first.turns, second.turns),
        ("input tokens", first.input_tokens, second.input_tokens),
        ("output tokens", first.output_tokens, second.output_tokens),
        ("wall ms", round(first.seconds * 1000), round(second.seconds * 1000)),
    ):
        print(f"{label:16}{a:>10}{b:>12}")
    print(f"answer: {json.dumps(second.answer)}")
    return first, second
