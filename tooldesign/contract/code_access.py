"""Code mode's access of a tool, as a design states it (``CodeAccess(...)``) and as the catalog,
the specs and the runtime's policy read it.

``call``: code may call the tool freely; ``approve``: code may call it, each call waiting for a
person's approval (the tool's ``Confirm``); ``direct``: only the model calls it, one call per
turn. A design that says nothing leaves it to the tool's side effects (see
``tooldesign.runtime.codemode.policy``).
"""

from __future__ import annotations

from typing import Literal, get_args

CodeAccess = Literal["call", "approve", "direct"]
CODE_ACCESS: tuple[CodeAccess, ...] = get_args(CodeAccess)


def code_access_problem(value: object, *, confirmed: bool) -> str | None:
    """What is wrong with ``value`` as a tool's code access (``None``: nothing)."""
    if value not in CODE_ACCESS:
        return f"CodeAccess takes one of {', '.join(repr(a) for a in CODE_ACCESS)}, not {value!r}"
    if value == "approve" and not confirmed:
        return (
            "CodeAccess('approve') needs the tool's Confirm (what the person is asked): "
            "declare Confirm(...), or choose 'call' or 'direct'"
        )
    return None
