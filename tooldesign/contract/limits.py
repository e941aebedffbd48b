"""A tool's own limits on one call (``Limits(...)`` in its design): one definition, read by the
evaluator (checked), the IR (carried), the generated specs (written) and the runtime (applied
over its :class:`~tooldesign.runtime.Limits`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, get_args

Overflow = Literal["cut", "refuse", "spill"]
"""What happens to a result over its budget: ``cut`` (text cut short, data shown as a preview),
``refuse`` (an error telling the model to ask for less) or ``spill`` (a preview and a handle
``read_result`` reads the rest with). Unset: text is cut and data refused."""

OVERFLOWS: tuple[str, ...] = get_args(Overflow)

MAX_DEPTH = 200
"""The deepest nesting any tool may accept: what pydantic-core's JSON reader reads."""


def check_limit(name: str, value: object) -> None:
    """Raise ``ValueError`` naming ``name`` when ``value`` cannot be that limit."""
    if name == "result_overflow":
        if value not in OVERFLOWS:
            choices = ", ".join(repr(o) for o in OVERFLOWS)
            raise ValueError(f"result_overflow must be one of {choices}, got {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"the limit {name} must be a positive integer, got {value!r}")
    if name == "depth" and value > MAX_DEPTH:
        raise ValueError(f"the limit depth can be at most {MAX_DEPTH}, got {value}")


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """A tool's own limits, from its design; ``None`` leaves a limit at the runtime's value."""

    payload_bytes: int | None = None
    depth: int | None = None
    array_items: int | None = None
    result_bytes: int | None = None
    result_overflow: Overflow | None = None
    result_tokens: int | None = None

    def __post_init__(self) -> None:
        for name, value in self.given().items():
            check_limit(name, value)

    def given(self) -> dict[str, int | str]:
        """The limits the design sets, by name, in declaration order."""
        named = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        return {name: value for name, value in named if value is not None}

    def __bool__(self) -> bool:
        return bool(self.given())


LIMIT_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ToolLimits))
