"""``tooldesign diff`` of the prompts, resources and resource templates toolsets serve beside
their tools (each toolset's ``content.json``), every change classified as a tool's is.

Entries are matched by kind and name (``prompt triage_site``). For a matched one:

========================  ==========================================================
title, description        prompt-only (what hosts show)
``uri``                   a resource's URI or a template's URI template changed: reads of
                          the old one fail (breaking for models and applications)
``mime_type``             breaking for applications (they read the body as it said)
``arguments``             compared as input (:mod:`tooldesign.govern.schemas`): a new
                          required argument, a narrowed value… breaks whoever gets it
``completes``             compatible (where candidates come from)
``asks``                  someone newly asked: breaking for applications (a client must
                          answer, or the prompt fails); one no longer asked: compatible
========================  ==========================================================

An entry removed breaks models and applications (``prompts/get`` or ``resources/read`` of it
now fails); one added is compatible.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.govern.changes import ABSENT, Change, ToolChange, described
from tooldesign.govern.schemas import compare_schemas
from tooldesign.jsonschema.text import shown

Entry = Mapping[str, Any]

_WHAT = {"prompt": "prompt", "resource": "resource", "template": "resource template"}
_READ = {"prompt": "prompts/get", "resource": "resources/read", "template": "resources/read"}


def diff_content(old: Mapping[str, Entry], new: Mapping[str, Entry]) -> list[ToolChange]:
    """The changed entries between two sets of ``content.json`` entries (by ``"kind name"``)."""
    out: list[ToolChange] = []
    for key, entry in new.items():
        what = _WHAT.get(str(entry.get("kind")), "entry")
        before = old.get(key)
        if before is None:
            added = Change("compatible", "content_added", f"new {what} {shown(entry.get('name'))}")
            out.append(ToolChange(key, str(entry.get("name")), "added", (added,)))
        elif before != entry:
            changes = tuple(diff_entry(before, entry))
            if changes:
                out.append(ToolChange(key, str(entry.get("name")), "changed", changes, key))
    for key, entry in old.items():
        if key not in new:
            kind = str(entry.get("kind"))
            removed = Change(
                "models",
                "content_removed",
                f"{_WHAT.get(kind, 'entry')} {shown(entry.get('name'))} removed: "
                f"{_READ.get(kind, 'reading it')} of it now fails",
                old=entry.get("name"),
                also_breaks_applications=True,
            )
            out.append(ToolChange(key, str(entry.get("name")), "removed", (removed,), key))
    return out


def diff_entry(old: Entry, new: Entry) -> list[Change]:
    """Every change between two ``content.json`` entries of one prompt or resource."""
    changes: list[Change] = []
    for key in ("title", "description"):
        if old.get(key) != new.get(key):
            changes.append(_change("prompt", key, old.get(key, ABSENT), new.get(key, ABSENT)))
    if old.get("uri") != new.get("uri"):
        change = _change("models", "uri", old.get("uri", ABSENT), new.get("uri", ABSENT))
        changes.append(
            Change(
                change.impact,
                change.kind,
                change.message + ": reads of the old one fail",
                change.path,
                old=change.old,
                new=change.new,
                also_breaks_applications=True,
            )
        )
    if old.get("mime_type") != new.get("mime_type"):
        changes.append(
            _change("applications", "mime_type", old.get("mime_type"), new.get("mime_type"))
        )
    before, after = old.get("arguments"), new.get("arguments")
    if before != after:
        changes.extend(
            compare_schemas(
                before if isinstance(before, Mapping) else {},
                after if isinstance(after, Mapping) else {},
                pointer="/arguments",
                direction="input",
                noun="argument",
            )
        )
    if old.get("completes") != new.get("completes"):
        changes.append(
            _change("compatible", "completes", old.get("completes"), new.get("completes"))
        )
    asked_before, asked_after = set(old.get("asks", ())), set(new.get("asks", ()))
    if asked_before != asked_after:
        impact = "applications" if asked_after - asked_before else "compatible"
        changes.append(
            _change(impact, "asks", sorted(asked_before) or ABSENT, sorted(asked_after) or ABSENT)
        )
    return changes


def _change(impact: Any, key: str, before: Any, after: Any) -> Change:
    return Change(
        impact,
        f"{key}_changed",
        f"{key} {described(before, after)}",
        f"/{key}",
        old=before,
        new=after,
    )
