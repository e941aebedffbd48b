"""The application the distributed tests serve on workers: the worked example's ``devices``
toolset, with handlers that count their side effects in Redis, so effects of a worker that was
killed are still counted.

A call sleeps for ``meta.labels["sleep"]`` seconds (``TD_DELAY`` by default) after its effect.
``restart_device`` is destructive and not idempotent; ``get_device`` is read-only.
``restart_device`` echoes its call id and its ``reason`` in its job id, so an answer that
belongs to another call is seen.

With ``effects_log`` (``TD_EFFECTS_LOG``), effects are counted in that file instead, one line
per run written with one ``O_APPEND`` write (``<tool> <call id> <pid> <time>``): the ground truth of
chaos tests, which restart and empty the Redis server. For the CLI, ``runtime()`` reads its
settings from the environment (``TD_REDIS_URL``, ``TD_PREFIX``, ``TD_DELAY``,
``TD_VERSION_TAG``, ``TD_EFFECTS_LOG``, ``TD_HOLD``).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import replace
from pathlib import Path

import redis.asyncio as redis_asyncio
from tooldesign.runtime import Runtime, ToolCallMeta, ToolsetRegistration

from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import transforms
from gen.assistant.toolsets.devices import types as t


def effects_key(prefix: str, tool: str) -> str:
    """The hash counting, per call id, how many times ``tool`` took effect."""
    return f"{prefix}:test-effects:{tool}"


def read_effects(path: str | Path) -> dict[tuple[str, str], int]:
    """How many times each (tool, call id) took effect, by an effects log."""
    counts: dict[tuple[str, str], int] = {}
    for line in Path(path).read_text().splitlines():
        tool, call_id, _pid, _when = line.split(" ")
        counts[(tool, call_id)] = counts.get((tool, call_id), 0) + 1
    return counts


def registration(
    url: str,
    prefix: str,
    *,
    delay: float = 0.0,
    tag: str = "",
    effects_log: str = "",
    hold: float = 0.0,
) -> ToolsetRegistration:
    """The devices toolset; a ``tag`` changes a description, so it is another catalog version.
    In this process, ``get_device`` takes at least ``hold`` seconds."""
    inventory = Inventory()
    log = os.open(effects_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if effects_log else -1
    counter = None if effects_log else redis_asyncio.Redis.from_url(url, decode_responses=True)

    async def took_effect(tool: str, meta: ToolCallMeta) -> None:
        if counter is None:
            line = f"{tool} {meta.call_id or '-'} {os.getpid()} {time.time():.3f}\n"
            os.write(log, line.encode())
        else:
            await counter.hincrby(effects_key(prefix, tool), meta.call_id or "-", 1)
        await asyncio.sleep(float(meta.labels.get("sleep", delay)))

    async def restart_device(
        args: t.RestartDevicePayload, meta: ToolCallMeta
    ) -> t.RestartDeviceResult:
        await took_effect("restart_device", meta)
        job = f"{meta.call_id}|{meta.trace.get('traceparent', '')}|{tag}|{args.reason}"
        return t.RestartDeviceResult(accepted=True, job_id=job)

    async def get_device(args: t.GetDevicePayload, meta: ToolCallMeta) -> t.Device:
        await took_effect("get_device", meta)
        await asyncio.sleep(hold)
        return transforms.to_tool_return_get_device(inventory.device(args.device_id))

    made = devices.new_registration(
        service=DeviceService(inventory),
        handlers={"restart_device": restart_device, "get_device": get_device},
    )
    if not tag:
        return made
    first, *rest = made.tools
    changed = replace(
        first, spec=replace(first.spec, description=f"{first.spec.description} {tag}")
    )
    return replace(made, tools=(changed, *rest))


def runtime() -> Runtime:
    starting = os.environ.get("TD_STARTING_MARK", "")
    if starting:  # a slow start (an application that builds for a while): stoppable meanwhile
        Path(starting).write_text("starting")
        time.sleep(5)
    return Runtime(
        [
            registration(
                os.environ["TD_REDIS_URL"],
                os.environ["TD_PREFIX"],
                delay=float(os.environ.get("TD_DELAY", "0")),
                tag=os.environ.get("TD_VERSION_TAG", ""),
                effects_log=os.environ.get("TD_EFFECTS_LOG", ""),
                hold=float(os.environ.get("TD_HOLD", "0")),
            )
        ]
    )
