"""A catalog diff as people read it: a summary, then each changed tool with its changes by impact."""

from __future__ import annotations

from tooldesign.govern.changes import ABSENT, IMPACT_TITLES, IMPACTS, CatalogDiff, Change
from tooldesign.jsonschema.text import shown

_STATUS_WORDS = {
    "changed": "changed",
    "added": "added",
    "removed": "removed",
    "renamed": "renamed",
    "moved": "moved to another toolset",
}


def summary_lines(diff: CatalogDiff) -> list[str]:
    """The head of the report: what was compared, how many tools changed, and how."""
    statuses = diff.statuses()
    counts = diff.counts()
    tools = ", ".join(
        f"{statuses[status]} {word}" for status, word in _STATUS_WORDS.items() if status in statuses
    )
    compared = (
        f"{_source(diff.old_label, diff.old_versions)} → "
        f"{_source(diff.new_label, diff.new_versions)}"
    )
    tally = f"{tools + ', ' if tools else ''}{diff.unchanged} unchanged"
    return [
        f"tooldesign diff: {compared}",
        f"{diff.old_count} tool(s) before, {diff.new_count} after: {tally}",
        " · ".join(f"{IMPACT_TITLES[impact]}: {counts[impact]}" for impact in IMPACTS),
    ]


def render_text(diff: CatalogDiff) -> str:
    """The whole report, ending with a newline."""
    lines = summary_lines(diff)
    if not diff.tools:
        lines.append("")
        lines.append("No tool changed.")
    if diff.content:
        statuses: dict[str, int] = {}
        for entry in diff.content:
            statuses[entry.status] = statuses.get(entry.status, 0) + 1
        told = ", ".join(f"{n} {_STATUS_WORDS[s]}" for s, n in statuses.items())
        lines.append("")
        lines.append(f"Prompts and resources: {told}")
    for tool in (*diff.tools, *diff.content):
        lines.append("")
        heading = f"{tool.id} ({_STATUS_WORDS[tool.status]})"
        if tool.old_id and tool.old_id != tool.id:
            heading += f", was {tool.old_id}"
        lines.append(heading)
        for impact, changes in tool.by_impact().items():
            lines.append(f"  {IMPACT_TITLES[impact]}")
            for change in changes:
                lines.extend(change_lines(change))
    return "\n".join(lines) + "\n"


def change_lines(change: Change) -> list[str]:
    """One change: what changed (on its field), where (its JSON Pointer), and a witness."""
    head = f"{change.field}: {change.message}" if change.field else change.message
    lines = [f"    - {head}"]
    if change.path:
        lines.append(f"      at {change.path}")
    if change.witness is not ABSENT:
        lines.append(f"      e.g. {shown(change.witness, 160)} was accepted and now is not")
    elif unproven(change):
        lines.append("      (no payload found that shows it: check whether it really narrows)")
    return lines


def unproven(change: Change) -> bool:
    """A schema change called breaking for models that no witness payload backs: judged keyword
    by keyword, it may narrow nothing (``minLength: 1`` added to an email)."""
    return change.impact == "models" and change.witness is ABSENT and "/schema" in change.path


def _source(label: str, versions: tuple[str, ...]) -> str:
    if not versions:
        return label
    shown_versions = ", ".join(versions[:3]) + (", …" if len(versions) > 3 else "")
    return f"{label} (version {shown_versions})"
