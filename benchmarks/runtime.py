"""Per-call cost of the runtime, against doing the same work by hand.

In one process, side by side (medians of --repeat rounds, each of --calls calls):
  (a) baseline: pydantic ``model_validate_json`` of a 10-field payload, a trivial handler,
      ``model_dump_json`` of the result;
  (b) the same tool through ``Runtime.execute`` with two interceptors (LogCalls and RateLimit);
  (c) a jsonschema pipeline: Draft 2020-12 validator built once, then ``json.loads``,
      ``validate``, the handler, ``json.dumps``.
Targets: b/a ≤ 2.5 and c/b ≥ 3. Also: 10,000 concurrent ``execute`` calls on one event loop
(wall time and peak memory), and variants for context (no interceptors, Timeout, a sync
handler run in a worker thread).

Run: python benchmarks/runtime.py [--calls N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

DESIGN = """
from tooldesign.dsl import *

with Service("bench", "Benchmark service"):
    with Toolset("scoring", "Score things"):
        with Tool("score", "Score an item"):
            with Args():
                Attribute("item_id", String, "Item", pattern=r"^item-[0-9]+$")
                Attribute("name", String, "Name", max_length=80)
                Attribute("category", String, "Category", enum=["a", "b", "c"])
                Attribute("quantity", Int, "Quantity", minimum=0, maximum=1000)
                Attribute("price", Float, "Price", minimum=0)
                Attribute("discount", Float, "Discount", minimum=0, maximum=1, default=0.0)
                Attribute("express", Boolean, "Express delivery")
                Attribute("tags", ArrayOf(String), "Tags")
                Attribute("note", String, "Note")
                Attribute("priority", Int, "Priority", minimum=1, maximum=5, default=3)
                Required("item_id", "name", "category", "quantity", "price")
            with Return():
                Attribute("item_id", String, "Item")
                Attribute("score", Float, "Score")
                Required("item_id", "score")
"""

PAYLOAD = json.dumps(
    {
        "item_id": "item-42",
        "name": "Widget",
        "category": "b",
        "quantity": 12,
        "price": 9.5,
        "discount": 0.1,
        "express": True,
        "tags": ["blue", "large"],
        "note": "handle with care",
        "priority": 2,
    }
)


def generate_package(work: Path) -> Any:
    from tooldesign.codegen.pipeline import generate

    design = work / "bench_design.py"
    design.write_text(DESIGN)
    generate([str(design)], work / "benchgen")
    sys.path.insert(0, str(work))
    return importlib.import_module("benchgen.bench.toolsets.scoring.executor")


def median_us(samples: list[float], calls: int) -> float:
    return statistics.median(samples) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import jsonschema
    from tooldesign.runtime import LogCalls, RateLimit, Runtime, Timeout, ToolCallMeta, ToolRequest

    work = Path(tempfile.mkdtemp(prefix="tooldesign-runtime-bench-"))
    executor = generate_package(work)
    types = importlib.import_module("benchgen.bench.toolsets.scoring.types")
    specs = importlib.import_module("benchgen.bench.toolsets.scoring.specs")
    payload_model, result_model = types.ScorePayload, types.ScoreResult

    def score(args: Any) -> Any:
        return result_model(item_id=args.item_id, score=args.price * args.quantity)

    async def score_async(args: Any, meta: ToolCallMeta) -> Any:
        return score(args)

    def score_sync(args: Any, meta: ToolCallMeta) -> Any:
        return score(args)

    def runtime_with(handler: Callable[..., Any], interceptors: list[Any]) -> Runtime:
        registration = executor.new_registration(handlers={"score": handler})
        return Runtime([registration], interceptors=interceptors)

    request = ToolRequest("score", PAYLOAD, ToolCallMeta(tool_call_id="call-1"))
    calls, rounds = args.calls, args.repeat

    def run_baseline() -> float:
        started = time.perf_counter()
        for _ in range(calls):
            result_model_json = score(payload_model.model_validate_json(PAYLOAD)).model_dump_json()
        assert result_model_json
        return time.perf_counter() - started

    validator = jsonschema.Draft202012Validator(specs.SCORE_SPEC.payload.schema)

    def run_jsonschema() -> float:
        started = time.perf_counter()
        for _ in range(calls):
            data = json.loads(PAYLOAD)
            validator.validate(data)
            out = {"item_id": data["item_id"], "score": data["price"] * data["quantity"]}
            json.dumps(out)
        return time.perf_counter() - started

    async def run_runtime(runtime: Runtime) -> float:
        started = time.perf_counter()
        for _ in range(calls):
            result = await runtime.execute(request)
        assert result.ok, result.for_model()
        return time.perf_counter() - started

    def timed_runtime(runtime: Runtime) -> list[float]:
        async def rounds_() -> list[float]:
            await run_runtime(runtime)  # warm up
            return [await run_runtime(runtime) for _ in range(rounds)]

        return asyncio.run(rounds_())

    run_baseline()  # warm up
    a = median_us([run_baseline() for _ in range(rounds)], calls)
    c = median_us([run_jsonschema() for _ in range(rounds)], calls)
    two = [LogCalls(), RateLimit(rate=1e9, burst=10**9)]
    b = median_us(timed_runtime(runtime_with(score_async, two)), calls)
    bare = median_us(timed_runtime(runtime_with(score_async, [])), calls)
    with_timeout = median_us(timed_runtime(runtime_with(score_async, [*two, Timeout(5.0)])), calls)
    sync_calls = max(calls // 5, 200)
    calls, saved = sync_calls, calls
    threaded = median_us(timed_runtime(runtime_with(score_sync, two)), calls)
    calls = saved

    # 10,000 concurrent calls on one event loop.
    concurrent = 10_000
    runtime = runtime_with(score_async, two)

    async def storm() -> tuple[float, int]:
        tasks: list[Awaitable[Any]] = [
            runtime.execute(ToolRequest("score", PAYLOAD, ToolCallMeta(tool_call_id=f"c{i}")))
            for i in range(concurrent)
        ]
        started = time.perf_counter()
        results = await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
        return elapsed, sum(1 for r in results if r.ok)

    tracemalloc.start()
    storm_seconds, ok = asyncio.run(storm())
    _, peak_bytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(
        f"tooldesign runtime benchmark: {args.calls} calls x {rounds} rounds (medians), 10-field payload"
    )
    print(f"  (a) pydantic validate + handler + dump          {a:8.1f} us/call")
    print(
        f"  (b) Runtime.execute, LogCalls + RateLimit         {b:8.1f} us/call   b/a = {b / a:.2f} (target <= 2.5)"
    )
    print(
        f"  (c) jsonschema validate + handler + json.dumps   {c:8.1f} us/call   c/b = {c / b:.2f} (target >= 3)"
    )
    print(f"      Runtime.execute, no interceptors             {bare:8.1f} us/call")
    print(f"      Runtime.execute, + Timeout                   {with_timeout:8.1f} us/call")
    print(f"      Runtime.execute, sync handler in a thread    {threaded:8.1f} us/call")
    print(
        f"  {concurrent} concurrent execute calls: {storm_seconds:.3f} s, {ok} ok, "
        f"peak traced memory {peak_bytes / 2**20:.1f} MB, process peak RSS {rss_mb:.0f} MB"
    )


if __name__ == "__main__":
    main()
