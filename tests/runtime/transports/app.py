"""The application the distributed tests serve on workers: the worked example's ``devices``
toolset, with handlers that count their side effects in Redis, so effects of a worker that was
killed are still counted.

A call sleeps for ``meta.labels["sleep"]`` seconds (``TD_DELAY`` by default) after its effect.
``restart_device`` is destructive and not idempotent; ``get_device`` is read-only. For the CLI,
``runtime()`` reads its settings from the environment (``TD_REDIS_URL``, ``TD_PREFIX``,
``TD_DELAY``, ``TD_VERSION_TAG``).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

import redis.asyncio as redis_asyncio
from tooldesign.runtime import Runtime, ToolCallMeta, ToolsetRegistration

from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import transforms
from gen.assistant.toolsets.devices import types as t


def effects_key(prefix: str, tool: str) -> str:
    """The hash counting, per call id, how many times ``tool`` took effect."""
    return f"{prefix}:test-effects:{tool}"


def registration(
    url: str, prefix: str, *, delay: float = 0.0, tag: str = ""
) -> ToolsetRegistration:
    """The devices toolset; a ``tag`` changes a description, so it is another catalog version."""
    counter = redis_asyncio.Redis.from_url(url, decode_responses=True)
    inventory = Inventory()

    async def took_effect(tool: str, meta: ToolCallMeta) -> None:
        await counter.hincrby(effects_key(prefix, tool), meta.call_id or "-", 1)
        await asyncio.sleep(float(meta.labels.get("sleep", delay)))

    async def restart_device(
        args: t.RestartDevicePayload, meta: ToolCallMeta
    ) -> t.RestartDeviceResult:
        await took_effect("restart_device", meta)
        job = f"{meta.call_id}|{meta.trace.get('traceparent', '')}|{tag}"
        return t.RestartDeviceResult(accepted=True, job_id=job)

    async def get_device(args: t.GetDevicePayload, meta: ToolCallMeta) -> t.Device:
        await took_effect("get_device", meta)
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
    return Runtime(
        [
            registration(
                os.environ["TD_REDIS_URL"],
                os.environ["TD_PREFIX"],
                delay=float(os.environ.get("TD_DELAY", "0")),
                tag=os.environ.get("TD_VERSION_TAG", ""),
            )
        ]
    )
