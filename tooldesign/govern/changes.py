"""What a catalog diff finds: each change, who it breaks, and the diff as JSON.

Every change has one *impact*, the group a report lists it under:

- ``models`` — breaking for models: a call a model could make before is now rejected, or names
  a tool that is gone;
- ``applications`` — breaking for applications: code or clients built against the old catalog
  (reading results and server data, importing generated classes, supplying injected values)
  get something they do not expect;
- ``compatible`` — everything that worked still works (a new tool, a new optional argument, a
  widened bound…);
- ``prompt`` — prompt-only: what the model reads changed (descriptions, titles, examples,
  tags, annotations), not what is accepted or returned.

A removed or renamed tool is listed as breaking for models and breaks applications too (code
calls it by name): :attr:`Change.breaks` says whom a change breaks, and ``--fail-on`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldesign.jsonschema.text import shown

Impact = Literal["models", "applications", "compatible", "prompt"]
IMPACTS: tuple[Impact, ...] = ("models", "applications", "compatible", "prompt")
IMPACT_TITLES: Mapping[Impact, str] = {
    "models": "breaking for models",
    "applications": "breaking for applications",
    "compatible": "compatible",
    "prompt": "prompt-only",
}
FailOn = Literal["models", "applications", "any"]
ToolStatus = Literal["added", "removed", "renamed", "moved", "changed"]


class _Absent:
    """The value of a side that has nothing (an argument before it was added). One instance,
    :data:`ABSENT`, compared by identity."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()
"""``old`` of something added, ``new`` of something removed; left out of the JSON form."""


def described(before: Any, after: Any) -> str:
    """How a value changed, for messages: ``added: 3``, ``removed (was 3)``, ``changed: 3 → 4``."""
    if before is ABSENT:
        return f"added: {shown(after)}"
    if after is ABSENT:
        return f"removed (was {shown(before)})"
    return f"changed: {shown(before)} → {shown(after)}"


@dataclass(frozen=True, slots=True)
class Change:
    """One change to one tool.

    ``path`` is a JSON Pointer into the tool's catalog entry (in the new catalog; in the old
    one for what was removed), ``field`` the argument or field as people write it
    (``filter.op``, ``resources[].id``, ``labels.*``; ``""`` for the tool or a whole schema).
    ``witness``, for a change breaking models, is a payload the old schema accepts and the new
    one rejects (checked with both), when one could be made.
    """

    impact: Impact
    kind: str
    message: str
    path: str = ""
    field: str = ""
    old: Any = ABSENT
    new: Any = ABSENT
    witness: Any = ABSENT
    also_breaks_applications: bool = False

    @property
    def breaks(self) -> frozenset[str]:
        """Whom this change breaks: ``models``, ``applications``, both, or nobody."""
        if self.impact == "models":
            return frozenset(
                {"models", "applications"} if self.also_breaks_applications else {"models"}
            )
        if self.impact == "applications":
            return frozenset({"applications"})
        return frozenset()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "impact": self.impact,
            "kind": self.kind,
            "message": self.message,
            "path": self.path,
            "field": self.field,
        }
        for key in ("old", "new", "witness"):
            value = getattr(self, key)
            if value is not ABSENT:
                out[key] = value
        out["breaks"] = sorted(self.breaks)
        return out


@dataclass(frozen=True, slots=True)
class ToolChange:
    """The changes to one tool. ``id`` is its id in the new catalog (the old one if removed)."""

    id: str
    name: str
    status: ToolStatus
    changes: tuple[Change, ...]
    old_id: str | None = None
    old_fingerprint: str | None = None
    new_fingerprint: str | None = None

    def by_impact(self) -> dict[Impact, list[Change]]:
        grouped: dict[Impact, list[Change]] = {impact: [] for impact in IMPACTS}
        for change in self.changes:
            grouped[change.impact].append(change)
        return {impact: found for impact, found in grouped.items() if found}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "status": self.status}
        if self.old_id is not None and self.old_id != self.id:
            out["old_id"] = self.old_id
        out["fingerprint"] = {"old": self.old_fingerprint, "new": self.new_fingerprint}
        out["changes"] = [change.to_json() for change in self.changes]
        return out


@dataclass(frozen=True, slots=True)
class CatalogDiff:
    """Every tool that changed between two catalogs, in the new catalog's order (removed tools
    last, in the old catalog's order)."""

    old_label: str
    new_label: str
    tools: tuple[ToolChange, ...]
    old_count: int
    new_count: int
    old_versions: tuple[str, ...] = ()
    new_versions: tuple[str, ...] = ()
    unchanged: int = field(default=0)
    content: tuple[ToolChange, ...] = ()
    """The prompts, resources and resource templates that changed (``content.json``), each
    keyed ``"<kind> <name>"`` as its ``id``."""

    def changes(self) -> Iterable[Change]:
        for tool in (*self.tools, *self.content):
            yield from tool.changes

    def counts(self) -> dict[Impact, int]:
        counted: dict[Impact, int] = dict.fromkeys(IMPACTS, 0)
        for change in self.changes():
            counted[change.impact] += 1
        return counted

    def statuses(self) -> dict[ToolStatus, int]:
        counted: dict[ToolStatus, int] = {}
        for tool in self.tools:
            counted[tool.status] = counted.get(tool.status, 0) + 1
        return counted

    def breaks(self, who: str) -> bool:
        """Whether a change breaks ``who`` (``models`` or ``applications``)."""
        return any(who in change.breaks for change in self.changes())

    def fails(self, fail_on: FailOn) -> bool:
        """Whether the diff holds a change ``--fail-on`` counts as breaking."""
        if fail_on == "any":
            return any(change.breaks for change in self.changes())
        return self.breaks(fail_on)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": {
                "source": self.old_label,
                "versions": list(self.old_versions),
                "tools": self.old_count,
            },
            "new": {
                "source": self.new_label,
                "versions": list(self.new_versions),
                "tools": self.new_count,
            },
            "summary": {
                "tools": {**self.statuses(), "unchanged": self.unchanged},
                "changes": self.counts(),
                "breaking": {
                    "models": self.breaks("models"),
                    "applications": self.breaks("applications"),
                },
            },
            "tools": [tool.to_json() for tool in self.tools],
            "content": [entry.to_json() for entry in self.content],
        }
