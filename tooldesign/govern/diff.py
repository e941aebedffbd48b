"""``tooldesign diff``: two versions of a tool catalog, every change classified.

Tools are matched by id. A tool left over on both sides is matched again: by its name in the
same service (it moved to another toolset: its id changed, which breaks applications, while
models see the same name), then by its schemas (the same arguments and result under a new
name: renamed, which breaks models and applications alike). What is still left over was
removed (breaking for models) or added (compatible). A tool whose fingerprint did not change
is not looked into.

For a matched tool, each part of its entry is compared (see :mod:`tooldesign.govern.changes`
for what each impact means):

========================  ==========================================================
title, description, tags  prompt-only
annotations               prompt-only (hints: what a host shows and a model reads)
payload schema            compared as input (:mod:`tooldesign.govern.schemas`)
result schema             compared as output
server data               a kind removed, turned off by default, or its schema changed
                          as output: breaking for applications; a kind added: compatible
payload/result ``name``   the generated class names: renamed, breaking for applications
examples                  prompt-only
``bounded``               no longer bounded: breaking for applications
``injected``              (names of injected fields) one added: breaking for applications
                          (callers must supply it); one removed: compatible
``confirm``               approval newly required: breaking for applications
any other key             breaking for applications (a key this version does not know)
========================  ==========================================================
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tooldesign.contract.fingerprint import (
    FINGERPRINT_KEY,
    canonical_schema,
    fingerprint_of,
    tool_fingerprint,
)
from tooldesign.contract.rules import split_rules
from tooldesign.govern.changes import (
    ABSENT,
    CatalogDiff,
    Change,
    ToolChange,
    ToolStatus,
    described,
)
from tooldesign.govern.content_diff import diff_content
from tooldesign.govern.rules_diff import rule_changes
from tooldesign.govern.schemas import compare_schemas
from tooldesign.govern.sources import CatalogTools
from tooldesign.jsonschema.refs import pointer_token
from tooldesign.jsonschema.text import shown

Entry = Mapping[str, Any]

_IDENTITY = frozenset({"id", "name", "service", "toolset", FINGERPRINT_KEY})
_PROMPT = ("title", "description", "tags", "loading")
_KNOWN = frozenset(
    {
        *_IDENTITY,
        *_PROMPT,
        "annotations",
        "payload",
        "result",
        "bounded",
        "server_data",
        "injected",
        "confirm",
    }
)


def diff_catalogs(old: CatalogTools, new: CatalogTools) -> CatalogDiff:
    """The changes from ``old`` to ``new``."""
    tools, unchanged = diff_entries(old.entries, new.entries)
    return CatalogDiff(
        old_label=old.label,
        new_label=new.label,
        tools=tuple(tools),
        old_count=len(old.entries),
        new_count=len(new.entries),
        old_versions=old.versions,
        new_versions=new.versions,
        unchanged=unchanged,
        content=tuple(diff_content(old.content, new.content)),
    )


def diff_entries(
    old: Mapping[str, Entry], new: Mapping[str, Entry]
) -> tuple[list[ToolChange], int]:
    """The changed tools between two sets of catalog entries (by id), and how many are the same."""
    matched: dict[str, tuple[str, ToolStatus]] = {}  # new id → (old id, how they matched)
    for ident in new:
        if ident in old:
            matched[ident] = (ident, "changed")
    gone = [ident for ident in old if ident not in new]
    fresh = [ident for ident in new if ident not in old]
    for status, key in (("moved", _service_and_name), ("renamed", _shape)):
        by_key: dict[Any, list[str]] = {}
        for ident in gone:
            by_key.setdefault(key(old[ident]), []).append(ident)
        for ident in list(fresh):
            candidates = by_key.get(key(new[ident]))
            if candidates:
                before = candidates.pop(0)
                matched[ident] = (before, status)  # type: ignore[assignment]
                gone.remove(before)
                fresh.remove(ident)
    out: list[ToolChange] = []
    unchanged = 0
    for ident, entry in new.items():
        if ident in matched:
            before, status = matched[ident]
            if status == "changed" and old[before] == entry:  # the common case, and the cheapest
                unchanged += 1
                continue
            # Computed, not carried: entries that differ are worth the digest, and whoever
            # changed one may not have fingerprinted it again.
            old_print, new_print = tool_fingerprint(old[before]), tool_fingerprint(entry)
            if old_print == new_print and status == "changed":
                unchanged += 1
                continue
            changes = [
                *_identity_changes(old[before], entry, status),
                *diff_tool(old[before], entry),
            ]
            out.append(
                ToolChange(
                    id=ident,
                    name=str(entry.get("name", ident)),
                    status=status,
                    changes=tuple(changes),
                    old_id=before,
                    old_fingerprint=old_print,
                    new_fingerprint=new_print,
                )
            )
        else:
            added = Change(
                "compatible",
                "tool_added",
                f"new tool {shown(entry.get('name'))}",
                new=entry.get("name"),
            )
            out.append(_lone(ident, entry, "added", added))
    for ident in gone:
        entry = old[ident]
        removed = Change(
            "models",
            "tool_removed",
            f"tool {shown(entry.get('name'))} removed: calls to it now fail",
            old=entry.get("name"),
            also_breaks_applications=True,
        )
        out.append(_lone(ident, entry, "removed", removed))
    return out, unchanged


def _lone(ident: str, entry: Entry, status: ToolStatus, change: Change) -> ToolChange:
    """A tool on one side only: added (with its new fingerprint) or removed (its old one)."""
    fingerprint = fingerprint_of(entry)
    gone = status == "removed"
    return ToolChange(
        id=ident,
        name=str(entry.get("name", ident)),
        status=status,
        changes=(change,),
        old_id=ident if gone else None,
        old_fingerprint=fingerprint if gone else None,
        new_fingerprint=None if gone else fingerprint,
    )


def _service_and_name(entry: Entry) -> Any:
    return (entry.get("service"), entry.get("name"))


def _shape(entry: Entry) -> Any:
    """What a renamed tool keeps: its service and the schemas of its arguments and result."""
    schemas = [
        canonical_schema(_get(entry, "payload", "schema")),
        canonical_schema(_get(entry, "result", "schema")),
    ]
    return (entry.get("service"), json.dumps(schemas, sort_keys=True))


def _identity_changes(old: Entry, new: Entry, status: ToolStatus) -> list[Change]:
    if status == "moved":
        return [
            Change(
                "applications",
                "tool_moved",
                f"moved from toolset {shown(old.get('toolset'))} to {shown(new.get('toolset'))}: "
                "its id changed (models see the same name)",
                "/id",
                old=old.get("id"),
                new=new.get("id"),
            )
        ]
    if status == "renamed":
        return [
            Change(
                "models",
                "tool_renamed",
                f"renamed from {shown(old.get('name'))} to {shown(new.get('name'))}: calls to "
                "the old name now fail",
                "/name",
                old=old.get("name"),
                new=new.get("name"),
                also_breaks_applications=True,
            )
        ]
    return []


def diff_tool(old: Entry, new: Entry) -> list[Change]:
    """Every change between two catalog entries of one tool (its identity aside)."""
    changes: list[Change] = []
    for key in _PROMPT:
        before, after = old.get(key, _default(key)), new.get(key, _default(key))
        if before != after:
            changes.append(_prompt(f"/{key}", key, before, after))
    changes.extend(_annotations(old.get("annotations") or {}, new.get("annotations") or {}))
    changes.extend(_message(old, new, "payload", "input", "argument"))
    changes.extend(_message(old, new, "result", "output", "result field"))
    changes.extend(_bounded(old.get("bounded", False), new.get("bounded", False)))
    changes.extend(_server_data(old.get("server_data") or [], new.get("server_data") or []))
    changes.extend(_injected(old.get("injected") or [], new.get("injected") or []))
    changes.extend(_confirm(old.get("confirm", ABSENT), new.get("confirm", ABSENT)))
    for key in [*new, *(k for k in old if k not in new)]:
        if key in _KNOWN:
            continue
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if before != after:
            changes.append(
                Change(
                    "applications",
                    "entry_changed",
                    f"{shown(key)} {described(before, after)} (a catalog key this tooldesign does "
                    "not know: counted as breaking)",
                    f"/{pointer_token(key)}",
                    old=before,
                    new=after,
                )
            )
    return changes


def _default(key: str) -> Any:
    return [] if key == "tags" else None


def _prompt(path: str, what: str, before: Any, after: Any, field: str = "") -> Change:
    return Change(
        "prompt",
        f"{what}_changed",
        f"{what} {described(before, after)}",
        path,
        field,
        before,
        after,
    )


def _annotations(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterable[Change]:
    for key in [*new, *(k for k in old if k not in new)]:
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if before != after:
            yield _prompt(f"/annotations/{pointer_token(key)}", f"annotation {key}", before, after)


def _message(old: Entry, new: Entry, key: str, direction: Any, noun: str) -> list[Change]:
    before, after = _mapping(old.get(key)), _mapping(new.get(key))
    changes: list[Change] = []
    if before.get("name") != after.get("name"):
        changes.append(
            Change(
                "applications",
                "class_renamed",
                f"the generated {key} class {described(before.get('name', ABSENT), after.get('name', ABSENT))}",
                f"/{key}/name",
                old=before.get("name", ABSENT),
                new=after.get("name", ABSENT),
            )
        )
    example_before, example_after = before.get("example", ABSENT), after.get("example", ABSENT)
    if example_before != example_after:
        changes.append(_prompt(f"/{key}/example", f"{key} example", example_before, example_after))
    old_schema, new_schema = _mapping(before.get("schema")), _mapping(after.get("schema"))
    # Rules across arguments are compared as rules, by name, and the rest of the schema as such.
    old_schema, old_rules = split_rules(old_schema)
    new_schema, new_rules = split_rules(new_schema)
    changes.extend(rule_changes(old_rules, new_rules, f"/{key}/schema"))
    changes.extend(
        compare_schemas(
            old_schema, new_schema, pointer=f"/{key}/schema", direction=direction, noun=noun
        )
    )
    return changes


def _bounded(before: Any, after: Any) -> list[Change]:
    if bool(before) == bool(after):
        return []
    if before:
        return [
            Change(
                "applications",
                "bounded_changed",
                "no longer a bounded result (no returned/total/truncated to read)",
                "/bounded",
                old=before,
                new=after,
            )
        ]
    return [
        Change(
            "compatible",
            "bounded_changed",
            "now a bounded result",
            "/bounded",
            old=before,
            new=after,
        )
    ]


def _server_data(old: list[Any], new: list[Any]) -> list[Change]:
    old_kinds = {
        item.get("kind"): (i, item) for i, item in enumerate(old) if isinstance(item, Mapping)
    }
    new_kinds = {
        item.get("kind"): (i, item) for i, item in enumerate(new) if isinstance(item, Mapping)
    }
    changes: list[Change] = []
    for kind, (index, item) in new_kinds.items():
        path = f"/server_data/{index}"
        if kind not in old_kinds:
            changes.append(
                Change(
                    "compatible",
                    "server_data_added",
                    f"new server data {shown(kind)}",
                    path,
                    new=item,
                )
            )
            continue
        _, before = old_kinds[kind]
        if before.get("description") != item.get("description"):
            changes.append(
                _prompt(
                    f"{path}/description",
                    f"server data {shown(kind)} description",
                    before.get("description"),
                    item.get("description"),
                )
            )
        if before.get("default") != item.get("default"):
            off = item.get("default") == "off"
            changes.append(
                Change(
                    "applications" if off else "compatible",
                    "server_data_default_changed",
                    f"server data {shown(kind)} is now {'off' if off else 'on'} by default"
                    + (" (observers get it only when a call asks)" if off else ""),
                    f"{path}/default",
                    old=before.get("default"),
                    new=item.get("default"),
                )
            )
        changes.extend(
            compare_schemas(
                _mapping(before.get("schema")),
                _mapping(item.get("schema")),
                pointer=f"{path}/schema",
                direction="output",
                noun=f"server data {shown(kind)} field",
            )
        )
    for kind, (index, item) in old_kinds.items():
        if kind not in new_kinds:
            changes.append(
                Change(
                    "applications",
                    "server_data_removed",
                    f"server data {shown(kind)} removed",
                    f"/server_data/{index}",
                    old=item,
                )
            )
    return changes


def _injected(old: list[Any], new: list[Any]) -> list[Change]:
    before, after = _injected_names(old), _injected_names(new)
    changes = [
        Change(
            "applications",
            "injected_added",
            f"new injected field {shown(name)}: callers must now supply it",
            "/injected",
            field=name,
            new=name,
        )
        for name in after
        if name not in before
    ]
    changes.extend(
        Change(
            "compatible",
            "injected_removed",
            f"injected field {shown(name)} no longer needed",
            "/injected",
            field=name,
            old=name,
        )
        for name in before
        if name not in after
    )
    return changes


def _injected_names(value: list[Any]) -> list[str]:
    """Injected field names, listed as names or as objects with a ``name``."""
    names: list[str] = []
    for item in value:
        name = item.get("name") if isinstance(item, Mapping) else item
        if isinstance(name, str):
            names.append(name)
    return names


def _confirm(before: Any, after: Any) -> list[Change]:
    if before == after:
        return []
    if not before and after:
        return [
            Change(
                "applications",
                "confirm_added",
                "calls now need approval",
                "/confirm",
                old=before,
                new=after,
            )
        ]
    if before and not after:
        return [
            Change(
                "compatible",
                "confirm_removed",
                "calls no longer need approval",
                "/confirm",
                old=before,
                new=after,
            )
        ]
    return [_prompt("/confirm", "approval", before, after)]


def _get(entry: Entry, key: str, inner: str) -> Any:
    holder = entry.get(key)
    return holder.get(inner) if isinstance(holder, Mapping) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
