"""A design as an importer finds it, before it is written as a design file.

Importers (Python tool modules, MCP servers) build a :class:`DraftDesign`; the writer
(``tooldesign.importers.writer``) renders it as DSL code a user would write. The draft mirrors
the DSL one to one, so what an importer cannot express here, it cannot write either: it falls
back to ``Any`` (optionally with the original JSON Schema kept verbatim) and says so in a
:class:`Warning`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tooldesign.contract.annotations import ToolAnnotations

PrimitiveName = Literal["String", "Int", "Float", "Boolean", "Any"]


@dataclass(frozen=True, slots=True)
class Primitive:
    name: PrimitiveName
    schema: dict[str, Any] | None = None
    """For ``Any`` only: a JSON Schema kept verbatim (``Any(schema=...)``)."""


@dataclass(frozen=True, slots=True)
class ArrayOf:
    items: DraftType
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class MapOf:
    values: DraftType


@dataclass(frozen=True, slots=True)
class Named:
    """A reference to a :class:`DraftNamedType` by name."""

    name: str


@dataclass(frozen=True, slots=True)
class InlineObject:
    """``Object``: an object declared in place, by its attributes."""

    attributes: tuple[DraftAttribute, ...]


@dataclass(frozen=True, slots=True)
class OneOf:
    variants: tuple[DraftType, ...]
    discriminator: str | None = None


DraftType = Primitive | ArrayOf | MapOf | Named | InlineObject | OneOf


def is_object(t: DraftType) -> bool:
    """Whether ``t``'s values are JSON objects: a design sends such a result as it is, any
    other wrapped as ``{"result": …}``."""
    return isinstance(t, MapOf | Named | InlineObject)


def inline_object(t: DraftType) -> InlineObject | None:
    """The inline object an attribute of type ``t`` declares in its block: ``t`` itself, or
    its array's items or map's values."""
    if isinstance(t, ArrayOf | MapOf):
        t = t.items if isinstance(t, ArrayOf) else t.values
    return t if isinstance(t, InlineObject) else None


STRING = Primitive("String")
INT = Primitive("Int")
FLOAT = Primitive("Float")
BOOLEAN = Primitive("Boolean")
ANY = Primitive("Any")


@dataclass(frozen=True, slots=True)
class DraftAttribute:
    """``Attribute(name, type, description, **options)``; ``required`` feeds ``Required(...)``.

    ``options`` are the DSL's attribute options (``enum``, ``default``, ``minimum``,
    ``max_length``, ``format``, ``example``…), already checked against the type.
    """

    name: str
    type: DraftType
    description: str | None = None
    required: bool = False
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DraftNamedType:
    """``with Type(name, description):`` and its attributes."""

    name: str
    description: str | None
    attributes: tuple[DraftAttribute, ...]
    examples: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class DraftResult:
    """``Return(...)``: a type, or (``attributes``) a block of attributes."""

    type: DraftType | None = None
    description: str | None = None
    """Of a result that is a type; a block (``with Return():``) has none."""
    attributes: tuple[DraftAttribute, ...] = ()


@dataclass(frozen=True, slots=True)
class DraftTool:
    name: str
    description: str
    args: tuple[DraftAttribute, ...] = ()
    args_type: DraftType | None = None
    """Arguments given as one named type (``Args(Device)``) instead of attributes."""
    result: DraftResult | None = None
    title: str | None = None
    examples: tuple[dict[str, Any], ...] = ()
    tags: tuple[str, ...] = ()
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    source: str | None = None
    """Where the tool came from (``weather.py:12``, ``server weather``), written as a comment."""
    remote_name: str | None = None
    """For a tool of an MCP toolset: its name on the server, when the design's differs."""


@dataclass(frozen=True, slots=True)
class MCPServerDraft:
    """Where an MCP toolset's tools live: a stdio command or a streamable-HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    cwd: str | None = None
    """The folder a stdio server starts in, when its command names files relative to one."""


@dataclass(frozen=True, slots=True)
class DraftToolset:
    name: str
    description: str | None
    tools: tuple[DraftTool, ...]
    mcp_server: MCPServerDraft | None = None
    """Set for a toolset whose tools live on an MCP server (``MCPToolset``)."""


@dataclass(frozen=True, slots=True)
class DraftDesign:
    service: str
    service_description: str | None
    toolsets: tuple[DraftToolset, ...]
    types: tuple[DraftNamedType, ...] = ()
    header: str | None = None
    """A docstring for the design file (what it was imported from)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something an importer could not carry over exactly, and what it did instead."""

    where: str
    """``tool 'get_weather' › parameter 'ctx'`` and the like."""
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class ImportResult:
    """What an importer returns: the draft, and the notices of everything not carried over
    exactly."""

    design: DraftDesign
    notices: list[Notice] = field(default_factory=list)
