"""The worked example's application (``examples/netops``), as tests read it."""

from __future__ import annotations

import pytest
from tooldesign.runtime import ApprovalRequest, ToolCallMeta

from examples.netops.services import Inventory, NotFoundError
from gen.assistant.toolsets.devices import types as device_types


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
