"""The worked example's application (``examples/netops``), as tests read it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from tooldesign.runtime import (
    ApprovalRequest,
    Runtime,
    ToolCallMeta,
    ToolsetRegistration,
)

from examples.netops.agent import restart_device
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
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites

TOOLSETS = ("sites", "devices", "metrics", "profiles", "docs")
"""The example's toolsets, in the order its runtime registers them."""


def example_registration(
    toolset: str,
    inventory: Inventory | None = None,
    *,
    interceptors: Sequence[Any] = (),
    **handlers: Any,
) -> ToolsetRegistration:
    """One of the example's toolsets, served by the example's own services (on ``inventory``, or
    a new one), with ``interceptors`` of its own; ``handlers`` replace its tools' handlers (the
    devices toolset's restart_device is the example agent's unless replaced)."""
    inventory = inventory or Inventory()
    made: ToolsetRegistration
    if toolset == "devices":
        given: Any = {"restart_device": restart_device, **handlers}
        made = devices.new_registration(
            service=DeviceService(inventory), handlers=given, interceptors=interceptors
        )
        return made
    executor, service = {
        "sites": (sites, SiteService(inventory)),
        "metrics": (metrics, MetricsService(inventory)),
        "profiles": (profiles, ProfileService()),
        "docs": (docs, DocumentService()),
    }[toolset]
    made = executor.new_registration(
        service=service, handlers=handlers or None, interceptors=interceptors
    )
    return made


def example_runtime(
    *toolsets: str,
    device_handlers: Mapping[str, Any] | None = None,
    interceptors_of: Mapping[str, Sequence[Any]] | None = None,
    **options: Any,
) -> Runtime:
    """The example's toolsets (those named, in that order; all of them by default) on one
    inventory, without the example agent's interceptors (its rate limit would answer most calls
    of a test) and options (``options`` go to ``Runtime``): ``device_handlers`` replace handlers
    of the devices toolset, ``interceptors_of`` gives a toolset interceptors of its own."""
    inventory = Inventory()
    return Runtime(
        [
            example_registration(
                toolset,
                inventory,
                interceptors=(interceptors_of or {}).get(toolset, ()),
                **(dict(device_handlers or {}) if toolset == "devices" else {}),
            )
            for toolset in toolsets or TOOLSETS
        ],
        **options,
    )


def not_found(device_id: str) -> str:
    """The example's own words for a device it does not have (exposed to the model)."""
    with pytest.raises(NotFoundError) as caught:
        Inventory().device(device_id)
    return str(caught.value)


def approve_all(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
    """A person who approves every call: for tests of other things than approvals, which call
    the example's restart_device (it needs approval, ``Confirm``)."""
    return True


class Restarts:
    """restart_device's handler, counting the calls that ran (the example's own only names the
    job)."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def __call__(
        self, args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        self.ran.append(args.device_id)
        return device_types.RestartDeviceResult(accepted=True, job_id=f"restart-{args.device_id}")
