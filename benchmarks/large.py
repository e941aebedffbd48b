"""Cold paths and large deployments: the 1,000-tool synthetic design (50 toolsets x 20 tools).

Each section prints tooldesign's figure next to its baseline (medians of --repeat runs):
  import   importing every generated executor of the 1,000 tools, in a fresh process with its
           bytecode cached, against importing pydantic and tooldesign.runtime alone
           (target: <= 1.0 s);
  mcp      an MCP server of the 1,000 tools started over stdio until it has listed them:
           tooldesign.runtime.mcp with the generated toolsets against the official SDK's own
           server (FastMCP in the ``mcp`` package) with 1,000 equivalent functions: resident
           memory and CPU to start (target: memory <= the SDK's);
  invalid  an invalid call to the text the model reads: ``Runtime.execute`` and ``for_model()``
           against pydantic-ai's paths for the same tool when pydantic-ai is installed (its tool
           validator, then the retried tool return its agent loop answers with, as OpenAI's and
           Anthropic's models read it, and the older ``RetryPromptPart``'s text), and against
           the floor (pydantic ``model_validate_json`` and ``str`` of its error) (target:
           <= 1.0x the fastest pydantic-ai path);
  sync     ``Runtime.execute_sync`` against ``await Runtime.execute`` (target: <= 2x);
  dict     arguments handed over parsed (a dict, as Anthropic, MCP and Gemini give them)
           against the same arguments as JSON text.

Run: python benchmarks/large.py [--repeat N] [--only import,mcp,invalid,sync,dict]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design

TOOLSETS, TOOLS = 50, 20

IMPORT_SCRIPT = """
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
started, cpu = time.perf_counter(), time.process_time()
import pydantic, tooldesign.runtime
if sys.argv[2] == "generated":
    for t in range(int(sys.argv[3])):
        importlib.import_module(f"synthetic.toolsets.toolset_{t:02d}.executor")
print(time.perf_counter() - started, time.process_time() - cpu)
"""


def fresh_env() -> dict[str, str]:
    """The environment for child processes: bytecode written and read, as in a deployment."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def import_seconds(gen: Path, what: str) -> tuple[float, float]:
    """(wall, CPU) seconds to import ``what`` in a fresh process."""
    ran = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT, str(gen), what, str(TOOLSETS)],
        capture_output=True,
        text=True,
        check=True,
        env=fresh_env(),
    )
    wall, cpu = ran.stdout.split()
    return float(wall), float(cpu)


def medians(samples: list[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(statistics.median(column) for column in zip(*samples, strict=True))


def section_import(gen: Path, repeat: int) -> None:
    import_seconds(gen, "generated")  # writes the bytecode
    ours = medians([import_seconds(gen, "generated") for _ in range(repeat)])
    floor = medians([import_seconds(gen, "floor") for _ in range(repeat)])
    print(f"import of the generated packages ({TOOLSETS * TOOLS} tools, bytecode cached):")
    print(
        f"  {'every executor (pydantic + runtime included)':<46} {ours[0]:6.2f} s wall  "
        f"{ours[1]:6.2f} s CPU   (target <= 1.0 s)"
    )
    print(
        f"  {'floor: pydantic + tooldesign.runtime alone':<46} {floor[0]:6.2f} s wall  "
        f"{floor[1]:6.2f} s CPU"
    )


OUR_SERVER = """
import asyncio, importlib, sys
sys.path.insert(0, sys.argv[1])
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import serve_stdio

def handler(args, meta):
    return {"results": [], "count": 0}

registrations = []
for t in range(int(sys.argv[2])):
    executor = importlib.import_module(f"synthetic.toolsets.toolset_{t:02d}.executor")
    names = [f"tool_{t:02d}_{n:02d}" for n in range(int(sys.argv[3]))]
    registrations.append(executor.new_registration(handlers={name: handler for name in names}))
asyncio.run(serve_stdio(Runtime(registrations)))
"""

SDK_SERVER = """
import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field


class Resource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: Annotated[str, Field(description="Resource id", pattern=r"^res-[0-9]+$")]
    name: Annotated[str, Field(description="Display name", max_length=80)]
    kind: Annotated[Literal["disk", "host", "link", "service"], Field(description="Kind of resource")]
    tags: Annotated[list[str] | None, Field(description="Tags")] = None


class Filter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    field: Annotated[str, Field(description="Field to filter on")]
    op: Annotated[Literal["eq", "ne", "lt", "gt"], Field(description="Comparison")]
    value: Annotated[str | None, Field(description="Value to compare with")] = None


class Result(BaseModel):
    results: Annotated[list[Resource], Field(description="Matching resources")]
    count: Annotated[int | None, Field(description="How many matched")] = None


server = MCPServer("synthetic")


def add(name: str, description: str) -> None:
    def tool(
        query: Annotated[str, Field(description="What to look for", min_length=1, max_length=200)],
        mode: Annotated[Literal["exact", "prefix", "fuzzy"] | None, Field(description="How to match")] = None,
        limit: Annotated[int, Field(description="Maximum results", ge=1, le=100)] = 20,
        filter: Annotated[Filter | None, Field(description="Extra filter")] = None,
        resources: Annotated[list[Resource] | None, Field(description="Resources to start from")] = None,
        include_archived: Annotated[bool | None, Field(description="Also search archived resources")] = None,
    ) -> Result:
        return Result(results=[], count=0)

    server.add_tool(tool, name=name, description=description)


for t in range(int(sys.argv[2])):
    for n in range(int(sys.argv[3])):
        add(f"tool_{t:02d}_{n:02d}", f"Do operation {n} of toolset {t}")
server.run("stdio")
"""


def _children() -> list[int]:
    """The live child processes of this one (the server the client started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.append(int(entry.name))
    return found


def _process_figures(pid: int) -> tuple[float, float]:
    """(resident MB, CPU seconds) of ``pid`` so far."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss, (int(fields[11]) + int(fields[12])) / ticks


def server_start(script: str, gen: Path) -> tuple[float, float, float, int]:
    """(resident MB, CPU s, wall s) of a server started over stdio until it listed its tools,
    and how many it listed (one of them called, to show it works)."""
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", script, str(gen), str(TOOLSETS), str(TOOLS)],
        env=fresh_env(),
    )

    async def run() -> tuple[float, float, float, int]:
        started = time.perf_counter()
        async with Client(params) as client:
            listed = (await client.list_tools()).tools
            wall = time.perf_counter() - started
            [pid] = _children()
            rss, cpu = _process_figures(pid)
            called = await client.call_tool("tool_00_01", {"query": "disk"})
            assert not called.is_error, called
        return rss, cpu, wall, len(listed)

    return anyio.run(run)


def section_mcp(gen: Path, repeat: int) -> None:
    server_start(OUR_SERVER, gen)  # writes the bytecode
    server_start(SDK_SERVER, gen)
    ours = medians([server_start(OUR_SERVER, gen) for _ in range(repeat)])
    sdk = medians([server_start(SDK_SERVER, gen) for _ in range(repeat)])
    print(f"MCP server of {TOOLSETS * TOOLS} tools over stdio, started until it listed them:")
    for label, (rss, cpu, wall, count) in (
        ("tooldesign.runtime.mcp, generated toolsets", ours),
        ("the SDK's MCPServer (FastMCP), functions", sdk),
    ):
        print(
            f"  {label:<46} {rss:6.0f} MB RSS  {cpu:5.2f} s CPU  {wall:5.2f} s wall  "
            f"{count:.0f} tools"
        )
    print(f"  {'memory, ours / SDK':<46} {ours[0] / sdk[0]:6.2f} x     (target <= 1.0)")


INVALID = json.dumps(
    {"item_id": "bad", "name": "Widget", "category": "z", "quantity": -1, "price": 9.5}
)


def per_call_us(run: Callable[[], object], calls: int, repeat: int) -> float:
    """Median microseconds per call of ``run`` over ``repeat`` rounds of ``calls``."""
    run()  # warm up
    rounds = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(calls):
            run()
        rounds.append(time.perf_counter() - started)
    return statistics.median(rounds) / calls * 1e6


def score_tool() -> tuple[Any, Any, Any]:
    """The runtime benchmark's 10-field tool: (its payload model, a Runtime, a request maker)."""
    from runtime import generate_package
    from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest

    work = Path(tempfile.mkdtemp(prefix="tooldesign-large-score-"))
    executor = generate_package(work)
    types = importlib.import_module("benchgen.bench.toolsets.scoring.types")

    async def score(args: Any, meta: Any) -> Any:
        return types.ScoreResult(item_id=args.item_id, score=args.price * args.quantity)

    runtime = Runtime([executor.new_registration(handlers={"score": score})])

    def request(payload: Any) -> Any:
        return ToolRequest("score", payload, ToolCallMeta(tool_call_id="call-1"))

    return types.ScorePayload, runtime, request


def in_loop(runtime: Any, request: Any, calls: int, repeat: int, *, read: bool = False) -> float:
    """Median microseconds per ``await runtime.execute(request)`` on one event loop (and, with
    ``read``, its ``for_model()``: the text the model reads)."""

    async def call() -> None:
        result = await runtime.execute(request)
        if read:
            result.for_model()

    async def rounds() -> float:
        await call()
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            for _ in range(calls):
                await call()
            samples.append(time.perf_counter() - started)
        return statistics.median(samples) / calls * 1e6

    return asyncio.run(rounds())


BAD_FIELDS = ("item_id", "category", "quantity")
"""The fields of ``INVALID`` the tool's design refuses (the other two are valid)."""


def pydantic_ai_paths(model: Any) -> dict[str, Callable[[], str]]:
    """pydantic-ai's answers to the invalid call, each to the text its model reads: the retried
    tool return its agent loop builds (pydantic-ai >= 2.6x), as OpenAI's models read it (wrapped
    in ``{"error": …}``) and as Anthropic's do (its native error channel), and the older
    ``RetryPromptPart`` (deprecated there: run with its warning filtered out, see
    :func:`section_invalid`). Empty without pydantic-ai."""
    import pydantic

    try:
        from pydantic_ai import Tool
        from pydantic_ai.messages import RetryPromptPart
    except ImportError:
        return {}

    def score(args: Any) -> float:
        return 0.0

    score.__annotations__ = {"args": model, "return": float}
    validator = Tool(score, takes_ctx=False).function_schema.validator

    def refused() -> pydantic.ValidationError:
        try:
            validator.validate_json(INVALID)
        except pydantic.ValidationError as exc:
            return exc
        raise AssertionError("the payload is invalid")

    def retry_prompt() -> str:
        part = RetryPromptPart.from_error(refused(), tool_name="score", tool_call_id="call-1")
        return part.model_response()

    legacy = {"pydantic-ai: validator + RetryPromptPart (older)": retry_prompt}
    try:  # what its agent loop answers a tool call with, when the version has it
        from pydantic_ai._output import build_retried_tool_return
    except ImportError:
        return legacy

    def retried(*, wrapped: bool) -> Callable[[], str]:
        def text() -> str:
            part = build_retried_tool_return(refused(), tool_name="score", tool_call_id="call-1")
            return part.model_response_str(wrap_if_error=wrapped)

        return text

    return {
        "pydantic-ai: retried ToolReturnPart, OpenAI": retried(wrapped=True),
        "pydantic-ai: retried ToolReturnPart, Anthropic": retried(wrapped=False),
        **legacy,
    }


def section_invalid(gen: Path, repeat: int) -> None:
    import warnings

    import pydantic

    model, runtime, request = score_tool()
    invalid = request(INVALID)
    text = asyncio.run(runtime.execute(invalid)).for_model()
    assert all(field in text for field in BAD_FIELDS), text
    calls = 2000
    ours = in_loop(runtime, invalid, calls, repeat, read=True)

    def floor() -> str:
        try:
            model.model_validate_json(INVALID)
        except pydantic.ValidationError as exc:
            return str(exc)
        raise AssertionError("the payload is invalid")

    floor_us = per_call_us(floor, calls, repeat)
    print(f"an invalid call ({len(BAD_FIELDS)} bad fields of 10) to the text the model reads:")
    print(f"  {'Runtime.execute + for_model()':<48} {ours:7.1f} us/call")
    print(
        f"  {'floor: model_validate_json + str(error)':<48} {floor_us:7.1f} us/call   "
        f"ours/floor = {ours / floor_us:.2f}"
    )
    paths = pydantic_ai_paths(model)
    if not paths:
        print("  (pydantic-ai not installed: pip install pydantic-ai-slim to compare with it)")
        return
    theirs = {}
    # Filtered once, not per call: a deprecation warning is pydantic-ai's to give, but
    # catching it on every call would be the benchmark's own cost.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, path in paths.items():
            said = path()
            assert all(field in said for field in BAD_FIELDS), said
            theirs[label] = per_call_us(path, calls, repeat)
            print(
                f"  {label:<48} {theirs[label]:7.1f} us/call   ours/it = {ours / theirs[label]:.2f}"
            )
    print(
        f"  {'ours / the fastest pydantic-ai path':<48} {ours / min(theirs.values()):7.2f} x"
        "         (target <= 1.0)"
    )


def section_sync(gen: Path, repeat: int) -> None:
    from runtime import PAYLOAD

    _, runtime, request = score_tool()
    valid = request(PAYLOAD)
    calls = 3000
    awaited = in_loop(runtime, valid, calls, repeat)
    sync = per_call_us(lambda: runtime.execute_sync(valid), calls, repeat)
    print("a valid call, synchronous against awaited:")
    print(f"  {'await Runtime.execute':<46} {awaited:7.1f} us/call")
    print(
        f"  {'Runtime.execute_sync':<46} {sync:7.1f} us/call   "
        f"sync/awaited = {sync / awaited:.2f} (target <= 2)"
    )


def section_dict(gen: Path, repeat: int) -> None:
    from runtime import PAYLOAD

    _, runtime, request = score_tool()
    calls = 3000
    text = in_loop(runtime, request(PAYLOAD), calls, repeat)
    parsed = in_loop(runtime, request(json.loads(PAYLOAD)), calls, repeat)
    print("a valid call's arguments, parsed (a dict) against JSON text:")
    print(f"  {'JSON text':<46} {text:7.1f} us/call")
    print(f"  {'a dict':<46} {parsed:7.1f} us/call   dict/text = {parsed / text:.2f}")


SECTIONS: dict[str, Callable[[Path, int], None]] = {
    "import": section_import,
    "mcp": section_mcp,
    "invalid": section_invalid,
    "sync": section_sync,
    "dict": section_dict,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--gen", type=Path, help="an existing generation of the synthetic design")
    args = parser.parse_args()
    only = args.only.split(",")
    with tempfile.TemporaryDirectory(prefix="tooldesign-large-") as folder:
        gen = args.gen
        # Only the import and mcp sections read the 1,000-tool design; the others build their own.
        if gen is None and {"import", "mcp"} & set(only):
            from tooldesign.generate import generate

            root = Path(folder)
            design = write_design(root / "design", toolsets=TOOLSETS, tools=TOOLS)
            started = time.perf_counter()
            generate([str(design)], root / "gen")
            gen = root / "gen"
            print(f"(generated the synthetic design in {time.perf_counter() - started:.1f} s)")
        print(f"tooldesign large-deployment benchmark: {args.repeat} runs each (medians)")
        for name in only:
            SECTIONS[name](gen or Path(folder), args.repeat)


if __name__ == "__main__":
    main()
