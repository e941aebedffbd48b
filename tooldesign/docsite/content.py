"""The site's page of the prompts, resources and resource templates its toolsets serve beside
their tools (each toolset's ``content.json``, read with the catalogs)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooldesign.jsonschema import keywords as K


@dataclass(frozen=True, slots=True)
class ArgumentView:
    name: str
    required: bool
    schema: Mapping[str, Any]
    completes: str | None
    """``"its values"`` or ``"a handler"`` (``None``: it does not complete)."""


@dataclass(frozen=True, slots=True)
class ContentView:
    key: str
    """``"<kind> <name>"``, as ``tooldesign diff`` names it."""
    anchor: str
    kind: str
    name: str
    title: str | None
    description: str
    uri: str | None
    mime_type: str | None
    asks: tuple[str, ...]
    arguments: tuple[ArgumentView, ...]


_COMPLETES = {"values": "its values", "handler": "a handler"}


def content_views(content: Mapping[str, Mapping[str, Any]]) -> list[ContentView]:
    """Each entry as the page shows it, prompts first, then resources, then templates."""
    order = {"prompt": 0, "resource": 1, "template": 2}
    views = [_view(key, entry) for key, entry in content.items()]
    return sorted(views, key=lambda v: (order.get(v.kind, 3), v.name))


def content_anchor(key: str) -> str:
    """The id of an entry's section on ``content.html``."""
    return "c-" + re.sub(r"[^A-Za-z0-9_-]+", "-", key)


def _view(key: str, entry: Mapping[str, Any]) -> ContentView:
    schema = entry.get("arguments") or {}
    properties: Mapping[str, Any] = schema.get(K.PROPERTIES) or {}
    required = set(schema.get(K.REQUIRED) or ())
    completes: Mapping[str, str] = entry.get("completes") or {}
    arguments = tuple(
        ArgumentView(name, name in required, prop, _COMPLETES.get(completes.get(name, "")))
        for name, prop in properties.items()
    )
    return ContentView(
        key=key,
        anchor=content_anchor(key),
        kind=str(entry.get("kind")),
        name=str(entry.get("name")),
        title=entry.get("title"),
        description=str(entry.get("description") or ""),
        uri=entry.get("uri"),
        mime_type=entry.get("mime_type"),
        asks=tuple(entry.get("asks") or ()),
        arguments=arguments,
    )
