"""What each client can take: per-target rules, and a checker that names what breaks them.

A *target* is an LLM provider's API (in a mode) or an MCP host. Its rules cover the tool
definition the target receives (OpenAI's strict mode and Gemini's OpenAPI ``parameters`` cannot
express some schemas; the provider exports decide, so the rules are not written twice) and its
name budget, given the name the MCP server is served under (Claude Code calls a tool
``mcp__<server>__<tool>`` and refuses names over 64 characters; Cursor filters a tool whose
server and tool names together reach 60 characters, or whose name is not letters, digits and
underscores).

:data:`TARGETS` is the table; ``docs/governance.md`` lists it with where each rule comes from.
:func:`check_targets` checks one service's tools (their catalog entries: model-facing
schemas) against named targets and returns every problem, per tool and per target.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tooldesign.contract.catalog import CatalogTool
from tooldesign.contract.errors import UserError
from tooldesign.contract.rules import split_rules
from tooldesign.runtime.providers import (
    ExportError,
    ExportProblem,
    Provider,
    ToolDescription,
    ToolIndex,
    anthropic_strict_schema,
    describe,
    gemini_parameters,
    openai_strict_schema,
)

SchemaCheck = Callable[[ToolDescription], tuple[Any, list[ExportProblem]]]


@dataclass(frozen=True, slots=True)
class Target:
    """One client's rules. Empty fields mean the client sets no such rule."""

    name: str
    title: str
    provider: Provider | None = None
    """Whose tool-name rule applies to the tool name as sent (the provider exports' rule)."""
    schema: SchemaCheck | None = None
    """The export form the client needs; what it cannot express is a problem."""
    schema_form: str = ""
    tool_name: tuple[str, str] | None = None
    """A rule of the client's own for the tool name: (regular expression, in words)."""
    server_name: tuple[str, str] | None = None
    """The client's rule for the MCP server's name: (regular expression, in words)."""
    qualified: tuple[str, int] | None = None
    """The name the client gives a tool (``{server}`` and ``{tool}`` filled in) and the
    longest it takes."""
    combined_limit: int | None = None
    """The server and tool names together must stay under this many characters."""
    normalizes: str | None = None
    """Characters the client replaces by ``_`` in names (two tools may then collide)."""
    max_tools: int | None = None
    sources: tuple[str, ...] = ()
    """Where the rules come from."""


_OPENAI_SOURCE = "OpenAI API reference, function tools (name: a-z, A-Z, 0-9, _ and -, at most 64; at most 128 tools a request)"
_OPENAI_STRICT_SOURCE = "OpenAI function calling guide, strict mode: supported schemas"

TARGETS: Mapping[str, Target] = {
    target.name: target
    for target in (
        Target("openai", "OpenAI", provider="openai", max_tools=128, sources=(_OPENAI_SOURCE,)),
        Target(
            "openai-strict",
            "OpenAI (strict mode)",
            provider="openai",
            schema=openai_strict_schema,
            schema_form="strict mode",
            max_tools=128,
            sources=(_OPENAI_SOURCE, _OPENAI_STRICT_SOURCE),
        ),
        Target(
            "anthropic",
            "Anthropic",
            provider="anthropic",
            sources=("Anthropic tool use docs (name: ^[a-zA-Z0-9_-]{1,128}$)",),
        ),
        Target(
            "anthropic-strict",
            "Anthropic (strict tools)",
            provider="anthropic",
            schema=anthropic_strict_schema,
            schema_form="strict tools",
            sources=(
                "Anthropic tool use docs (name: ^[a-zA-Z0-9_-]{1,128}$)",
                "Anthropic structured outputs docs: JSON Schema limitations of strict tools",
            ),
        ),
        Target(
            "gemini",
            "Gemini",
            provider="gemini",
            schema=gemini_parameters,
            schema_form="its OpenAPI parameters",
            sources=(
                (
                    "google-genai FunctionDeclaration (name rule; parameters: an OpenAPI 3.0 subset, "
                    "no $ref, no additionalProperties)"
                ),
            ),
        ),
        Target(
            "mcp",
            "MCP",
            provider="mcp",
            sources=("MCP specification 2025-11-25, tools: tool names",),
        ),
        Target(
            "claude-code",
            "Claude Code",
            server_name=(r"[A-Za-z0-9_-]+", "letters, digits, '_' or '-' (no dots or spaces)"),
            qualified=("mcp__{server}__{tool}", 64),
            normalizes=r"[^A-Za-z0-9_-]",
            sources=(
                (
                    "anthropics/claude-code issues 2326, 2412, 2445: 'tools.N.custom.name: String "
                    "should have at most 64 characters' for mcp__<server>__<tool>"
                ),
                (
                    "awslabs/mcp pull request 2468: dots in server names fail Claude Code's "
                    "configuration check"
                ),
            ),
        ),
        Target(
            "claude-desktop",
            "Claude Desktop",
            tool_name=(r"[A-Za-z0-9_-]{1,64}", "1-64 letters, digits, '_' or '-' (no dots)"),
            sources=(
                (
                    "Claude Desktop remote MCP tools: 'name: String should match pattern "
                    "^[a-zA-Z0-9_-]{1,64}$' (reported by MCP servers using dotted names)"
                ),
            ),
        ),
        Target(
            "cursor",
            "Cursor",
            tool_name=(r"[A-Za-z0-9_]+", "letters, digits and '_' only (no '-' or '.')"),
            combined_limit=60,
            sources=(
                (
                    "Cursor's MCP warning 'Combined server and tool name length (60) exceeds 60 "
                    "characters' (ComposioHQ/composio issue 2788: a total of exactly 60 is filtered)"
                ),
                (
                    "Cursor's MCP warning 'Tool name must only contain alphanumeric characters and "
                    "underscores' (webstudio-is/webstudio issue 5960)"
                ),
            ),
        ),
    )
}


@dataclass(frozen=True, slots=True)
class TargetProblem:
    """Something a target cannot take: in one tool (``tool`` is its id) or in the service as a
    whole (``tool`` is ``None``: too many tools, a server name the client refuses)."""

    target: str
    tool: str | None
    name: str | None
    message: str

    def __str__(self) -> str:
        head = f"tool {self.name!r}" if self.name is not None else "the service"
        return f"{head}: {TARGETS[self.target].title} ({self.target}) {self.message}"


def parse_targets(given: str | Iterable[str]) -> tuple[str, ...]:
    """Target names from ``a,b`` text or a list, checked, in the order given, each once."""
    names: list[str] = []
    items = given.split(",") if isinstance(given, str) else list(given)
    for item in items:
        name = item.strip()
        if not name:
            continue
        if name not in TARGETS:
            raise UserError(f"unknown target {name!r}; the targets are: {', '.join(TARGETS)}")
        if name not in names:
            names.append(name)
    return tuple(names)


def check_targets(
    server: str,
    tools: Sequence[CatalogTool | Mapping[str, Any]],
    targets: Iterable[str],
) -> list[TargetProblem]:
    """Every problem ``targets`` have with ``tools`` (one service's catalog entries), served as
    MCP server ``server``. Problems come target by target, each in the order of the tools."""
    described = [describe(tool) for tool in tools]
    problems: list[TargetProblem] = []
    for name in targets:
        target = TARGETS[name]
        problems.extend(_service_problems(target, server, described))
        problems.extend(_name_problems(target, server, described))
        if target.schema is not None:
            for tool in described:
                # Every schema form checked here takes no rules across arguments: its exports
                # say them in the description instead (ProviderAdapter.takes_rules).
                bare, rules = split_rules(tool.parameters)
                _, found = target.schema(replace(tool, parameters=bare) if rules else tool)
                problems.extend(
                    TargetProblem(
                        name,
                        tool.id,
                        tool.name,
                        f"cannot express it in {target.schema_form}: {_where(p)}{p.message}",
                    )
                    for p in found
                    if p.kind != "invalid_name"
                )
    return problems


def by_tool(problems: Iterable[TargetProblem]) -> dict[str | None, dict[str, list[str]]]:
    """Problems as ``{tool id (None: the service): {target: [messages]}}``."""
    grouped: dict[str | None, dict[str, list[str]]] = {}
    for problem in problems:
        grouped.setdefault(problem.tool, {}).setdefault(problem.target, []).append(problem.message)
    return grouped


def _service_problems(
    target: Target, server: str, tools: Sequence[ToolDescription]
) -> list[TargetProblem]:
    found: list[TargetProblem] = []
    if target.max_tools is not None and len(tools) > target.max_tools:
        found.append(
            TargetProblem(
                target.name,
                None,
                None,
                f"takes at most {target.max_tools} tools in a request; the service has "
                f"{len(tools)} (send a subset, or split the service)",
            )
        )
    if target.server_name is not None:
        pattern, words = target.server_name
        if not re.fullmatch(pattern, server):
            found.append(
                TargetProblem(
                    target.name,
                    None,
                    None,
                    f"refuses the server name {server!r}: it must be {words} (serve it under "
                    "another name)",
                )
            )
    return found


def _name_problems(
    target: Target, server: str, tools: Sequence[ToolDescription]
) -> list[TargetProblem]:
    found: list[TargetProblem] = []
    if target.provider is not None:
        try:
            refused = ToolIndex(tools).name_problems(target.provider)
        except ExportError as error:  # two tools of one name: no client can tell them apart
            refused = list(error.problems)
        found.extend(
            TargetProblem(target.name, p.tool, p.name, f"refuses the name: {p.message}")
            for p in refused
        )
    seen: dict[str, str] = {}
    for tool in tools:
        if target.tool_name is not None:
            pattern, words = target.tool_name
            if not re.fullmatch(pattern, tool.name):
                found.append(
                    TargetProblem(
                        target.name,
                        tool.id,
                        tool.name,
                        f"refuses the name: tool names must be {words}",
                    )
                )
        if target.qualified is not None:
            template, limit = target.qualified
            full = template.format(
                server=_normalized(target, server), tool=_normalized(target, tool.name)
            )
            if len(full) > limit:
                found.append(
                    TargetProblem(
                        target.name,
                        tool.id,
                        tool.name,
                        f"calls it {full!r}, {len(full)} characters, over its limit of {limit} "
                        f"by {len(full) - limit} (shorten the tool or the server name)",
                    )
                )
        if target.combined_limit is not None:
            total = len(server) + len(tool.name)
            if total >= target.combined_limit:
                found.append(
                    TargetProblem(
                        target.name,
                        tool.id,
                        tool.name,
                        f"filters it out: server and tool names together are {total} characters "
                        f"({server!r} + {tool.name!r}); it takes fewer than {target.combined_limit}",
                    )
                )
        if target.normalizes is not None:
            key = _normalized(target, tool.name)
            other = seen.get(key)
            if other is not None and other != tool.name:
                found.append(
                    TargetProblem(
                        target.name,
                        tool.id,
                        tool.name,
                        f"cannot tell it from {other!r}: both become {key!r} there",
                    )
                )
            seen.setdefault(key, tool.name)
    return found


def _normalized(target: Target, name: str) -> str:
    return re.sub(target.normalizes, "_", name) if target.normalizes else name


def _where(problem: ExportProblem) -> str:
    if problem.path is None:
        return ""
    return f"field {problem.path!r}: " if problem.path else "its arguments: "
