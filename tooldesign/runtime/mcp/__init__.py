"""MCP for tooldesign: serve a runtime's tools (``server``) and call an MCP server's tools
(``client``, what ``MCPToolset`` executors use).

The server's names are importable from here (``from tooldesign.runtime.mcp import ToolServer``);
they need the ``mcp`` extra and are loaded on first use, so the client's module can be imported
without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldesign.runtime.mcp.server import (
        McpCallContext,
        MetaFor,
        OnResult,
        ToolServer,
        default_server_name,
        mcp_server,
        serve_stdio,
        streamable_http_app,
    )

__all__ = [
    "McpCallContext",
    "MetaFor",
    "OnResult",
    "ToolServer",
    "default_server_name",
    "mcp_server",
    "serve_stdio",
    "streamable_http_app",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tooldesign.runtime.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
