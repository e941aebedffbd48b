"""The ``content.json`` format: the prompts, resources and resource templates a toolset serves
beside its tools over MCP, written by ``tooldesign gen`` beside its ``tool_schemas.json`` and
read back by :func:`parse_content_catalog`::

    {"count": N, "content": [<entry>, …]}

==================  ========================================================================
``kind``            ``"prompt"``, ``"resource"`` or ``"template"``
``name``            its name (a prompt's is what ``prompts/get`` asks for)
``title``           a title, or ``null``
``description``     what hosts show
``uri``             a resource's URI, or a template's URI template (``docs://{kind}/{id}``);
                    ``null`` for a prompt
``mime_type``       a resource's or template's media type, ``null`` for a prompt
``arguments``       the JSON Schema of a prompt's arguments or a template's variables (an
                    object; every template variable is required)
``completes``       ``{argument: "values" | "handler"}``: where ``completion/complete`` finds
                    an argument's candidates (the values its type allows, or a handler)
``asks``            whom a prompt asks while it renders (``["user", "model", "roots"]``,
                    ``Asks``); left out when it asks nobody
==================  ========================================================================
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tooldesign.contract.asks import WHOM, asks_problem
from tooldesign.contract.errors import UserError

CONTENT_CATALOG_NAME = "content.json"
KINDS = ("prompt", "resource", "template")


@dataclass(frozen=True, slots=True)
class ContentEntry:
    kind: Literal["prompt", "resource", "template"]
    name: str
    title: str | None
    description: str
    uri: str | None
    mime_type: str | None
    arguments: Mapping[str, Any]
    completes: Mapping[str, Literal["values", "handler"]]
    asks: tuple[str, ...] = ()


class ContentCatalogError(UserError, ValueError):
    """A ``content.json`` is corrupt or not one: ``problems`` says what is wrong."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {problem}" for problem in problems)
        super().__init__(f"{source}: not a valid content catalog:\n{lines}")


def content_catalog_text(entries: Sequence[Mapping[str, Any]]) -> str:
    """The file's text: one entry a line, keys in the order written, so diffs stay small."""
    lines = ",\n".join("    " + json.dumps(entry, ensure_ascii=False) for entry in entries)
    body = f"[\n{lines}\n  ]" if entries else "[]"
    return f'{{\n  "count": {len(entries)},\n  "content": {body}\n}}\n'


def parse_content_catalog(data: str | bytes, *, source: str = "<content>") -> list[ContentEntry]:
    """The entries of a ``content.json``; a :class:`ContentCatalogError` lists every problem."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ContentCatalogError(source, [f"not valid JSON: {exc}"]) from None
    if not isinstance(document, dict) or not isinstance(document.get("content"), list):
        raise ContentCatalogError(source, ['not an object with a "content" list'])
    problems: list[str] = []
    entries = []
    for i, raw in enumerate(document["content"]):
        where = f"content[{i}]"
        if not isinstance(raw, dict):
            problems.append(f"{where} is not an object")
            continue
        entry = _entry(raw, where, problems)
        if entry is not None:
            entries.append(entry)
    if document.get("count") != len(document["content"]):
        problems.append(f"count is {document.get('count')!r} but {len(entries)} entries follow")
    if problems:
        raise ContentCatalogError(source, problems)
    return entries


def _entry(raw: Mapping[str, Any], where: str, problems: list[str]) -> ContentEntry | None:
    kind, name = raw.get("kind"), raw.get("name")
    before = len(problems)
    if kind not in KINDS:
        problems.append(f"{where}.kind is {kind!r}, not one of {', '.join(KINDS)}")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}.name is not a name")
    if not isinstance(raw.get("description"), str):
        problems.append(f"{where}.description is not a text")
    uri = raw.get("uri")
    if (kind == "prompt") != (uri is None) or (uri is not None and not isinstance(uri, str)):
        problems.append(f"{where}.uri must be a text for a resource or template, null for a prompt")
    arguments, completes = raw.get("arguments"), raw.get("completes")
    if not isinstance(arguments, dict):
        problems.append(f"{where}.arguments is not a JSON Schema object")
    if not isinstance(completes, dict) or any(
        v not in ("values", "handler") for v in completes.values()
    ):
        problems.append(f'{where}.completes is not {{argument: "values" | "handler"}}')
    asks = raw.get("asks", [])
    if not isinstance(asks, list) or (asks and asks_problem(tuple(asks)) is not None):
        problems.append(f"{where}.asks is not a list of {', '.join(map(repr, WHOM))}")
    if len(problems) > before:
        return None
    return ContentEntry(
        kind=raw["kind"],
        name=raw["name"],
        title=raw.get("title"),
        description=raw["description"],
        uri=uri,
        mime_type=raw.get("mime_type"),
        arguments=raw["arguments"],
        completes=raw["completes"],
        asks=tuple(asks),
    )
