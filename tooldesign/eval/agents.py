"""Design rules of tools implemented by an agent (``ImplementedByAgent``), checked once the
whole design is built: the toolsets an inner agent uses are other toolsets of its service, and
its implementation is the application's (not a ``BindTo``, not an MCP server's)."""

from __future__ import annotations

from tooldesign.ir.errors import Issues
from tooldesign.ir.model import Design


def check_agents(design: Design, issues: Issues) -> None:
    for service in design.services:
        names = {toolset.name for toolset in service.toolsets}
        for toolset in service.toolsets:
            for tool in toolset.tools:
                agent = tool.agent
                if agent is None:
                    continue
                if toolset.mcp is not None:
                    issues.add(
                        "ImplementedByAgent cannot be used in an MCPToolset: its tools run on the server",
                        tool.location,
                        tool.path,
                    )
                if tool.binding is not None:
                    issues.add(
                        "ImplementedByAgent and BindTo both implement the tool: keep one",
                        tool.location,
                        tool.path,
                    )
                for used in agent.uses:
                    if used == toolset.name:
                        issues.add(
                            f"ImplementedByAgent uses={used!r}: the inner agent cannot use the "
                            "toolset of its own tool (it would call itself)",
                            tool.location,
                            tool.path,
                        )
                    elif used not in names:
                        known = ", ".join(sorted(names - {toolset.name})) or "none"
                        issues.add(
                            f"ImplementedByAgent uses={used!r}: no such toolset in service "
                            f"{service.name!r} (toolsets: {known})",
                            tool.location,
                            tool.path,
                        )
