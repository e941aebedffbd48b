"""MCP for tooldesign: serve a runtime's tools (``server``) and call an MCP server's tools
(``client``, what ``MCPToolset`` executors use).

The server's names are importable from here (``from tooldesign.runtime.mcp import ToolServer``),
with those of its HTTP app's security (``BearerTokens``, ``SessionLimits``, ``HttpPolicy``) and
the prompts and resources it serves beside the tools (``ServerContent``, ``Prompt``,
``Resource``, ``ResourceTemplate``, ``Message``) and its long-running tasks (``Tasks``,
``TaskStore``, ``RedisTaskStore``: the last needs the ``redis`` extra); they
need the ``mcp`` extra and are loaded on first use, so the client's module can be imported
without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldesign.runtime.mcp.access import BearerTokens
    from tooldesign.runtime.mcp.content import (
        Message,
        Prompt,
        Resource,
        ResourceTemplate,
        ServerContent,
        spilled_results,
    )
    from tooldesign.runtime.mcp.discovery import DiscoveryServer
    from tooldesign.runtime.mcp.events import MemoryEventStore
    from tooldesign.runtime.mcp.http import HttpPolicy
    from tooldesign.runtime.mcp.redis_tasks import RedisTaskStore
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
    from tooldesign.runtime.mcp.sessions import SessionLimits
    from tooldesign.runtime.mcp.tasks import Tasks, TaskStore

__all__ = [
    "BearerTokens",
    "DiscoveryServer",
    "HttpPolicy",
    "McpCallContext",
    "MemoryEventStore",
    "Message",
    "MetaFor",
    "OnResult",
    "Prompt",
    "RedisTaskStore",
    "Resource",
    "ResourceTemplate",
    "ServerContent",
    "SessionLimits",
    "TaskStore",
    "Tasks",
    "ToolServer",
    "default_server_name",
    "mcp_server",
    "serve_stdio",
    "spilled_results",
    "streamable_http_app",
]


_ELSEWHERE = {
    "BearerTokens": "access",
    "DiscoveryServer": "discovery",
    "HttpPolicy": "http",
    "MemoryEventStore": "events",
    "Message": "content",
    "Prompt": "content",
    "RedisTaskStore": "redis_tasks",
    "Resource": "content",
    "ResourceTemplate": "content",
    "ServerContent": "content",
    "spilled_results": "content",
    "SessionLimits": "sessions",
    "TaskStore": "tasks",
    "Tasks": "tasks",
}
"""Names that live beside the server's module (the rest come from ``server``)."""


def __getattr__(name: str) -> Any:
    if name in __all__:
        import importlib

        module = importlib.import_module(f"{__name__}.{_ELSEWHERE.get(name, 'server')}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
