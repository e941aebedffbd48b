"""Loading ``tool_schemas.json`` catalogs: parsed, checked, and re-read only when they change.

A catalog is what ``tooldesign gen`` writes for each service and toolset. :func:`load_catalog`
returns it as a :class:`Catalog` after checking everything a consumer relies on: the shape of
every entry, ``count``, that ``hash`` is the sha256 of the compact JSON of ``tools`` (and
``version`` its first 12 hex digits), that tool ids and names are unique, and that every schema
is a valid JSON Schema 2020-12 document.

Reloading is cheap: a call first compares the file's ``stat`` (size, mtime, inode) with the
last read, then, if that moved, the sha256 of its bytes; only new content is parsed and checked.
A corrupt, truncated or inconsistent file raises :class:`CatalogError`, and the last good catalog
of that path stays in use:

- ``error.last_good`` carries it, for callers of :func:`load_catalog` that want to go on;
- a :class:`CatalogLoader` keeps serving it from :meth:`CatalogLoader.current` (and records the
  error in :attr:`CatalogLoader.last_error`) until the file is good again.

Catalog objects are shared between callers: treat them, and the schemas in them, as read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from tooldesign.errors import UserError
from tooldesign.runtime.ident import ToolIdent
from tooldesign.runtime.specs import ToolAnnotations, ToolSpec, TypeSpec

__all__ = [
    "DIALECT",
    "Catalog",
    "CatalogError",
    "CatalogLoader",
    "CatalogServerData",
    "CatalogTool",
    "CatalogType",
    "catalog_entry",
    "catalog_hash",
    "load_catalog",
    "parse_catalog",
    "toolset_version",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect every catalog schema is written in."""

_ANNOTATION_KEYS = {
    "read_only": "read_only",
    "destructive": "destructive",
    "idempotent": "idempotent",
    "open_world": "open_world",
}
_META_VALIDATOR = Draft202012Validator(Draft202012Validator.META_SCHEMA)
# Listing thousands of problems helps nobody; the first ones show what is wrong.
_MAX_LISTED = 20


@dataclass(frozen=True, slots=True)
class CatalogType:
    """A payload or result type: its generated class name, its schema and the design's example."""

    name: str
    schema: Mapping[str, Any]
    example: Any = None
    has_example: bool = False


@dataclass(frozen=True, slots=True)
class CatalogServerData:
    """Typed data a tool emits for observers, never for the model."""

    kind: str
    description: str | None
    default: Literal["on", "off"]
    schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class CatalogTool:
    """One tool as the catalog lists it."""

    id: ToolIdent
    name: str
    service: str
    toolset: str
    title: str | None
    description: str
    tags: tuple[str, ...]
    payload: CatalogType
    result: CatalogType
    bounded: bool
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    server_data: tuple[CatalogServerData, ...] = ()

    @classmethod
    def from_entry(cls, entry: Any) -> CatalogTool:
        """One tool from its catalog entry (a dict from ``tools``); raises :class:`CatalogError`."""
        problems: list[str] = []
        tool = _parse_tool(entry, "tool", problems)
        if tool is None or problems:
            raise CatalogError("<catalog entry>", problems or ["not a tool entry"])
        return tool


@dataclass(frozen=True, slots=True)
class Catalog:
    """A parsed, checked ``tool_schemas.json``."""

    version: str
    hash: str
    schema_dialect: str
    count: int
    tools: tuple[CatalogTool, ...]
    path: Path | None = field(default=None, compare=False)
    _by_id: Mapping[str, CatalogTool] = field(init=False, repr=False, compare=False)
    _by_name: Mapping[str, CatalogTool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {tool.id: tool for tool in self.tools})
        # The first tool of a name wins when several services share one.
        object.__setattr__(self, "_by_name", {t.name: t for t in reversed(self.tools)})

    def __iter__(self) -> Iterator[CatalogTool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def tool(self, key: str) -> CatalogTool | None:
        """The tool with this id (``service.toolset.tool``) or, failing that, this name."""
        return self._by_id.get(key) or self._by_name.get(key)


class CatalogError(UserError, ValueError):
    """A catalog file is missing, corrupt, partial or inconsistent.

    ``problems`` lists what is wrong; ``last_good`` is the last catalog successfully loaded
    from the same path (``None`` if there was none), so a caller can keep using it.
    """

    def __init__(
        self, source: str, problems: Sequence[str], *, last_good: Catalog | None = None
    ) -> None:
        self.source = source
        self.problems = tuple(problems)
        self.last_good = last_good
        listed = list(self.problems[:_MAX_LISTED])
        if len(self.problems) > _MAX_LISTED:
            listed.append(f"… and {len(self.problems) - _MAX_LISTED} more")
        lines = "\n".join(f"  - {problem}" for problem in listed)
        super().__init__(f"{source}: not a valid tool catalog:\n{lines}")


def catalog_hash(tools: Any) -> str:
    """sha256 of ``tools`` as compact JSON, keys in their written order, as ``tooldesign gen``
    computes it. The order counts: a model sees it (two fields swapped are a new version)."""
    canonical = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def parse_catalog(
    data: bytes | str | Mapping[str, Any], *, source: str = "<catalog>", path: Path | None = None
) -> Catalog:
    """Parse and check a catalog from its JSON text or already-decoded JSON.

    Raises :class:`CatalogError` listing every problem found.
    """
    if isinstance(data, bytes | str):
        try:
            document = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CatalogError(
                source, [f"not valid JSON (the file may be truncated or corrupt): {exc}"]
            ) from None
    else:
        document = data
    problems: list[str] = []
    catalog = _parse_document(document, problems, path)
    if catalog is None or problems:
        raise CatalogError(source, problems)
    return catalog


class CatalogLoader:
    """Keeps one catalog file loaded, re-reading it only when its content changes.

    :meth:`load` returns the current catalog or raises :class:`CatalogError` when the file is
    bad (the error carries ``last_good``). :meth:`current` never fails once a good catalog was
    loaded: while the file is bad it keeps serving the last good one and records the error in
    :attr:`last_error`. Thread-safe.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._good: Catalog | None = None
        self._good_digest: str | None = None
        self._stat_key: tuple[int, int, int, int] | None = None
        self._bad: tuple[tuple[int, int, int, int], str, CatalogError] | None = None
        self.last_error: CatalogError | None = None
        """The error of the latest check, or ``None`` when the file was good."""

    @property
    def last_good(self) -> Catalog | None:
        """The last catalog successfully loaded, if any."""
        return self._good

    def load(self) -> Catalog:
        """The catalog as the file holds it now; raises :class:`CatalogError` if it is bad."""
        with self._lock:
            return self._load()

    def current(self) -> Catalog:
        """The newest good catalog: the file's, or the last good one while the file is bad.

        Raises :class:`CatalogError` only when no good catalog was ever loaded.
        """
        with self._lock:
            try:
                return self._load()
            except CatalogError:
                if self._good is not None:
                    return self._good
                raise

    def _load(self) -> Catalog:
        source = str(self.path)
        try:
            stat = os.stat(self.path)
        except OSError as exc:
            return self._fail(CatalogError(source, [f"cannot read the file: {exc.strerror}"]))
        key = (stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns)
        if self._good is not None and key == self._stat_key:
            self.last_error = None
            return self._good
        if self._bad is not None and self._bad[0] == key:
            return self._fail(self._bad[2])
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            return self._fail(CatalogError(source, [f"cannot read the file: {exc.strerror}"]))
        digest = hashlib.sha256(data).hexdigest()
        if self._good is not None and digest == self._good_digest:
            # Touched or rewritten with the same bytes: nothing to parse again.
            self._stat_key = key
            self.last_error = None
            return self._good
        if self._bad is not None and self._bad[1] == digest:
            self._bad = (key, digest, self._bad[2])
            return self._fail(self._bad[2])
        try:
            catalog = parse_catalog(data, source=source, path=self.path)
        except CatalogError as exc:
            self._bad = (key, digest, exc)
            return self._fail(exc)
        self._good, self._good_digest, self._stat_key = catalog, digest, key
        self._bad = None
        self.last_error = None
        return catalog

    def _fail(self, error: CatalogError) -> Catalog:
        error.last_good = self._good
        self.last_error = error
        raise error


_loaders: dict[Path, CatalogLoader] = {}
_loaders_lock = threading.Lock()


def load_catalog(path: str | os.PathLike[str]) -> Catalog:
    """The catalog at ``path``, parsed and checked; re-read only when the file changed.

    Calls for the same file share one :class:`CatalogLoader`: an unchanged file costs one
    ``stat``. Raises :class:`CatalogError` when the file is missing, corrupt, partial or
    inconsistent; ``error.last_good`` then holds the last good catalog loaded from that path.
    """
    resolved = Path(path).resolve()
    with _loaders_lock:
        loader = _loaders.get(resolved)
        if loader is None:
            loader = _loaders[resolved] = CatalogLoader(resolved)
    return loader.load()


# --- checking -------------------------------------------------------------------------------


def _parse_document(document: Any, problems: list[str], path: Path | None) -> Catalog | None:
    if not isinstance(document, Mapping):
        problems.append("the top level is not a JSON object")
        return None
    missing = [
        k for k in ("version", "hash", "schema_dialect", "count", "tools") if k not in document
    ]
    if missing:
        problems.append(f"missing keys: {', '.join(missing)}")
        return None
    version, digest, dialect, count, entries = (
        document["version"],
        document["hash"],
        document["schema_dialect"],
        document["count"],
        document["tools"],
    )
    if not isinstance(entries, list):
        problems.append("'tools' is not a list")
        return None
    if dialect != DIALECT:
        problems.append(f"'schema_dialect' is {dialect!r}, expected {DIALECT!r}")
    if not isinstance(count, int) or isinstance(count, bool) or count != len(entries):
        problems.append(f"'count' is {count!r} but 'tools' lists {len(entries)} tools")
    if not isinstance(digest, str) or digest != catalog_hash(entries):
        problems.append(
            "'hash' is not the sha256 of the tools' compact JSON "
            "(the file was edited by hand, only partly written, or written by an older "
            "tooldesign: generate it again)"
        )
    elif not isinstance(version, str) or version != digest[:12]:
        problems.append(f"'version' is {version!r}, expected the hash's first 12 digits")
    tools: list[CatalogTool] = []
    by_id: dict[str, CatalogTool] = {}
    by_name: dict[tuple[str, str], CatalogTool] = {}
    for index, entry in enumerate(entries):
        where = f"tools[{index}]"
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
            where = f"tools[{index}] ({entry['id']})"
        tool = _parse_tool(entry, where, problems)
        if tool is None:
            continue
        if tool.id in by_id:
            problems.append(f"{where}: the id {tool.id!r} is listed twice")
        clash = by_name.get((tool.service, tool.name))
        if clash is not None and clash.id != tool.id:
            problems.append(f"{where}: the name {tool.name!r} is also used by {clash.id!r}")
        by_id[tool.id] = tool
        by_name[(tool.service, tool.name)] = tool
        tools.append(tool)
    if problems:
        return None
    return Catalog(
        version=str(version),
        hash=str(digest),
        schema_dialect=str(dialect),
        count=len(tools),
        tools=tuple(tools),
        path=path,
    )


def _parse_tool(entry: Any, where: str, problems: list[str]) -> CatalogTool | None:
    if not isinstance(entry, Mapping):
        problems.append(f"{where}: not a JSON object")
        return None
    before = len(problems)
    required_strings = ("id", "name", "service", "toolset", "description")
    for key in required_strings:
        if not isinstance(entry.get(key), str) or not entry.get(key):
            problems.append(f"{where}: {key!r} must be a non-empty string")
    title = entry.get("title")
    if title is not None and not isinstance(title, str):
        problems.append(f"{where}: 'title' must be a string or null")
    tags = entry.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        problems.append(f"{where}: 'tags' must be a list of strings")
    bounded = entry.get("bounded", False)
    if not isinstance(bounded, bool):
        problems.append(f"{where}: 'bounded' must be true or false")
    ident: ToolIdent | None = None
    if isinstance(entry.get("id"), str):
        try:
            ident = ToolIdent(entry["id"])
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    if ident is not None and (
        ident.service != entry.get("service") or ident.toolset != entry.get("toolset")
    ):
        problems.append(f"{where}: 'service' and 'toolset' do not match the id {ident!r}")
    payload = _parse_type(entry.get("payload"), f"{where}.payload", problems)
    result = _parse_type(entry.get("result"), f"{where}.result", problems)
    if payload is not None and payload.schema.get("type") != "object":
        problems.append(f"{where}.payload.schema: the arguments' schema must be an object")
    annotations = _parse_annotations(entry.get("annotations", {}), where, problems)
    server_data = _parse_server_data(entry.get("server_data", []), where, problems)
    if len(problems) > before or ident is None or payload is None or result is None:
        return None
    return CatalogTool(
        id=ident,
        name=entry["name"],
        service=entry["service"],
        toolset=entry["toolset"],
        title=title,
        description=entry["description"],
        tags=tuple(tags),
        payload=payload,
        result=result,
        bounded=bounded,
        annotations=annotations,
        server_data=server_data,
    )


def _parse_type(value: Any, where: str, problems: list[str]) -> CatalogType | None:
    if not isinstance(value, Mapping):
        problems.append(f"{where}: missing, or not a JSON object")
        return None
    name = value.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: 'name' must be a non-empty string")
    schema = _checked_schema(value.get("schema"), f"{where}.schema", problems)
    if schema is None or not isinstance(name, str):
        return None
    return CatalogType(
        name=name, schema=schema, example=value.get("example"), has_example="example" in value
    )


def _checked_schema(schema: Any, where: str, problems: list[str]) -> Mapping[str, Any] | None:
    if not isinstance(schema, Mapping):
        problems.append(f"{where}: missing, or not a JSON object")
        return None
    try:
        text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data (parsed catalogs always are)
        text = None
    error = _schema_error(text) if text is not None else _meta_error(schema)
    if error is not None:
        at, message = error
        problems.append(f"{where}{'/' + at if at else ''}: not a valid JSON Schema: {message}")
        return None
    return schema


@lru_cache(maxsize=4096)
def _schema_error(text: str) -> tuple[str, str] | None:
    """The meta-schema's verdict on a schema, by its JSON text.

    Catalogs repeat schemas (a service's tools share result shapes, a service catalog lists its
    toolsets' tools again), and meta-validation is most of the time a load takes: each distinct
    schema is checked once.
    """
    return _meta_error(json.loads(text))


def _meta_error(schema: Any) -> tuple[str, str] | None:
    error = best_match(_META_VALIDATOR.iter_errors(schema))
    if error is None:
        return None
    return "/".join(str(p) for p in error.absolute_path), error.message


def _parse_annotations(value: Any, where: str, problems: list[str]) -> ToolAnnotations:
    if not isinstance(value, Mapping):
        problems.append(f"{where}: 'annotations' must be a JSON object")
        return ToolAnnotations()
    hints: dict[str, bool] = {}
    for key, hint in value.items():
        if key not in _ANNOTATION_KEYS:
            problems.append(f"{where}: unknown annotation {key!r}")
        elif not isinstance(hint, bool):
            problems.append(f"{where}: annotation {key!r} must be true or false")
        else:
            hints[_ANNOTATION_KEYS[key]] = hint
    return ToolAnnotations(**hints)


def _parse_server_data(
    value: Any, where: str, problems: list[str]
) -> tuple[CatalogServerData, ...]:
    if not isinstance(value, list):
        problems.append(f"{where}: 'server_data' must be a list")
        return ()
    out: list[CatalogServerData] = []
    for index, item in enumerate(value):
        at = f"{where}.server_data[{index}]"
        if not isinstance(item, Mapping):
            problems.append(f"{at}: not a JSON object")
            continue
        kind, description, default = item.get("kind"), item.get("description"), item.get("default")
        if not isinstance(kind, str) or not kind:
            problems.append(f"{at}: 'kind' must be a non-empty string")
        if description is not None and not isinstance(description, str):
            problems.append(f"{at}: 'description' must be a string or null")
        if default not in ("on", "off"):
            problems.append(f'{at}: \'default\' must be "on" or "off"')
        schema = _checked_schema(item.get("schema"), f"{at}.schema", problems)
        if schema is not None and isinstance(kind, str) and default in ("on", "off"):
            out.append(
                CatalogServerData(
                    kind=kind,
                    description=description if isinstance(description, str) else None,
                    default="on" if default == "on" else "off",
                    schema=schema,
                )
            )
    return tuple(out)


def catalog_entry(spec: ToolSpec[Any, Any]) -> dict[str, Any]:
    """The catalog entry ``tooldesign gen`` writes for the tool ``spec`` describes, rebuilt from
    the spec: what a model may see of the tool, plus its server-data specs."""

    def type_entry(type_spec: TypeSpec[Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": type_spec.name, "schema": type_spec.schema}
        if type_spec.example is not None:
            entry["example"] = type_spec.example
        return entry

    entry: dict[str, Any] = {
        "id": str(spec.id),
        "name": spec.name,
        "service": spec.service,
        "toolset": spec.toolset,
        "title": spec.title,
        "description": spec.description,
        "tags": list(spec.tags),
        "payload": type_entry(spec.payload),
        "result": type_entry(spec.result),
        "bounded": spec.bounded,
    }
    annotations = {
        key: value
        for key in _ANNOTATION_KEYS
        if (value := getattr(spec.annotations, key)) is not None
    }
    if annotations:
        entry["annotations"] = annotations
    entry["server_data"] = [
        {"kind": sd.kind, "description": sd.description, "default": sd.default, "schema": sd.schema}
        for sd in spec.server_data
    ]
    return entry


def toolset_version(specs: Iterable[ToolSpec[Any, Any]]) -> str:
    """The catalog version of the toolset made of ``specs`` (in design order): the ``version``
    its ``tool_schemas.json`` carries, computed from the specs alone.

    Two processes that disagree on it disagree on what a model sees of the toolset, so calls
    made against one version must never be decoded against the other.
    """
    return catalog_hash([catalog_entry(spec) for spec in specs])[:12]
