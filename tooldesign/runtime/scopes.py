"""Step 1b of the pipeline, after resolving the tool: may this caller call it at all?

A tool's ``Scopes`` are checked against the call's verified :class:`~tooldesign.runtime.
Principal` (``ToolCallMeta.principal``), before any interceptor and before its arguments are
read: a caller that lacks one of them is answered at once (:func:`~tooldesign.runtime.answers.
scope_missing` names what it lacks, nothing more), and nothing of the call runs. A call with no
principal is checked only by a runtime told to ``require_principal``: in-process use without
auth keeps working as before. Listing never grants: an MCP server hides the tools a caller may
not call, and a call by name still comes through here.
"""

from __future__ import annotations

from typing import Any

from tooldesign.contract.scopes import missing_scopes
from tooldesign.runtime import answers
from tooldesign.runtime.principal import Principal
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.specs import ToolSpec


def may_call(scopes: tuple[str, ...], principal: Principal | None, *, required: bool) -> bool:
    """Whether a caller may call (and be shown) a tool that needs ``scopes``."""
    if principal is None:
        return not required
    return not missing_scopes(scopes, principal.scopes)


def refused(
    spec: ToolSpec[Any, Any], principal: Principal | None, *, required: bool
) -> ToolResult | None:
    """The answer to a call its caller may not make, or ``None`` when it may go on."""
    if principal is None:
        return answers.scope_missing(spec.id, spec.scopes, principal=False) if required else None
    missing = missing_scopes(spec.scopes, principal.scopes)
    return answers.scope_missing(spec.id, missing, principal=True) if missing else None
