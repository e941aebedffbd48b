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

What the control features cost (approvals, recovery, events, tracing, repairs): the same call
through ``Runtime.execute`` (no interceptors, an async handler) in one process per variant —
OpenTelemetry not installed; ``opentelemetry-api`` installed with no SDK configured (what a user
of the ``otel`` extra gets until they set a tracer provider); the SDK with an in-memory
exporter; one event subscriber — and, with ``--baseline``, the runtime of another revision.
Rounds alternate between the processes (each waits while another runs), so the machine's
noise falls on every variant alike. Target: without an SDK and without a subscriber,
``execute`` stays within 5% of the baseline's per-call time.

Run: python benchmarks/runtime.py [--calls N] [--repeat N] [--control-rounds N]
                                  [--baseline REVISION_OR_PATH ...]
A baseline is a git revision (its ``tooldesign/`` is exported with ``git archive`` to a
temporary folder) or a folder holding a ``tooldesign/`` package. The runtime before the control
features: ``--baseline cb2e42e`` (main just before they were merged; ``8fdc0e0`` is where they
branched off, before the limits of docs/limits.md).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
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
    try:
        from tooldesign.generate import generate
    except ImportError:  # a baseline from before generate sat above eval and codegen
        from tooldesign.codegen.pipeline import generate  # type: ignore[attr-defined,no-redef]

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
    parser.add_argument(
        "--control-rounds", type=int, default=21, help="alternating rounds of the control section"
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REVISION_OR_PATH",
        help="a runtime to compare with (repeatable)",
    )
    parser.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve_rounds(args.worker)
        return

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
    control_section(args.calls, args.control_rounds, args.baseline)


# ── what the control features cost ────────────────────────────────────────────────────────

VARIANTS = ("no-otel", "no-sdk", "sdk", "subscriber", "baseline")
"""How a worker process runs its calls (``baseline``: the plain call, on whichever
``tooldesign`` its ``PYTHONPATH`` holds)."""

LABELS = {
    "no-otel": "opentelemetry not installed",
    "no-sdk": "opentelemetry-api, no SDK configured",
    "sdk": "OpenTelemetry SDK, in-memory exporter",
    "subscriber": "one event subscriber (no-op callback)",
}


class _NoOpenTelemetry:
    """A meta-path finder that makes ``opentelemetry`` not installed, for this process."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(f"{name} is not installed (benchmark variant no-otel)")


def serve_rounds(variant: str) -> None:
    """A worker: build the runtime for ``variant``, then time ``run N`` requests from stdin
    (one line each, answered with the seconds N calls took) until stdin closes."""
    if variant == "no-otel":
        sys.meta_path.insert(0, _NoOpenTelemetry())
    import tooldesign
    from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest

    work = Path(tempfile.mkdtemp(prefix="tooldesign-control-bench-"))
    try:
        executor = generate_package(work)
        result_model = importlib.import_module("benchgen.bench.toolsets.scoring.types").ScoreResult

        async def score(args: Any, meta: ToolCallMeta) -> Any:
            return result_model(item_id=args.item_id, score=args.price * args.quantity)

        runtime = Runtime([executor.new_registration(handlers={"score": score})])
        after_round: Callable[[], None] = lambda: None
        if variant == "sdk":
            from opentelemetry import trace
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import SimpleSpanProcessor
            from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
                InMemorySpanExporter,
            )

            exporter = InMemorySpanExporter()
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(exporter))
            trace.set_tracer_provider(provider)  # as an application configures the SDK
            after_round = exporter.clear
        elif variant == "subscriber":
            runtime.subscribe(lambda event: None)
        elif variant == "no-sdk":
            importlib.import_module("opentelemetry.trace")  # installed, or say so at once
        request = ToolRequest("score", PAYLOAD, ToolCallMeta(tool_call_id="call-1"))

        async def timed(calls: int) -> float:
            started = time.perf_counter()
            for _ in range(calls):
                result = await runtime.execute(request)
            elapsed = time.perf_counter() - started
            assert result.ok, result.for_model()
            after_round()
            return elapsed

        async def serve() -> None:
            await timed(2000)  # warm up
            print(f"ready {Path(tooldesign.__file__).parent}", flush=True)
            for line in sys.stdin:
                print(repr(await timed(int(line.split()[1]))), flush=True)

        asyncio.run(serve())
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Worker:
    """One variant's process, running rounds on request."""

    def __init__(self, label: str, variant: str, code_root: Path) -> None:
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(code_root), "PYTHONDONTWRITEBYTECODE": "1"}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", variant],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        ready = self._line()
        expected = (code_root / "tooldesign").resolve()
        if not ready.startswith("ready ") or Path(ready[6:]).resolve() != expected:
            raise SystemExit(f"{label}: the worker runs {ready!r}, not {expected}")
        self.samples: list[float] = []

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line:
            raise SystemExit(f"{self.label}: the worker ended (exit {self.process.wait()})")
        return line

    def round(self, calls: int) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"run {calls}\n")
        self.process.stdin.flush()
        self.samples.append(float(self._line()))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def exported(revision: str, into: Path) -> Path:
    """``tooldesign/`` of a git revision, written below ``into``."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", revision, "tooldesign"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise SystemExit(f"--baseline {revision}: {archive.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def control_section(calls: int, rounds: int, baselines: list[str]) -> None:
    here = Path(__file__).resolve().parents[1]
    scratch = Path(tempfile.mkdtemp(prefix="tooldesign-baselines-"))
    workers: list[Worker] = []
    try:
        for i, given in enumerate(baselines):
            path = Path(given)
            root = path if (path / "tooldesign").is_dir() else exported(given, scratch / str(i))
            workers.append(Worker(f"baseline {given}", "baseline", root))
        for variant, label in LABELS.items():
            workers.append(Worker(label, variant, here))
        for r in range(rounds):
            # Each round in another order: no variant always runs just after the same one.
            start = r % len(workers)
            for worker in workers[start:] + workers[:start]:
                worker.round(calls)
    finally:
        for worker in workers:
            worker.close()
        shutil.rmtree(scratch, ignore_errors=True)
    medians = {w.label: median_us(w.samples, calls) for w in workers}
    plain = medians[LABELS["no-sdk"]]
    print(
        f"control features: Runtime.execute, no interceptors, {calls} calls x {rounds} "
        "alternating rounds (medians), one process per variant"
    )
    for label, value in medians.items():
        print(f"  {label:<44} {value:8.1f} us/call   {value / plain:.3f} x no SDK")
    by_label = {w.label: w for w in workers}

    def paired(label: str, base: Worker) -> float:
        """The median of per-round ratios: each round's pair ran minutes apart at most."""
        ratios = [a / b for a, b in zip(by_label[label].samples, base.samples, strict=True)]
        return statistics.median(ratios)

    for base in workers[: len(baselines)]:
        print(
            f"  against {base.label} (median of per-round ratios): no SDK "
            f"{paired(LABELS['no-sdk'], base):.3f}, opentelemetry not installed "
            f"{paired(LABELS['no-otel'], base):.3f} (target <= 1.05)"
        )


if __name__ == "__main__":
    main()
