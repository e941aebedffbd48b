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


__all__ = ["BUDGET_NAMES", "DEFAULT_OUTPUT_RETRIES", "AgentContract", "check_budget"]
