"""Content fingerprints of a design's toolsets.

A toolset's fingerprint covers everything its validation and generation read: the toolset, the
user types it reaches and the rules that check them. IR reprs leave out source locations, so
moving code around a design file changes nothing.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import tooldesign
from tooldesign.ir.model import Design, Service, Toolset
from tooldesign.ir.walk import used_user_types


def toolset_key(service: Service, toolset: Toolset) -> str:
    return f"{service.name}/{toolset.name}"


def toolset_fingerprint(design: Design, service: Service, toolset: Toolset) -> str:
    types = [design.types[name] for name in used_user_types(design, toolset.tools)]
    text = f"{rules_fingerprint()}\n{service.name!r}\n{toolset!r}\n{types!r}"
    return hashlib.sha256(text.encode()).hexdigest()


def toolset_fingerprints(design: Design, *, bound: bool) -> dict[str, str]:
    """The fingerprints of the toolsets that bind tools to application code (``bound``), or of
    the others."""
    return {
        toolset_key(service, toolset): toolset_fingerprint(design, service, toolset)
        for service in design.services
        for toolset in service.toolsets
        if (
            any(tool.binding is not None for tool in toolset.tools)
            or any(c.binding is not None or c.completer is not None for c in toolset.content)
        )
        is bound
    }


@cache
def rules_fingerprint() -> str:
    """Changes with tooldesign's version or any rule that builds, checks, binds or names the IR
    (the contracts' tables among them).

    The sources are read, not imported: the IR depends on none of the stages that use it.
    """
    root = Path(tooldesign.__file__).parent
    # contract/ holds the naming rules: the identifiers the IR holds.
    sources = [
        path
        for folder in ("contract", "ir", "eval", "binding")
        for path in (root / folder).rglob("*.py")
    ]
    h = hashlib.sha256(tooldesign.__version__.encode())
    for path in sorted(sources):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()
