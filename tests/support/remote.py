"""The worked example's devices toolset served remotely: its key, version, a call, its effects."""

from __future__ import annotations

from typing import Any

from tooldesign.runtime import ToolCallMeta, ToolRequest
from tooldesign.runtime.spec.catalog import toolset_version

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.support.redis import RedisServer

DEVICES = "assistant.devices"


VERSION = toolset_version(devices.specs.SPECS)


SESSION = ToolCallMeta(session_id="sess-1")


def restart(meta: ToolCallMeta = SESSION, **labels: Any) -> ToolRequest:
    if labels:
        meta = ToolCallMeta(**{**meta.to_dict(), "labels": labels})
    return ToolRequest("restart_device", {"device_id": "dev-00000000", "reason": "testing"}, meta)


def effects(server: RedisServer, prefix: str, tool: str = "restart_device") -> dict[str, int]:
    with server.client() as client:
        counts = client.hgetall(app.effects_key(prefix, tool))
    return {call: int(count) for call, count in counts.items()}
