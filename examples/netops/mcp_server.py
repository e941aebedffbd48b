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
from tooldesign.runtime import LogCalls, Runtime, Timeout

from examples.netops.agent import registrations
from examples.netops.services import (
    Inventory,
    NotFoundError,
)


def runtime() -> Runtime:
    """A fresh runtime over a fresh in-memory inventory, with the tool index registered."""
    served = Runtime(
        registrations(Inventory()),
        interceptors=[LogCalls(), Timeout(10.0)],
        expose=(NotFoundError,),
    )
    served.register(tool_index_registration(served))
    return served
