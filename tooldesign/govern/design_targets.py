"""Targets checked at generation: each tool as its catalog will list it, against each target.

Targets a design declares for a service are a promise: a tool that breaks one is a design
error, reported with the tool's design line, and nothing is generated. Targets named only on
the command line (``tooldesign gen --targets``) are a question: each problem is a notice with
the design line, and generation goes on (exit code unchanged) — declare the target in the
design to make it a gate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tooldesign.govern.targets import TARGETS, check_targets
from tooldesign.ir.errors import DesignError, DesignIssue, DesignNotice
from tooldesign.ir.model import Design, Service, Tool

DesignCheck = Callable[[Design], list[DesignNotice]]


def _none_declared(service: Service) -> Sequence[str]:
    return ()


def target_check(
    command_line: Sequence[str],
    *,
    server: str | None = None,
    declared: Callable[[Service], Sequence[str]] = _none_declared,
) -> DesignCheck:
    """A check for ``generate(..., checks=[...])``.

    ``command_line`` names targets given on the command line; ``declared`` gives the targets
    a service declares. ``server`` is the MCP server name the services are served under
    (default: each service's own name, as ``tooldesign serve-mcp`` names a server).
    """

    def check(design: Design) -> list[DesignNotice]:
        errors: list[DesignIssue] = []
        notices: list[DesignNotice] = []
        for service in design.services:
            promised = list(dict.fromkeys(declared(service)))
            asked = [t for t in command_line if t not in promised]
            if not promised and not asked:
                continue
            tools, entries = _catalog_entries(design, service)
            checks: tuple[tuple[list[str], list[Any], type[DesignIssue]], ...] = (
                (promised, errors, DesignIssue),
                (asked, notices, DesignNotice),
            )
            for targets, found, kind in checks:
                if not targets:
                    continue
                for problem in check_targets(server or service.name, entries, targets):
                    tool = tools.get(problem.tool) if problem.tool else None
                    element: Tool | Service = tool if tool is not None else service
                    message = (
                        f"{TARGETS[problem.target].title} ({problem.target}) {problem.message}"
                    )
                    found.append(kind(message, element.location, element.path))
        if errors:
            raise DesignError(sorted(errors, key=_line))
        return sorted(notices, key=_line)

    return check


def _catalog_entries(
    design: Design, service: Service
) -> tuple[dict[str, Tool], list[dict[str, Any]]]:
    """The IR tools of ``service`` by id, and their catalog entries (what models see)."""
    from tooldesign.codegen.files import catalog_entries
    from tooldesign.codegen.views import toolset_view

    tools: dict[str, Tool] = {}
    entries: list[dict[str, Any]] = []
    for toolset in service.toolsets:
        tools.update((tool.id, tool) for tool in toolset.tools)
        view = toolset_view(design, service, toolset)
        entries.extend(catalog_entries(view))
    return tools, entries


def _line(issue: DesignIssue) -> tuple[str, int]:
    where = issue.location
    return (where.file, where.line) if where is not None else ("", 0)
