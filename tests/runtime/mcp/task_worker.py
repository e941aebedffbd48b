"""The application the Redis-backed MCP tasks tests serve on workers: the distributed tests'
``devices`` toolset (``tests.runtime.transports.app``: effects counted in a log, calls that
sleep ``TD_DELAY`` seconds after their effect), its tools long-running (``LongRunning``), so the
agent's MCP server runs them as tasks. ``specs()`` are the agent's: the same catalog version."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime import Runtime, ToolsetRegistration

from gen.assistant.toolsets.devices import specs as devices
from tests.runtime.transports import app

TASK = TaskSupport(poll_ms=50, keep_ms=60_000)


def specs() -> list[Any]:
    return [replace(spec, task=TASK) for spec in devices.SPECS]


def long_running(registration: ToolsetRegistration) -> ToolsetRegistration:
    tools = tuple(replace(b, spec=replace(b.spec, task=TASK)) for b in registration.tools)
    return replace(registration, tools=tools)


def runtime() -> Runtime:
    return Runtime(
        [
            long_running(
                app.registration(
                    os.environ["TD_REDIS_URL"],
                    os.environ["TD_PREFIX"],
                    delay=float(os.environ.get("TD_DELAY", "0")),
                    effects_log=os.environ.get("TD_EFFECTS_LOG", ""),
                )
            )
        ]
    )


def toolset_version() -> str:
    from tooldesign.contract.catalog import toolset_version as version

    return version(specs())
