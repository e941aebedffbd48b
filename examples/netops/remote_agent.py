"""The example agent with its ``devices`` toolset on a worker process, over Redis Streams.

Three commands, from the repository root (a Redis ≥ 7 server; ``apt-get install redis-server``):

    redis-server --appendonly yes
    tooldesign worker examples.netops.worker:runtime
    python -m examples.netops.remote_agent

The conversation is the one ``python -m examples.netops.agent`` has; the devices calls travel to
the worker. The first one is missing an argument: it is answered here, from the generated codec,
without a round trip. ``--redis URL`` and ``--prefix P`` point both elsewhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from dataclasses import replace

from tooldesign.runtime import LogCalls, Runtime, Timeout, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.transports import TransportError, remote_registration
from tooldesign.runtime.transports.redis import RedisTransport

from examples.netops.agent import ScriptedPlanner, show
from examples.netops.services import (
    DocumentService,
    Inventory,
    MetricsService,
    NotFoundError,
    ProfileService,
    SiteService,
)
from gen.assistant.toolsets import devices
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites


def build_runtime(transport: RedisTransport) -> Runtime:
    """The agent's runtime: devices served by workers, the other toolsets in this process."""
    inventory = Inventory()
    return Runtime(
        [
            sites.new_registration(service=SiteService(inventory)),
            remote_registration(devices, transport=transport, timeout=10),
            metrics.new_registration(service=MetricsService(inventory)),
            profiles.new_registration(service=ProfileService()),
            docs.new_registration(service=DocumentService()),
        ],
        interceptors=[LogCalls(), Timeout(15.0)],
        expose=(NotFoundError,),
    )


async def converse(runtime: Runtime) -> None:
    planner = ScriptedPlanner()
    meta = ToolCallMeta(session_id="sess-alice", run_id="run-1")
    previous: ToolResult | None = None
    while (call := planner.next_call(previous)) is not None:
        name, arguments = call
        print(f"\n── turn {planner.turn}: the model calls {name}({json.dumps(arguments)})")
        # A model's tool call id: with the run id, it makes the call's id on the wire.
        turn_meta = replace(meta, tool_call_id=f"call-{planner.turn}")
        previous = await runtime.execute(ToolRequest(name, json.dumps(arguments), turn_meta))
        show("what goes back to the model:", previous.for_model())
        remote = previous.telemetry.extra.get("remote")
        print(f"answered by: {remote['worker'] if remote else 'this process'}")
        if previous.retry_hint is not None:
            print(f"retry hint: reason={previous.retry_hint.reason}")
        if previous.bounds is not None:
            print(
                f"bounds: returned={previous.bounds.returned} truncated={previous.bounds.truncated}"
            )


async def main(url: str, prefix: str) -> None:
    transport = RedisTransport(url, prefix=prefix)
    try:
        await transport.start()
        await converse(build_runtime(transport))
    except TransportError as exc:
        raise SystemExit(f"remote_agent: {exc}") from None
    finally:
        await transport.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--redis", default=os.environ.get("TOOLDESIGN_REDIS_URL", "redis://localhost:6379/0")
    )
    parser.add_argument("--prefix", default="tooldesign")
    options = parser.parse_args()
    asyncio.run(main(options.redis, options.prefix))
