"""What each page shows, worked out before rendering: the templates only lay it out."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooldesign.contract.agents import agent_summary
from tooldesign.contract.catalog import CatalogTool
from tooldesign.contract.fingerprint import fingerprint_of
from tooldesign.docsite.definitions import Definition, pretty_json
from tooldesign.docsite.fields import Shape, shape
from tooldesign.jsonschema import keywords as K

_SAFE_FILE = re.compile(r"[A-Za-z0-9_.-]{1,180}")


@dataclass(frozen=True, slots=True)
class Badge:
    label: str
    tone: str
    """``danger``, ``caution``, ``info`` or ``calm``: the colour (the label says it in words)."""
    hint: str = ""


@dataclass(frozen=True, slots=True)
class Document:
    """A payload, result or server data schema with its named types and their anchors."""

    shape: Shape
    anchors: Mapping[str, str]
    """Named type → the id of its table on the page."""


@dataclass(frozen=True, slots=True)
class NamedType:
    name: str
    anchor: str
    shape: Shape
    anchors: Mapping[str, str]
    """The anchors of the types its fields name (those of the schema it was defined in)."""


@dataclass(frozen=True, slots=True)
class ServerDataView:
    kind: str
    description: str
    default: str
    document: Document


@dataclass(frozen=True, slots=True)
class ToolPage:
    id: str
    name: str
    title: str
    description: str
    service: str
    toolset: str
    tags: tuple[str, ...]
    badges: tuple[Badge, ...]
    fingerprint: str
    file: str
    """Its path in the site (``tools/<id>.html``)."""
    arguments: Document
    example: str | None
    result: Document
    server_data: tuple[ServerDataView, ...]
    types: tuple[NamedType, ...]
    definitions: tuple[Definition, ...]

    @property
    def summary(self) -> str:
        """The description's first line, for lists."""
        return self.description.strip().split("\n", 1)[0]

    @property
    def terms(self) -> str:
        """What the search matches: name, title, description and tags, in lower case."""
        return " ".join([self.name, self.title, self.description, *self.tags]).lower()


@dataclass(frozen=True, slots=True)
class ToolsetGroup:
    name: str
    tools: tuple[ToolPage, ...]


@dataclass(frozen=True, slots=True)
class ServiceGroup:
    name: str
    toolsets: tuple[ToolsetGroup, ...]

    @property
    def count(self) -> int:
        return sum(len(t.tools) for t in self.toolsets)


@dataclass(frozen=True, slots=True)
class Site:
    services: tuple[ServiceGroup, ...]
    tools: tuple[ToolPage, ...]
    sizes: Mapping[str, tuple[int, int | None]] = field(default_factory=dict)
    """Per provider form: bytes (and tokens) of every definition together."""


def tool_file(tool_id: str) -> str:
    """Where a tool's page goes: ``tools/<id>.html`` (a hash for an id unsafe as a file name)."""
    if _SAFE_FILE.fullmatch(tool_id) and not tool_id.startswith("."):
        return f"tools/{tool_id}.html"
    return f"tools/tool-{hashlib.sha256(tool_id.encode()).hexdigest()[:16]}.html"


def tool_page(
    tool: CatalogTool, entry: Mapping[str, Any], definitions: Sequence[Definition]
) -> ToolPage:
    namer = _Anchors()
    arguments = namer.document("arguments", tool.payload.schema)
    result = namer.document("result", tool.result.schema)
    server_data = tuple(
        ServerDataView(
            kind=item.kind,
            description=item.description or "",
            default=item.default,
            document=namer.document(f"data-{index}", item.schema),
        )
        for index, item in enumerate(tool.server_data)
    )
    return ToolPage(
        id=tool.id,
        name=tool.name,
        title=tool.title or "",
        description=tool.description,
        service=tool.service,
        toolset=tool.toolset,
        tags=tool.tags,
        badges=badges(tool),
        fingerprint=fingerprint_of(entry),
        file=tool_file(tool.id),
        arguments=arguments,
        example=(pretty_json(tool.payload.example) if tool.payload.has_example else None),
        result=result,
        server_data=server_data,
        types=tuple(namer.types),
        definitions=tuple(definitions),
    )


def badges(tool: CatalogTool) -> tuple[Badge, ...]:
    """What a reader should notice first: approval, destructive, read-only, and the like."""
    out: list[Badge] = []
    if tool.confirm is not None:
        out.append(
            Badge("requires approval", "danger", "a person approves each call before it runs")
        )
    if tool.agent is not None:
        out.append(Badge("implemented by an agent", "info", agent_summary(tool.agent)))
    hints = tool.annotations
    if hints.destructive:
        out.append(Badge("destructive", "danger", "may change or delete data (a hint)"))
    if hints.read_only:
        out.append(Badge("read-only", "calm", "does not change its environment (a hint)"))
    if hints.idempotent:
        out.append(
            Badge(
                "idempotent",
                "info",
                "calling it again with the same arguments changes nothing more (a hint)",
            )
        )
    if hints.open_world:
        out.append(
            Badge("open world", "caution", "reaches beyond a closed set of systems (a hint)")
        )
    if tool.bounded:
        out.append(
            Badge(
                "bounded result", "info", "says how much it returned and whether it was cut short"
            )
        )
    return tuple(out)


class _Anchors:
    """Gives each named type of a page one table and one anchor: a type that several of the
    tool's schemas define alike is shown once."""

    def __init__(self) -> None:
        self.types: list[NamedType] = []
        self._by_name: dict[str, list[tuple[str, str]]] = {}  # name → [(schema key, anchor)]

    def document(self, prefix: str, schema: Mapping[str, Any]) -> Document:
        anchors: dict[str, str] = {}
        fresh: list[tuple[str, str, Mapping[str, Any]]] = []
        defs = schema.get(K.DEFS)
        for name, body in defs.items() if isinstance(defs, Mapping) else ():
            key = json.dumps(body, sort_keys=True)
            known = self._by_name.setdefault(name, [])
            anchor = next((a for k, a in known if k == key), None)
            if anchor is None:
                anchor = _anchor_id(f"type-{name}" if not known else f"type-{prefix}-{name}")
                known.append((key, anchor))
                fresh.append((name, anchor, body if isinstance(body, Mapping) else {}))
            anchors[name] = anchor
        self.types.extend(
            NamedType(name, anchor, shape(body), anchors) for name, anchor, body in fresh
        )
        return Document(shape(schema), anchors)


def _anchor_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def group(pages: Sequence[ToolPage]) -> tuple[ServiceGroup, ...]:
    """Tools by service and toolset, each in the order first seen."""
    services: dict[str, dict[str, list[ToolPage]]] = {}
    for page in pages:
        services.setdefault(page.service, {}).setdefault(page.toolset, []).append(page)
    return tuple(
        ServiceGroup(
            name,
            tuple(ToolsetGroup(toolset, tuple(tools)) for toolset, tools in toolsets.items()),
        )
        for name, toolsets in services.items()
    )
