"""A tool implemented by an agent (``Agent(...)`` in its design): one definition, read by the
evaluator (checked), the IR (carried), the generated specs (written) and the runtime (applied to
the inner run).

The tool's ``Args`` are what the calling model sends; its ``Return`` is what the inner agent must
produce. The design also says which toolsets the inner agent may use, which values of the outer
call's metadata flow to the inner run (never from the model), and the inner run's budget.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

BUDGET_NAMES: tuple[str, ...] = ("max_turns", "max_tool_calls", "max_tokens")
"""The budgets counted in units (model turns, inner tool calls, tokens the framework reports)."""

DEFAULT_OUTPUT_RETRIES = 1
"""How many times, by default, an inner agent whose output is outside ``Return`` is asked again."""


def check_budget(name: str, value: object) -> None:
    """Raise ``ValueError`` naming ``name`` when ``value`` cannot be that budget."""
    if name == "timeout":
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {value!r}")
        return
    if name == "output_retries":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"output_retries must be an integer of 0 or more, got {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True, slots=True)
class AgentContract:
    """What the design says of a tool whose implementation is an agent run.

    ``uses`` names the toolsets (of the same service) the inner agent may call; ``forward``
    names the values of the outer call's metadata (``session_id``, a label…) the inner run's
    calls carry, so its tools' injected fields are filled from them; the rest bound one call's
    inner run (``None``: no bound of that kind): model ``max_turns``, inner ``max_tool_calls``,
    ``max_tokens`` (where the framework reports them), ``timeout`` in seconds of the whole run.
    ``output_retries`` is how many times an output outside ``Return`` is sent back to the inner
    agent to correct before the call is answered as a malformed result.
    """

    uses: tuple[str, ...] = ()
    forward: tuple[str, ...] = ()
    max_turns: int | None = None
    max_tool_calls: int | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    output_retries: int = DEFAULT_OUTPUT_RETRIES

    def __post_init__(self) -> None:
        for name in (*BUDGET_NAMES, "timeout", "output_retries"):
            value = getattr(self, name)
            if value is not None:
                check_budget(name, value)

    def given(self) -> dict[str, object]:
        """The fields the design sets (those not at their default), in declaration order."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = value
        return out


AGENT_KEY = "agent"
"""The catalog entry's key saying an agent implements the tool: ``{"uses": [...], "forward"?:
[...], "max_turns"?: n, "max_tool_calls"?: n, "max_tokens"?: n, "timeout"?: s,
"output_retries"?: n}`` (what the design sets; ``uses`` always)."""


def agent_entry(contract: AgentContract) -> dict[str, object]:
    """``contract`` as the catalog lists it (under :data:`AGENT_KEY`)."""
    given = contract.given()
    entry: dict[str, object] = {"uses": list(contract.uses)}
    for name, value in given.items():
        if name != "uses":
            entry[name] = list(value) if isinstance(value, tuple) else value
    return entry


def agent_from_entry(value: object, where: str, problems: list[str]) -> AgentContract | None:
    """The contract a catalog entry's ``agent`` lists (``None``: none, or a problem added)."""
    if value is None:
        return None
    names = {f.name for f in dataclasses.fields(AgentContract)}
    if not isinstance(value, dict) or not set(value) <= names:
        problems.append(f"{where}: 'agent' must be an object of {', '.join(sorted(names))}")
        return None
    lists = ("uses", "forward")
    if not all(isinstance(value.get(k, []), list) for k in lists) or not all(
        isinstance(n, str) for k in lists for n in value.get(k, [])
    ):
        problems.append(f"{where}: 'agent': 'uses' and 'forward' must be lists of names")
        return None
    fields: dict[str, Any] = {k: tuple(v) if k in lists else v for k, v in value.items()}
    try:
        return AgentContract(**fields)
    except (TypeError, ValueError) as exc:
        problems.append(f"{where}: 'agent': {exc}")
        return None


def agent_summary(contract: AgentContract) -> str:
    """The contract in words, for a reader: what the agent uses and its budget."""
    uses = ", ".join(contract.uses) or "any toolset of its service"
    bounds = [
        f"{value:g} {words}"
        for value, words in (
            (contract.max_turns, "model turns"),
            (contract.max_tool_calls, "tool calls"),
            (contract.max_tokens, "tokens"),
            (contract.timeout, "s"),
        )
        if value is not None
    ]
    budget = f"; at most {', '.join(bounds)} per call" if bounds else ""
    return f"an agent does the work, with {uses}{budget}"


__all__ = [
    "AGENT_KEY",
    "BUDGET_NAMES",
    "DEFAULT_OUTPUT_RETRIES",
    "AgentContract",
    "agent_entry",
    "agent_from_entry",
    "agent_summary",
    "check_budget",
]
