"""Whom a tool asks during a call, as a design states it (``Asks(...)``) and as the specs and the
MCP server read it: ``"user"`` (a form: MCP elicitation), ``"model"`` (the host's model: MCP
sampling), ``"roots"`` (the client's roots). A tool asks through its call's
``tooldesign.runtime.exchanges()``; over MCP, what its design does not declare is not asked.
"""

from __future__ import annotations

from typing import Literal, get_args

Whom = Literal["user", "model", "roots"]
WHOM: tuple[Whom, ...] = get_args(Whom)


def asks_problem(values: tuple[object, ...]) -> str | None:
    """What is wrong with ``values`` as the ``Asks`` of a tool (``None``: nothing)."""
    if not values:
        return f"Asks names whom the tool asks: one or more of {', '.join(map(repr, WHOM))}"
    for value in values:
        if value not in WHOM:
            return f"Asks takes {', '.join(map(repr, WHOM))}, not {value!r}"
    if len(set(values)) != len(values):
        return f"Asks names each one once, got {', '.join(map(repr, values))}"
    return None
