"""The worked example's multi-step task three ways, with a scripted model: one tool call per
turn, tooldesign's code mode (``run_code`` with the typed API), and FastMCP's code mode.

The task (``examples/netops/code_mode.py``): the online devices at a site whose CPU peaked
above 70%, the worst restarted after a person approves. Each way is played by a scripted model
that writes what a model would: the same calls, the same code. Figures per way, medians of
--repeat rounds: turns, input tokens (the tool definitions and the whole conversation, each
turn), output tokens (what the model writes), and wall time (the tools' work and the sandbox,
no model).

FastMCP's code mode (``fastmcp.experimental.transforms.CodeMode``, 4.x, on pydantic-monty too)
collapses the tools into ``search``, ``get_schema`` and ``execute``: a model that has not seen
the tools searches for them, asks for their schemas, then writes code with
``await call_tool(name, params)``. Its tools here are the example runtime's, each call through
``Runtime.execute`` (so both code modes call the same tools the same way); its code cannot
pause, so the restart's approval is decided inline by an approver (as MCP elicitation would).
FastMCP is a peer, pinned in the ``dev`` extra only (``pip install -e '.[dev]'``); without it
the column is left out.

Run: python benchmarks/code_mode_peers.py [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tooldesign.runtime import (
    ApprovalRequest,
    LogCalls,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
)

from examples.netops import code_mode
from examples.netops.agent import build_runtime, registrations
from examples.netops.services import Inventory, NotFoundError

FASTMCP_CODE = f"""
hot = []
page = await call_tool("list_devices", {{"site_id": "{code_mode.SITE}", "status": "online"}})
for device in page["devices"]:
    cpu = await call_tool("get_time_series", {{"device_id": device["id"], "metric": "cpu"}})
    if cpu["maximum"] > {code_mode.THRESHOLD}:
        hot.append((cpu["maximum"], device["id"]))
hot.sort()
peak, worst = hot[-1]
restart = await call_tool(
    "restart_device", {{"device_id": worst, "reason": "CPU peaked at " + str(peak) + "%"}}
)
return {{"above_threshold": len(hot), "restarted": worst, "peak": peak, "accepted": restart["accepted"]}}
"""
"""What the scripted model writes for FastMCP's ``execute``: the same task, its calling style."""

SEARCH = {"query": "list devices at a site, CPU time series, restart a device"}
SCHEMAS = {"tools": ["list_devices", "get_time_series", "restart_device"]}


def approve(request: ApprovalRequest) -> Any:
    return request.approve(by="bench")


def fastmcp_server(runtime: Runtime) -> Any:
    """A FastMCP server of the runtime's tools (each call through ``Runtime.execute``) with
    FastMCP's code mode over them."""
    from fastmcp import FastMCP
    from fastmcp.experimental.transforms.code_mode import CodeMode
    from fastmcp.tools.base import Tool, ToolResult
    from mcp.types import TextContent

    class RuntimeTool(Tool):
        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            meta = ToolCallMeta(session_id="sess-alice", run_id="fastmcp")
            result = await runtime.execute(ToolRequest(self.name, arguments, meta))
            text = result.for_model()
            return ToolResult(
                content=[TextContent(type="text", text=text)],
                structured_content=json.loads(text) if result.ok else None,
                is_error=not result.ok,
            )

    server = FastMCP("netops", transforms=[CodeMode()])
    for spec in runtime.specs():
        if spec.name == "run_code":
            continue
        server.add_tool(
            RuntimeTool(
                name=spec.name,
                description=spec.description,
                parameters=dict(spec.payload.schema),
                # As a typed FastMCP tool has: get_schema shows what a call returns.
                output_schema=dict(spec.result.schema),
            )
        )
    return server


async def fastmcp_way() -> code_mode.Figures:
    """Search, schemas, one execute, the answer: what a model does with FastMCP's code mode."""
    from fastmcp import Client

    # The example's runtime (its interceptors, without the rate limit), with an approver.
    runtime = Runtime(
        registrations(Inventory()),
        interceptors=[LogCalls(), Timeout(5.0)],
        expose=(NotFoundError,),
        approver=lambda request, meta: approve(request),
    )
    server = fastmcp_server(runtime)
    async with Client(server) as client:
        listed = await client.list_tools()
        definitions = json.dumps(
            [{"name": t.name, "description": t.description, "parameters": t.input_schema}
             for t in listed]
        )  # fmt: skip
        talk = code_mode._Conversation(definitions)
        started = time.perf_counter()
        answer: Any = None
        for name, arguments in (
            ("search", SEARCH),
            ("get_schema", SCHEMAS),
            ("execute", {"code": FASTMCP_CODE}),
        ):
            talk.turn(json.dumps({"name": name, "arguments": arguments}))
            result = await client.call_tool(name, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            talk.history += talk.count(text)
            answer = result.structured_content
        talk.turn(json.dumps(answer))
        talk.figures.seconds = time.perf_counter() - started
        talk.figures.answer = answer
    return talk.figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        import fastmcp  # noqa: F401
    except ImportError:
        peer = False
    else:
        peer = True
    ways = ["direct", "tooldesign code mode"] + (["FastMCP code mode"] if peer else [])
    rows: dict[str, list[list[float]]] = {way: [] for way in ways}
    answers: dict[str, Any] = {}
    for _ in range(args.repeat):
        with contextlib.redirect_stdout(io.StringIO()):
            runtime = build_runtime(rate_limit=False)
            found = {
                "direct": code_mode.direct(
                    runtime, approve, ToolCallMeta(session_id="s", run_id="d")
                ),
                "tooldesign code mode": code_mode.code_mode(
                    runtime, approve, ToolCallMeta(session_id="s", run_id="c")
                ),
            }
            if peer:
                found["FastMCP code mode"] = asyncio.run(fastmcp_way())
        for way, figures in found.items():
            rows[way].append(
                [figures.turns, figures.input_tokens, figures.output_tokens, figures.seconds * 1e3]
            )
            answers[way] = figures.answer
    print(f"the multi-step task, medians of {args.repeat} rounds")
    print(f"  {'':16}" + "".join(f"{way:>24}" for way in ways))
    for i, label in enumerate(("turns", "input tokens", "output tokens", "wall ms")):
        cells = "".join(f"{statistics.median(r[i] for r in rows[way]):>24,.0f}" for way in ways)
        print(f"  {label:16}{cells}")
    if not peer:
        print("  (FastMCP is not installed: pip install -e '.[dev]' for its column)")
    for way in ways:
        print(f"  {way}: {json.dumps(answers[way], sort_keys=True)}")


if __name__ == "__main__":
    main()
