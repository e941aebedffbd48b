"""Limits on what one call may carry: the arguments a tool takes, and the result a model reads.

No single call may hold up the others: arguments over a size, nested too deep or with too long
an array are refused before they are validated, and a result over its budget is cut (text) or
refused (structured data) before it reaches the model. :class:`Limits` holds a runtime's
values (``Runtime(limits=Limits(...))``); a design may set its own for one tool
(``Limits(...)`` in a ``Tool`` block), carried by :class:`ToolLimits` in the tool's spec.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB

MAX_DEPTH = 200
"""The deepest nesting any tool may accept: what pydantic-core's JSON reader reads."""


def _check(name: str, value: object) -> None:
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

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            if value is not None:
                _check(name, value)

    def __bool__(self) -> bool:
        return any(value is not None for value in dataclasses.asdict(self).values())


@dataclass(frozen=True, slots=True)
class Limits:
    """What one call may carry, for every tool of a runtime (a tool's design may set its own).

    ``payload_bytes``: the arguments as JSON text (UTF-8), or as a dict, about that much once
    written as JSON; larger arguments are refused before they are read.
    ``depth``: how deeply arrays and objects may nest in the arguments (at most 200).
    ``array_items``: how many items one array in the arguments may hold.
    ``result_bytes``: how much of a result the model reads: a text result past it is cut, with
    a notice of the cut; structured data past it is refused with an error the model can act on
    (the full result stays on the ``ToolResult`` for observers).
    """

    payload_bytes: int = MIB
    depth: int = MAX_DEPTH
    array_items: int = 10_000
    result_bytes: int = 64 * KIB

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            _check(name, value)

    def for_tool(self, own: ToolLimits | None) -> Limits:
        """These limits with the values a tool's design sets over them."""
        if not own:
            return self
        changes = {k: v for k, v in dataclasses.asdict(own).items() if v is not None}
        return dataclasses.replace(self, **changes)


DEFAULT_LIMITS = Limits()


def byte_size(count: int) -> str:
    """A number of bytes for a message: ``1,048,576 bytes (1 MiB)``."""
    for unit, size in (("MiB", MIB), ("KiB", KIB)):
        if count >= size:
            amount = count / size
            shown = f"{amount:.0f}" if amount == int(amount) else f"{amount:.1f}"
            return f"{count:,} bytes ({shown} {unit})"
    return f"{count:,} bytes"


__all__ = ["DEFAULT_LIMITS", "KIB", "MAX_DEPTH", "MIB", "Limits", "ToolLimits", "byte_size"]
