"""Targets checked at generation: each tool as its catalog will list it, against each target.

Targets a design declares for a service (``Targets(...)``) are a promise: a tool that breaks one
is a design error, reported with the tool's design line, and nothing is generated. Targets named
only on the command line (``tooldesign gen --targets``) are a question: each problem is a notice
with the design line, and generation goes on (exit code unchanged) — declare the target in the
design to make it a gate. The rules are the providers' (:mod:`tooldesign.runtime.providers.targets`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from tooldesign.contract.loading import LOADING_KEY
from tooldesign.contract.providers import STRICT_PROVIDERS
from tooldesign.ir.errors import DesignError, DesignIssue, DesignNotice
from tooldesign.ir.model import Design, Service, ServiceTargets, Tool
from tooldesign.runtime.providers import ExportError
from tooldesign.runtime.providers.targets import TARGETS, check_targets

DesignCheck = Callable[[Design], list[DesignNotice]]


def target_check(command_line: Sequence[str] = (), *, server: str | None = None) -> DesignCheck:
    """The check ``generate`` runs after evaluation: every service's declared targets (design
    errors), and the targets named on the command line (notices).

    ``server`` is the MCP server name the command line's targets count (default: the server
    the service's ``Targets`` names, else the service's own name, as ``tooldesign serve-mcp``
    names a server).
    """

    def check(design: Design) -> list[DesignNotice]:
        errors: list[DesignIssue] = []
        notices: list[DesignNotice] = []
        for service in design.services:
            declared = service.targets
            promised = _known(declared, errors) if declared is not None else []
            asked = [t for t in command_line if t not in promised]
            if not promised and not asked:
                continue
            own_server = (declared.server if declared is not None else None) or service.name
            tools, entries = _catalog_entries(design, service)
            checks: tuple[tuple[list[str], str, list[Any], type[DesignIssue]], ...] = (
                (promised, own_server, errors, DesignIssue),
                (asked, server or own_server, notices, DesignNotice),
            )
            for targets, served_as, found, kind in checks:
                if not targets:
                    continue
                for problem in check_targets(served_as, entries, targets):
                    tool = tools.get(problem.tool) if problem.tool else None
                    element: Tool | Service = tool if tool is not None else service
                    message = (
                        f"{TARGETS[problem.target].title} ({problem.target}) {problem.message}"
                    )
                    found.append(kind(message, element.location, element.path))
            if declared is not None and declared.eager_tokens is not None:
                for message in _over_budget(entries, promised, declared.eager_tokens):
                    errors.append(DesignIssue(message, declared.location, declared.path))
        if errors:
            raise DesignError(sorted(errors, key=_line))
        return sorted(notices, key=_line)

    return check


def _over_budget(entries: list[dict[str, Any]], targets: list[str], budget: int) -> list[str]:
    """For each provider target, the eager tools' prompt cost when over ``budget`` tokens."""
    from tooldesign.runtime.providers import export_tools
    from tooldesign.runtime.providers.tokens import token_counter

    count = token_counter()
    if count is None:
        needed = (
            "Targets eager_tokens= needs the offline token counter to check the budget: "
            "pip install 'tooldesign[tokens]'"
        )
        return [needed]
    eager = [e for e in entries if e.get(LOADING_KEY) != "deferred"]
    problems: list[str] = []
    for name in targets:
        target = TARGETS[name]
        if target.provider is None or not eager:
            continue
        strict = target.schema is not None and target.provider in STRICT_PROVIDERS
        fallback = strict or target.provider == "gemini"
        try:
            tools = export_tools(eager, target.provider, strict=strict, fallback=fallback)
        except ExportError:
            continue  # the target's own check names what cannot be exported
        costs = sorted(
            (
                (count(json.dumps(tool)), entry["name"])
                for tool, entry in zip(tools, eager, strict=True)
            ),
            key=lambda item: (-item[0], item[1]),
        )
        spent = count(json.dumps(tools))
        if spent > budget:
            largest = ", ".join(f"{tool} ({cost:,})" for cost, tool in costs[:3])
            problems.append(
                f"{target.title} ({name}): the eagerly loaded tools cost {spent:,} tokens, over "
                f"the budget of {budget:,} (Targets eager_tokens=); the largest are {largest}: "
                'defer some with Loading("deferred")'
            )
    return problems


def _known(declared: ServiceTargets, errors: list[DesignIssue]) -> list[str]:
    """The target names ``Targets(...)`` gives that exist, each once; the others reported."""
    known: list[str] = []
    for name in declared.names:
        if name in TARGETS:
            if name not in known:
                known.append(name)
        else:
            errors.append(
                DesignIssue(
                    f"unknown target {name!r}; the targets are: {', '.join(TARGETS)}",
                    declared.location,
                    declared.path,
                )
            )
    return known


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
