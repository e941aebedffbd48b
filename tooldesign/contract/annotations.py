"""Tool annotations: behaviour hints a design states for clients (MCP hosts, schedulers, UIs).

The fields of :class:`ToolAnnotations` are the one table of annotations: each field's name is
the DSL keyword (``Annotations(read_only=True)``), the IR, spec and catalog key, and carries
its MCP hint name and a description. The DSL, the IR, generated specs, catalogs, provider
exports and importers all read this table, so adding an annotation is adding a field here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


def _hint(mcp_hint: str, description: str) -> Any:
    """A field of :class:`ToolAnnotations`: unstated (``None``) unless a design says so."""
    return field(default=None, metadata={"mcp_hint": mcp_hint, "description": description})


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints for clients (MCP annotations). ``None`` means not stated."""

    read_only: bool | None = _hint("readOnlyHint", "The tool does not change its environment.")
    destructive: bool | None = _hint(
        "destructiveHint", "The tool may change or delete what is already there."
    )
    idempotent: bool | None = _hint(
        "idempotentHint", "Calling the tool again with the same arguments changes nothing more."
    )
    open_world: bool | None = _hint(
        "openWorldHint", "The tool reaches beyond a closed set of systems (the web, say)."
    )

    def given(self) -> dict[str, bool]:
        """The hints stated, by name, in table order (what a catalog entry lists)."""
        return {
            row.name: value for row in ANNOTATIONS if (value := getattr(self, row.name)) is not None
        }

    def mcp_hints(self) -> dict[str, bool]:
        """The hints stated, under MCP's names (``readOnlyHint``…)."""
        return {
            row.mcp_hint: value
            for row in ANNOTATIONS
            if (value := getattr(self, row.name)) is not None
        }


@dataclass(frozen=True, slots=True)
class Annotation:
    """One row of the table: the annotation's name, its MCP hint name and what it means."""

    name: str
    mcp_hint: str
    description: str


ANNOTATIONS: tuple[Annotation, ...] = tuple(
    Annotation(f.name, f.metadata["mcp_hint"], f.metadata["description"])
    for f in fields(ToolAnnotations)
)
"""Every annotation, in the order catalogs and exports list them."""

ANNOTATION_NAMES: frozenset[str] = frozenset(row.name for row in ANNOTATIONS)

_BY_HINT_NAME: Mapping[str, str] = {
    **{row.mcp_hint: row.name for row in ANNOTATIONS},
    **{f"{row.name}_hint": row.name for row in ANNOTATIONS},
}


def from_hints(values: Mapping[str, Any]) -> ToolAnnotations:
    """The annotations ``values`` states under MCP's hint names (``readOnlyHint``), or their
    snake-case spelling (``read_only_hint``, as Python frameworks write them): what importers
    read from MCP servers and tool decorators. Other keys, and values that are not booleans,
    are left out."""
    return ToolAnnotations(
        **{
            _BY_HINT_NAME[key]: value
            for key, value in values.items()
            if key in _BY_HINT_NAME and isinstance(value, bool)
        }
    )


def annotations_from_entry(value: Any, where: str, problems: list[str]) -> ToolAnnotations:
    """The annotations of a catalog entry (``{"read_only": true, …}``); what is wrong with them
    is added to ``problems``, prefixed with ``where``."""
    if not isinstance(value, Mapping):
        problems.append(f"{where}: 'annotations' must be a JSON object")
        return ToolAnnotations()
    hints: dict[str, bool] = {}
    for key, hint in value.items():
        if key not in ANNOTATION_NAMES:
            problems.append(f"{where}: unknown annotation {key!r}")
        elif not isinstance(hint, bool):
            problems.append(f"{where}: annotation {key!r} must be true or false")
        else:
            hints[key] = hint
    return ToolAnnotations(**hints)
