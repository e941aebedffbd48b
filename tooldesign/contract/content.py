"""Rich results: the content a tool's result may carry beside its typed data (``Content(...)`` in
a design). One definition, read by the evaluator (checked), the IR, the catalog (``"content"``),
the generated specs and handlers (typed), the runtime (a result's blocks are held to it) and the
provider exports (what each provider can take).

The kinds are MCP's content block types, so a design, a catalog and an MCP answer use one word:
``image`` and ``audio`` (base64 data and a MIME type), ``resource_link`` (a URI the client may
read) and ``resource`` (an embedded resource: its URI and its text or bytes).

The result's structured data stays the typed contract; content blocks are what a person or a
model may also see of it (a chart, a recording, a file).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar, get_args, get_origin

ContentKind = Literal["image", "audio", "resource_link", "resource"]
CONTENT_KINDS: tuple[ContentKind, ...] = get_args(ContentKind)

CONTENT_KEY = "content"
"""The catalog entry's key for the kinds a tool's result carries (left out when none)."""


def content_problem(kinds: Sequence[object]) -> str | None:
    """What is wrong with ``kinds`` as the content a tool declares (``None``: nothing)."""
    if not kinds:
        return f"Content needs at least one kind: {', '.join(repr(k) for k in CONTENT_KINDS)}"
    for kind in kinds:
        if kind not in CONTENT_KINDS:
            allowed = ", ".join(repr(k) for k in CONTENT_KINDS)
            return f"Content takes kinds among {allowed}, not {kind!r}"
    if len(set(kinds)) != len(kinds):
        return "Content names a kind twice"
    return None


def content_entry(kinds: Sequence[ContentKind]) -> dict[str, Any]:
    """A catalog entry's ``content`` key for ``kinds`` (nothing when there are none)."""
    return {CONTENT_KEY: list(kinds)} if kinds else {}


def content_from_entry(
    entry: Mapping[str, Any], where: str, problems: list[str]
) -> tuple[ContentKind, ...]:
    """The kinds a catalog entry's ``content`` key lists, checked (a problem is appended)."""
    given = entry.get(CONTENT_KEY)
    if given is None:
        return ()
    problem = content_problem(given) if isinstance(given, list) else "must be a list of kinds"
    if problem is not None:
        problems.append(f"{where}: 'content': {problem}")
        return ()
    return content_kinds(given)


def content_kinds(kinds: Sequence[object]) -> tuple[ContentKind, ...]:
    """``kinds`` (checked by :func:`content_problem`) in the table's order, so two designs that
    list them differently give one catalog entry."""
    return tuple(kind for kind in CONTENT_KINDS if kind in kinds)


# --- the blocks a handler returns -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImageContent:
    """An image: its bytes and MIME type (``image/png``)."""

    data: bytes
    mime_type: str
    kind: ClassVar[ContentKind] = "image"

    def to_mcp(self) -> dict[str, Any]:
        return {"type": "image", "data": _base64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True, slots=True)
class AudioContent:
    """A recording: its bytes and MIME type (``audio/wav``)."""

    data: bytes
    mime_type: str
    kind: ClassVar[ContentKind] = "audio"

    def to_mcp(self) -> dict[str, Any]:
        return {"type": "audio", "data": _base64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True, slots=True)
class ResourceLink:
    """A resource the client may read (``resources/read``), named, not embedded."""

    uri: str
    name: str
    mime_type: str | None = None
    description: str | None = None
    kind: ClassVar[ContentKind] = "resource_link"

    def to_mcp(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.mime_type is not None:
            block["mimeType"] = self.mime_type
        if self.description is not None:
            block["description"] = self.description
        return block


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    """A resource embedded in the result: its URI, MIME type, and text or bytes (one of them)."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: bytes | None = None
    kind: ClassVar[ContentKind] = "resource"

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"EmbeddedResource {self.uri!r}: give its text or its blob (one)")

    def to_mcp(self) -> dict[str, Any]:
        resource: dict[str, Any] = {"uri": self.uri, "mimeType": self.mime_type}
        if self.text is not None:
            resource["text"] = self.text
        else:
            resource["blob"] = _base64(self.blob or b"")
        return {"type": "resource", "resource": resource}


ContentBlock = ImageContent | AudioContent | ResourceLink | EmbeddedResource
"""One block of a rich result."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True, init=False)
class WithContent(Generic[T]):
    """A tool's result and the content blocks it carries: ``WithContent(result, ImageContent(
    png, "image/png"))``. What a handler (or a bound function, annotated ``-> WithContent[R]``)
    of a tool that declares ``Content(...)`` returns; the runtime sends the blocks of the kinds
    the tool declares, and refuses the result if one is of a kind it does not."""

    result: T
    blocks: tuple[ContentBlock, ...]

    def __init__(self, result: T, *blocks: ContentBlock) -> None:
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "blocks", blocks)


def undeclared(blocks: Sequence[object], declared: Sequence[str]) -> str | None:
    """What is wrong with ``blocks`` for a tool declaring ``declared`` kinds (``None``: nothing)."""
    for block in blocks:
        kind = getattr(block, "kind", None)
        if not isinstance(block, ContentBlock):
            return f"{type(block).__name__} is not a content block"
        if kind not in declared:
            said = f"Content({', '.join(repr(k) for k in declared)})" if declared else "no Content"
            return f"it returned {kind!r} content, but its design declares {said}"
    return None


def block_from_mcp(data: Mapping[str, Any]) -> ContentBlock:
    """The block an MCP content block (:meth:`to_mcp`) describes; ``ValueError`` if none."""
    kind = data.get("type")
    if kind == "image":
        return ImageContent(base64.b64decode(data["data"]), str(data["mimeType"]))
    if kind == "audio":
        return AudioContent(base64.b64decode(data["data"]), str(data["mimeType"]))
    if kind == "resource_link":
        return ResourceLink(
            str(data["uri"]), str(data["name"]), data.get("mimeType"), data.get("description")
        )
    if kind == "resource":
        inner = data["resource"]
        blob = inner.get("blob")
        return EmbeddedResource(
            str(inner["uri"]),
            str(inner.get("mimeType", "")),
            text=inner.get("text"),
            blob=base64.b64decode(blob) if blob is not None else None,
        )
    raise ValueError(f"not a content block of a rich result: type {kind!r}")


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def without_content(annotation: Any) -> Any:
    """The result type of a function annotated ``-> WithContent[R]`` (a rich result): ``R``,
    which a bound tool's transforms map (the runtime takes the blocks apart before them)."""
    if get_origin(annotation) is WithContent:
        (inner,) = get_args(annotation)
        return inner
    return annotation
