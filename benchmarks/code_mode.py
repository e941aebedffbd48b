"""Code mode against direct tool calling, on the worked example, with a scripted model.

Side by side (medians of --repeat rounds, one process):
  (a) the multi-step task of ``examples/netops/code_mode.py`` — the online devices at a site
      whose CPU peaked above 70%, the worst restarted after approval — one tool call per turn
      (the baseline) and as one ``run_code``: turns, input tokens (the tool definitions and the
      whole conversation, each turn), output tokens, wall time;
  (b) the cost of one call made from code over the same call through ``Runtime.execute``:
      --calls calls of get_site in one run (from the first call's start to the last one's end,
      by the runtime's events: the sandbox's start left out), against --calls direct
      ``execute`` calls, in the same round; the ratio is the median of the rounds'. Target: ≤ 1.5×.
      Twice: with the host waiting for the sandbox in a thread (the default) and on the event
      loop's thread (``inline_seconds=0.02``, opted in);
  (c) what the model reads about the tools: every tool's definition (the OpenAI export) against
      ``run_code``'s, whose description is the typed API.
Tokens are counted with tiktoken's cl100k_base (the ``tokens`` extra), else estimated as
characters / 4.

Run: python benchmarks/code_mode.py [--repeat N] [--calls N]
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tooldesign.builtin.code_mode import code_mode_registration
from tooldesign.runtime import (
    CallEvent,
    CallFinished,
    CallStarted,
    Runtime,
    ToolCallMeta,
    ToolRequest,
)
from tooldesign.runtime.codemode import CodeLimits, CodeMode
from tooldesign.runtime.providers import export_tools
from tooldesign.runtime.providers.tokens import token_counter

from examples.netops import code_mode
from examples.netops.agent import build_runtime


def _runtime(calls: int = 50, inline_seconds: float = 0.0) -> Runtime:
    runtime = build_runtime(rate_limit=False)
    limits = CodeLimits(calls=calls + 10, wall_seconds=120)
    mode = CodeMode(runtime, limits=limits, inline_seconds=inline_seconds)
    runtime.register(code_mode_registration(mode))
    return runtime


def task(repeat: int) -> None:
    rows: dict[str, list[list[float]]] = {"direct": [], "code mode": []}
    for _ in range(repeat):
        with contextlib.redirect_stdout(io.StringIO()):
            runtime = _runtime()
            approve = lambda request: request.approve(by="bench")
            first = code_mode.direct(runtime, approve, ToolCallMeta(session_id="s", run_id="d"))
            second = code_mode.code_mode(runtime, approve, ToolCallMeta(session_id="s", run_id="c"))
        for name, figures in (("direct", first), ("code mode", second)):
            rows[name].append(
                [figures.turns, figures.input_tokens, figures.output_tokens, figures.seconds * 1000]
            )
    print("(a) the multi-step task (medians)")
    print(f"  {'':22}{'direct':>12}{'code mode':>12}{'ratio':>8}")
    for i, label in enumerate(("turns", "input tokens", "output tokens", "wall ms")):
        a = statistics.median(r[i] for r in rows["direct"])
        b = statistics.median(r[i] for r in rows["code mode"])
        print(f"  {label:22}{a:>12.0f}{b:>12.0f}{b / a:>8.2f}")


async def _overhead(calls: int, repeat: int, inline_seconds: float) -> None:
    runtime = _runtime(calls, inline_seconds)
    meta = ToolCallMeta(session_id="s", run_id="o")
    request = ToolRequest("get_site", {"site_id": "hq"}, meta)
    code = f"for i in range({calls}):\n    get_site(site_id='hq')\n0"
    # The code's calls are timed from the first one's start to the last one's end (the events'
    # clocks): the sandbox's start, which varies by milliseconds from run to run, is left out.
    inner: list[tuple[str, float]] = []

    def seen(event: CallEvent) -> None:
        if event.name == "get_site" and isinstance(event, CallStarted | CallFinished):
            inner.append((type(event).__name__, event.at))

    runtime.subscribe(seen)
    direct_times: list[float] = []
    code_times: list[float] = []
    starts: list[float] = []
    ratios: list[float] = []
    for _ in range(repeat):
        # Each round times both side by side, so a burst of load on the machine falls on
        # one round's pair rather than on one side; the ratio is the median of the rounds'.
        started = time.perf_counter()
        for _ in range(calls):
            result = await runtime.execute(request)
            assert result.ok
        direct_times.append((time.perf_counter() - started) / calls)
        inner.clear()
        started = time.perf_counter()
        result = await runtime.execute(ToolRequest("run_code", {"code": code}, meta))
        whole = time.perf_counter() - started
        assert result.ok, result.for_model()
        first = min(at for kind, at in inner if kind == "CallStarted")
        last = max(at for kind, at in inner if kind == "CallFinished")
        code_times.append((last - first) / calls)
        starts.append(whole - (last - first))
        ratios.append(code_times[-1] / direct_times[-1])
    direct = statistics.median(direct_times) * 1e6
    from_code = statistics.median(code_times) * 1e6
    ratio = statistics.median(ratios)
    waits = f"inline_seconds={inline_seconds}" + (" (the default)" if not inline_seconds else "")
    print(f"\n(b) one call of get_site, {waits} (medians of {repeat} rounds of {calls} calls)")
    print(f"  Runtime.execute (baseline)   {direct:8.1f} µs")
    print(f"  from code, in run_code       {from_code:8.1f} µs   ×{ratio:.2f} (target ≤ 1.5)")
    print(f"  the run's start and end      {statistics.median(starts) * 1e3:8.1f} ms")


def definitions() -> None:
    count = token_counter() or (lambda text: len(text) // 4)
    runtime = _runtime()
    specs = [s for s in runtime.specs() if s.name != "run_code"]
    every = count(json.dumps(export_tools(specs, "openai")))
    run_code = [s for s in runtime.specs() if s.name == "run_code"]
    one = count(json.dumps(export_tools(run_code, "openai")))
    print("\n(c) tool definitions the model reads each turn (OpenAI export, tokens)")
    print(f"  the 13 tools (baseline)      {every:8d}")
    print(f"  run_code with the typed API  {one:8d}   ×{one / every:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    task(args.repeat)
    for inline_seconds in (0.0, 0.02):  # the default, then waiting inline (opted in)
        asyncio.run(_overhead(args.calls, args.repeat, inline_seconds))
    definitions()


if __name__ == "__main__":
    main()
