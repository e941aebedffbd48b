"""Who may call a tool from code: the code-mode policy, read from a tool's side effects.

Three kinds of access:

- ``call``: code calls it freely (a read-only or idempotent tool without ``Confirm``);
- ``approve``: code may call it, and the call waits for a person's approval as a direct call
  would (a tool with ``Confirm``: the runtime's approval step decides, through the same flows);
- ``direct``: only the model may call it, one call per turn (anything else: a tool with side
  effects that are not idempotent and that no person confirms).

The default is safe: a tool says nothing of its side effects, it is ``direct``. The design
changes a tool's access with ``CodeAccess(...)``, an application with
``CodeMode(access={"tool": "call"})`` (over the design's); neither lets code call a ``Confirm``
tool without its approval: ``call`` on such a tool still waits for the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.code_access import CODE_ACCESS, CodeAccess
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.runtime.spec.specs import ToolSpec

Access = CodeAccess
ACCESS: tuple[Access, ...] = CODE_ACCESS

RUN_CODE = "code_mode.code.run_code"
"""The id of the built-in ``run_code`` tool (``tooldesign.builtin.code_mode``): a call whose
approvals are known only by running it (its code pauses at a call that waits for a person)."""


def default_access(
    annotations: ToolAnnotations, confirm: ConfirmSpec | None, code_access: Access | None = None
) -> Access:
    """What the design says of a tool's access from code: its ``CodeAccess``, else what its
    annotations and ``Confirm`` say."""
    if code_access is not None:
        return "approve" if confirm is not None and code_access == "call" else code_access
    if confirm is not None:
        return "approve"
    notes = annotations
    if notes.destructive:
        return "direct"
    if notes.read_only or notes.idempotent:
        return "call"
    return "direct"


def access_for(spec: ToolSpec[Any, Any], overrides: Mapping[str, Access]) -> Access:
    """``spec``'s access: the application's choice (by id or name), else the default; a
    ``Confirm`` tool keeps its approval."""
    chosen = overrides.get(spec.id, overrides.get(spec.name))
    if chosen is None:
        return default_access(spec.annotations, spec.confirm, spec.code_access)
    if spec.confirm is not None and chosen == "call":
        return "approve"
    return chosen


def checked_overrides(overrides: Mapping[str, str]) -> dict[str, Access]:
    """``overrides`` as accesses; a value that is not one raises ``ValueError`` naming it."""
    out: dict[str, Access] = {}
    for name, value in overrides.items():
        if value not in ACCESS:
            raise ValueError(
                f"code mode access for {name!r} is {value!r}; expected one of {', '.join(ACCESS)}"
            )
        out[name] = value
    return out
