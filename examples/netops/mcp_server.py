"""The worked example's toolsets as an MCP server.

From the repository root:

    tooldesign serve-mcp examples.netops.mcp_server:runtime                   # stdio
    tooldesign serve-mcp examples.netops.mcp_server:runtime --transport http  # :8000/mcp

Every netops toolset is served, plus the built-in ``tool_index``. Tools that inject
``session_id`` get the MCP session: one per stdio connection, the ``Mcp-Session-Id`` of a
streamable-HTTP session. The profiles are keyed by session, so over MCP ``get_profile``
answers that this session has none: the model cannot pick another user's session.
"""

from __future__ import annotations

from tooldesign.builtin.tool_index import tool_index_registration
from tooldesign.runtime import LogCalls, Runtime, Timeout, ToolCallMeta, ToolsetRegistration

from examples.netops.diagnosis import diagnose_site
from examples.netops.services import (
    DeviceService,
    DocumentService,
    Inventory,
    MetricsService,
    NotFoundError,
    ProfileService,
    SiteService,
)
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.diagnosis import executor as diagnosis
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites


async def restart_device(
    args: device_types.RestartDevicePayload, meta: ToolCallMeta
) -> device_types.RestartDeviceResult:
    """restart_device has no BindTo: the application accepts the job and names it."""
    return device_types.RestartDeviceResult(accepted=True, job_id=f"restart-{args.device_id}")


def registrations(inventory: Inventory) -> list[ToolsetRegistration]:
    """The netops toolsets, served by the example's services over ``inventory``."""
    return [
        sites.new_registration(service=SiteService(inventory)),
        devices.new_registration(
            service=DeviceService(inventory), handlers={"restart_device": restart_device}
        ),
        metrics.new_registration(service=MetricsService(inventory)),
        profiles.new_registration(service=ProfileService()),
        docs.new_registration(service=DocumentService()),
        # An agent as a tool: its inner run's restart is asked of the client's person.
        diagnosis.new_registration(handlers={"diagnose_site": diagnose_site}),
    ]


def runtime() -> Runtime:
    """A fresh runtime over a fresh in-memory inventory, with the tool index registered."""
    served = Runtime(
        registrations(Inventory()),
        interceptors=[LogCalls(), Timeout(10.0)],
        expose=(NotFoundError,),
    )
    served.register(tool_index_registration(served))
    return served
