"""The worked example's ``devices`` toolset, served by a worker process over Redis Streams.

With a Redis ≥ 7 server on localhost (``--redis URL`` for another), from the repository root:

    tooldesign worker examples.netops.worker:runtime

Start it several times for several replicas: each call goes to one of them, and the calls a
killed replica held go to the others. ``python -m examples.netops.remote_agent`` is the agent.
"""

from __future__ import annotations

from tooldesign.runtime import LogCalls, Runtime

from examples.netops.agent import restart_device
from examples.netops.services import DeviceService, Inventory, NotFoundError
from gen.assistant.toolsets.devices import executor as devices


def runtime() -> Runtime:
    """The worker's runtime: the devices toolset bound to the inventory, as in the agent."""
    return Runtime(
        [
            devices.new_registration(
                service=DeviceService(Inventory()), handlers={"restart_device": restart_device}
            )
        ],
        interceptors=[LogCalls()],
        expose=(NotFoundError,),
    )
