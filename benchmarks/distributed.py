"""Distributed execution over Redis Streams against in-process calls, with a 2 ms tool.

Prints, side by side (medians of --repeat runs), on a quiet machine and then under load (--load
processes burning CPU, 2 by default; 0 skips it):
  - one call at a time: round-trip p50 and p99, and the latency added over in-process;
  - calls/s with 256 calls in flight, and its ratio to in-process calls/s measured in the same
    run (the ratio holds on a loaded machine, where absolute figures do not);
for in-process ``Runtime.execute``, over Redis with 1 worker, and over Redis with 2 workers
(64 slots each, separate processes); then the kill test: 10,000 calls over 2 workers, one
killed with SIGKILL at 40 %: calls lost, side effects repeated, and how long after the kill the
last call the dead worker held was answered.

Targets on a quiet 2-core machine: ≤ 1.5 ms p50 added over in-process; ≥ 2,000 calls/s with 2
workers; ≥ 0.5 x in-process calls/s with 2 workers; kill: 0 lost, 0 repeated effects,
redelivery within 2 x the claim timeout.

Needs redis-server on PATH. Run from the repository root:
    python benchmarks/distributed.py [--repeat N] [--load N] [--quick]
(--quick runs a tenth of the calls: what tests/runtime/transports/test_benchmark.py runs so that the
benchmark cannot rot.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tooldesign.runtime import ApprovalRequest, Runtime, ToolCallMeta, ToolRequest
from tooldesign.runtime.spec.catalog import toolset_version
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisTransport

from benchmarks.local_redis import redis_server
from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets import devices
from gen.assistant.toolsets.devices import executor
from gen.assistant.toolsets.devices import types as t

TOOL_SECONDS = 0.002
SLOTS = 64
IN_FLIGHT = 256
CLAIM_TIMEOUT = 2.0
EFFECTS = "bench-effects"
SCALE = 1.0
"""A tenth with --quick."""


def approve(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
    """The person who approves every restart (restart_device needs approval)."""
    return True


def worker_runtime() -> Runtime:
    """The runtime the worker processes serve: ``restart_device`` takes 2 ms and, with
    ``BENCH_REDIS_URL`` set, counts its effects per call id in Redis."""
    url = os.environ.get("BENCH_REDIS_URL")
    counter: Any = None
    if url:
        import redis.asyncio

        counter = redis.asyncio.Redis.from_url(url)

    async def restart_device(
        args: t.RestartDevicePayload, meta: ToolCallMeta
    ) -> t.RestartDeviceResult:
        if counter is not None:
            await counter.hincrby(EFFECTS, meta.call_id or "-", 1)
        await asyncio.sleep(TOOL_SECONDS)
        return t.RestartDeviceResult(accepted=True, job_id=args.device_id)

    registration = executor.new_registration(
        service=DeviceService(Inventory()), handlers={"restart_device": restart_device}
    )
    return Runtime([registration], approver=approve)


def request(i: int, run: str = "bench") -> ToolRequest:
    meta = ToolCallMeta(session_id="s", run_id=run, tool_call_id=f"c{i}")
    return ToolRequest("restart_device", {"device_id": "dev-00000000", "reason": "benchmark"}, meta)


@dataclass
class Figures:
    p50_ms: list[float] = field(default_factory=list)
    p99_ms: list[float] = field(default_factory=list)
    per_second: list[float] = field(default_factory=list)


@contextmanager
def workers(
    url: str, prefix: str, count: int, log: Path, *, count_effects: bool = False
) -> Iterator[list[subprocess.Popen[bytes]]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if count_effects:
        env["BENCH_REDIS_URL"] = url
    command = [
        sys.executable, "-m", "tooldesign.cli", "worker", "benchmarks.distributed:worker_runtime",
        "--redis", url, "--prefix", prefix, "--concurrency", str(SLOTS),
        "--claim-timeout", str(CLAIM_TIMEOUT), "--log-level", "WARNING",
    ]  # fmt: skip
    with log.open("ab") as sink:
        started = [subprocess.Popen(command, cwd=ROOT, env=env, stderr=sink) for _ in range(count)]
    try:
        yield started
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in started:
            process.wait()


async def measure(runtime: Runtime, figures: Figures, run: str) -> None:
    for i in range(100):  # warm up: connections, scripts, caches
        await runtime.execute(request(i, f"{run}-warm"))
    times = []
    for i in range(int(500 * SCALE)):
        started = time.perf_counter()
        result = await runtime.execute(request(i, f"{run}-seq"))
        times.append((time.perf_counter() - started) * 1000)
        assert result.ok, result.for_model()
    times.sort()
    figures.p50_ms.append(statistics.median(times))
    figures.p99_ms.append(times[int(len(times) * 0.99) - 1])
    window = asyncio.Semaphore(IN_FLIGHT)
    calls = int(5000 * SCALE)

    async def one(i: int) -> None:
        async with window:
            result = await runtime.execute(request(i, f"{run}-par"))
            assert result.ok, result.for_model()

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    figures.per_second.append(calls / (time.perf_counter() - started))


async def wait_live(transport: RedisTransport, count: int) -> None:
    version = toolset_version(devices.specs.SPECS)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        live = await transport.live_toolsets()
        if version in live.get("assistant.devices", ()):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3 * count)  # every worker up, not only the first


async def remote(url: str, prefix: str, figures: Figures, run: str, count: int) -> None:
    transport = RedisTransport(url, prefix=prefix, max_in_flight=IN_FLIGHT)
    agent = Runtime([remote_registration(devices, transport=transport)], approver=approve)
    try:
        await wait_live(transport, count)
        await measure(agent, figures, run)
    finally:
        await transport.close()


@dataclass
class KillFigures:
    lost: list[int] = field(default_factory=list)
    repeated: list[int] = field(default_factory=list)
    redelivered: list[int] = field(default_factory=list)
    redelivery_s: list[float] = field(default_factory=list)
    per_second: list[float] = field(default_factory=list)


async def kill_run(
    url: str, prefix: str, processes: list[subprocess.Popen[bytes]], out: KillFigures
) -> None:
    import redis

    transport = RedisTransport(url, prefix=prefix, max_in_flight=IN_FLIGHT)
    agent = Runtime(
        [remote_registration(devices, transport=transport, timeout=120)], approver=approve
    )
    calls = int(10_000 * SCALE)
    done = 0
    killed_at = 0.0
    answered_at: list[float] = [0.0] * calls
    try:
        await wait_live(transport, len(processes))

        async def one(i: int) -> Any:
            nonlocal done, killed_at
            result = await agent.execute(request(i, f"{prefix}-kill"))
            answered_at[i] = time.monotonic()
            done += 1
            if done == calls * 4 // 10:
                processes[0].send_signal(signal.SIGKILL)
                killed_at = time.monotonic()
            return result

        started = time.perf_counter()
        results = await asyncio.gather(*(one(i) for i in range(calls)))
        out.per_second.append(calls / (time.perf_counter() - started))
    finally:
        await transport.close()
    outcomes = [r.telemetry.outcome for r in results]
    out.lost.append(sum(o not in ("ok", "outcome_unknown") for o in outcomes))
    with redis.Redis.from_url(url) as client:
        counts = [int(c) for c in client.hgetall(EFFECTS).values()]
        client.delete(EFFECTS)
    out.repeated.append(sum(c > 1 for c in counts))
    held = [
        i
        for i, r in enumerate(results)
        if r.telemetry.extra.get("remote", {}).get("deliveries", 1) > 1
    ] + [i for i, o in enumerate(outcomes) if o == "outcome_unknown"]
    out.redelivered.append(len(set(held)))
    out.redelivery_s.append(max((answered_at[i] - killed_at for i in held), default=0.0))


def row(label: str, figures: Figures, base: Figures | None) -> str:
    p50 = statistics.median(figures.p50_ms)
    added = f"{p50 - statistics.median(base.p50_ms):+.2f}" if base else "     -"
    per_second = statistics.median(figures.per_second)
    ratio = f"{per_second / statistics.median(base.per_second):.2f}x" if base else "    -"
    return (
        f"{label:<22} {p50:8.2f} {statistics.median(figures.p99_ms):8.2f} {added:>9} "
        f"{per_second:10.0f} {ratio:>7}"
    )


def table(title: str, local: Figures, one: Figures, two: Figures) -> None:
    print(f"\n{title}")
    header = f"{'':<22} {'p50 ms':>8} {'p99 ms':>8} {'added ms':>9} {f'calls/s@{IN_FLIGHT}':>10}"
    print(f"{header} {'ratio':>7}")
    print(row("in-process", local, None))
    print(row("Redis, 1 worker", one, local))
    print(row("Redis, 2 workers", two, local))


@contextmanager
def cpu_load(processes: int) -> Iterator[None]:
    """``processes`` processes that burn CPU (a loaded machine) until the block ends."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def compare(url: str, n: int, label: str, local: Figures, one: Figures, two: Figures) -> None:
    asyncio.run(measure(worker_runtime(), local, f"{label}local{n}"))
    with workers(url, f"{label}one{n}", 1, LOG):
        asyncio.run(remote(url, f"{label}one{n}", one, f"{label}one{n}", 1))
    with workers(url, f"{label}two{n}", 2, LOG):
        asyncio.run(remote(url, f"{label}two{n}", two, f"{label}two{n}", 2))


LOG = Path(tempfile.mkdtemp(prefix="tdbench-log-")) / "workers.log"


def main() -> None:
    global SCALE
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--load", type=int, default=2, metavar="N", help="CPU burners (0: none)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the calls")
    args = parser.parse_args()
    SCALE = 0.1 if args.quick else 1.0
    quiet = Figures(), Figures(), Figures()
    loaded = Figures(), Figures(), Figures()
    kill = KillFigures()
    with redis_server() as url:
        if url is None:
            sys.exit("redis-server is not on PATH (apt-get install -y redis-server)")
        for n in range(args.repeat):
            compare(url, n, "q", *quiet)
            if args.load:
                with cpu_load(args.load):
                    compare(url, n, "l", *loaded)
            with workers(url, f"kill{n}", 2, LOG, count_effects=True) as processes:
                asyncio.run(kill_run(url, f"kill{n}", processes, kill))
            print(f"run {n + 1}/{args.repeat} done", file=sys.stderr)
    print(
        f"\nA {TOOL_SECONDS * 1000:g} ms tool; medians of {args.repeat} runs; {SLOTS} slots per "
        "worker; ratio: calls/s over in-process calls/s of the same run."
    )
    table("Quiet machine", *quiet)
    if args.load:
        table(f"Under load ({args.load} processes burning CPU)", *loaded)
    calls = int(10_000 * SCALE)
    print(
        f"\nkill -9 of 1 of 2 workers at 40 % of {calls:,} calls (claim timeout "
        f"{CLAIM_TIMEOUT:g} s): lost {statistics.median(kill.lost):g}, repeated effects "
        f"{statistics.median(kill.repeated):g}, calls redelivered "
        f"{statistics.median(kill.redelivered):g}, last of them answered "
        f"{statistics.median(kill.redelivery_s):.2f} s after the kill "
        f"(target ≤ {2 * CLAIM_TIMEOUT:g} s), {statistics.median(kill.per_second):.0f} calls/s overall"
    )
    print(f"worker logs: {LOG}")


if __name__ == "__main__":
    main()
