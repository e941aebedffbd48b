"""The worked example's application (``examples/netops``), as tests read it."""

from __future__ import annotations

import pytest
from tooldesign.runtime import ApprovalRequest, ToolCallMeta

from examples.netops.services import Inventory, NotFoundError


def not_found(device_id: str) -> str:
    """The example's own words for a device it does not have (exposed to the model)."""
    with pytest.raises(NotFoundError) as caught:
        Inventory().device(device_id)
    return str(caught.value)


def approve_all(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
    """A person who approves every call: for tests of other things than approvals, which call
    the example's restart_device (it needs approval, ``Confirm``)."""
    return True
