"""The worked example's application (``examples/netops``), as tests read it."""

from __future__ import annotations

import pytest

from examples.netops.services import Inventory, NotFoundError


def not_found(device_id: str) -> str:
    """The example's own words for a device it does not have (exposed to the model)."""
    with pytest.raises(NotFoundError) as caught:
        Inventory().device(device_id)
    return str(caught.value)
