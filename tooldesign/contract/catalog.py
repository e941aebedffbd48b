"""The ``tool_schemas.json`` format: one definition of what a catalog holds, written and read.

A catalog is what ``tooldesign gen`` writes for each service and toolset, and what exports,
``tooldesign diff``, ``tooldesign docs``, MCP serving and remote workers read::

    {"version": "<12 hex digits>", "hash": "<sha256>", "schema_dialect": "<2020-12>",
     "count": N, "tools": [<entry>, …]}

Each entry lists what a model may see of one tool, and what an application builds against:

==================  ========================================================================
``id``              ``service.toolset.tool``
``name``            what a model calls it
``service``         its service and toolset (the id's first two parts)
``toolset``
``title``           a title, or ``null``
``description``     what a model reads about it
``tags``            a list of strings
``payload``         ``{"name": <generated class>, "schema": <JSON Schema>, "example"?: …}``:
                    the arguments, injected fields left out
``result``          the same, for its result
``bounded``         whether the result says how much it returned (``BoundedResult``)
``annotations``     the hints stated (:mod:`~tooldesign.contract.annotations`); left out when
                    none is
``server_data``     ``[{"kind", "description", "default": "on"|"off", "schema"}, …]``: typed
                    data for observers, never for the model
``injected``        the names of the payload fields the application supplies (a model never
                    sees them; an application must supply each)
``confirm``         ``{"prompt", "when"?, "denied"}`` when a person approves the tool's calls
                    (``Confirm``, :mod:`~tooldesign.contract.confirm`); left out otherwise
``loading``         ``"deferred"`` when the model finds the tool through a tool search
                    (``Loading``, :mod:`~tooldesign.contract.loading`); left out otherwise
``agent``           ``{"uses", <budget>…}`` when an agent implements it (``ImplementedByAgent``)
``code_access``     ``"call"``, ``"approve"`` or ``"direct"`` when the design states whether code
                    may call it (``CodeAccess``, :mod:`~tooldesign.contract.code_access`)
``content``         the content blocks its result carries beside its data (``Content``,
                    :mod:`~tooldesign.contract.content`); left out when none
``task``            ``{"onlyTask", "keepMs", "pollMs", "asksFirst"}`` when it may run as a task
                    (``LongRunning``, :mod:`~tooldesign.contract.tasks`); left out otherwise
``scopes``          the OAuth scopes a caller needs (:mod:`~tooldesign.contract.scopes`), if any
``fingerprint``     the tool's fingerprint (:mod:`~tooldesign.contract.fingerprint`): one
                    digest of everything above, whatever the key order or formatting
==================  ========================================================================

:func:`catalog_entry` builds an entry from anything that satisfies :class:`ToolDefinition`: a
runtime :class:`~tooldesign.runtime.spec.specs.ToolSpec`, a :class:`CatalogTool` read back from a
catalog, or code generation's view of a tool. :func:`catalog_hash` is the catalog's ``hash``
(and its first 12 digits its ``version``); :func:`parse_catalog` reads a catalog and checks
everything a consumer relies on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tooldesign.contract.agents import AGENT_KEY, AgentContract, agent_entry, agent_from_entry
from tooldesign.contract.annotations import ToolAnnotations, annotations_from_entry
from tooldesign.contract.catalog_text import catalog_text as catalog_text  # noqa: PLC0414
from tooldesign.contract.code_access import CodeAccess, code_access_problem
from tooldesign.contract.conditions import ConditionError
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.content import ContentKind, content_entry, content_from_entry
from tooldesign.contract.errors import UserError
from tooldesign.contract.fingerprint import FINGERPRINT_KEY, tool_fingerprint
from tooldesign.contract.ident import ToolIdent
from tooldesign.contract.loading import LOADING_KEY, LOADINGS, Loading
from tooldesign.contract.schema_check import checked_schema
from tooldesign.contract.scopes import scopes_entry, scopes_from_entry
from tooldesign.contract.server_data import (
    CatalogServerData,
    ServerDataDefinition,
    parse_server_data,
)
from tooldesign.contract.tasks import TaskSupport, task_entry, task_from_entry
from tooldesign.jsonschema import keywords as K

DIALECT = K.DIALECT  # every catalog schema is written in the dialect designs use

CATALOG_NAME = "tool_schemas.json"
"""The file name of a catalog, in each generated service and toolset package."""

# Listing thousands of problems helps nobody; the first ones show what is wrong.
_MAX_LISTED = 20


# --- what an entry is built from ----------------------------------------------------------


class TypeDefinition(Protocol):
    """A payload, result or server-data type as a catalog lists it."""

    @property
    def name(self) -> str:
        """The generated class name."""

    @property
    def schema(self) -> Mapping[str, Any]:
        """What a model sees (JSON Schema 2020-12)."""

    @property
    def example(self) -> Any:
        """The design's example (``None``: none)."""


class ToolDefinition(Protocol):
    """What a catalog entry says about a tool, whoever holds it.

    A runtime ``ToolSpec`` (generated ``specs.py``), a :class:`CatalogTool` (read from a
    catalog) and code generation's view of a tool satisfy it: exports, versions and catalogs
    read any of them the same way.
    """

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def service(self) -> str: ...

    @property
    def toolset(self) -> str: ...

    @property
    def title(self) -> str | None: ...

    @property
    def description(self) -> str: ...

    @property
    def tags(self) -> Sequence[str]: ...

    @property
    def payload(self) -> TypeDefinition: ...

    @property
    def result(self) -> TypeDefinition: ...

    @property
    def bounded(self) -> bool: ...

    @property
    def annotations(self) -> ToolAnnotations: ...

    @property
    def server_data(self) -> Sequence[ServerDataDefinition]: ...

    @property
    def injected(self) -> Sequence[str]: ...

    @property
    def confirm(self) -> ConfirmSpec | None: ...

    @property
    def loading(self) -> Loading | None: ...

    @property
    def code_access(self) -> CodeAccess | None: ...

    @property
    def content(self) -> tuple[ContentKind, ...]: ...

    @property
    def agent(self) -> AgentContract | None: ...

    @property
    def task(self) -> TaskSupport | None: ...

    @property
    def scopes(self) -> tuple[str, ...]: ...


# --- writing --------------------------------------------------------------------------------


def catalog_entry(tool: ToolDefinition) -> dict[str, Any]:
    """``tool``'s catalog entry: what a model may see of it, its server-data specs, the names of
    its injected fields, and its fingerprint (see the module's table)."""
    entry: dict[str, Any] = {
        "id": str(tool.id),
        "name": tool.name,
        "service": tool.service,
        "toolset": tool.toolset,
        "title": tool.title,
        "description": tool.description,
        "tags": list(tool.tags),
        "payload": _type_entry(tool.payload),
        "result": _type_entry(tool.result),
        "bounded": tool.bounded,
    }
    annotations = tool.annotations.given()
    if annotations:
        entry["annotations"] = annotations
    entry["server_data"] = [
        {"kind": sd.kind, "description": sd.description, "default": sd.default, "schema": sd.schema}
        for sd in tool.server_data
    ]
    entry["injected"] = list(tool.injected)
    if tool.confirm is not None:
        entry["confirm"] = tool.confirm.entry()
    if tool.loading == "deferred":
        entry[LOADING_KEY] = tool.loading
    if tool.agent is not None:
        entry[AGENT_KEY] = agent_entry(tool.agent)
    if tool.code_access is not None:
        entry["code_access"] = tool.code_access
    entry.update(content_entry(tool.content))
    entry.update(task_entry(tool.task))
    entry.update(scopes_entry(tool.scopes))
    return fingerprinted(entry)


def fingerprinted(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` with its fingerprint computed from the rest of it, as its last key."""
    out = {key: value for key, value in entry.items() if key != FINGERPRINT_KEY}
    out[FINGERPRINT_KEY] = tool_fingerprint(out)
    return out


def _type_entry(type_def: TypeDefinition) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": type_def.name, "schema": type_def.schema}
    if type_def.example is not None:
        entry["example"] = type_def.example
    return entry


def catalog_hash(tools: Any) -> str:
    """sha256 of ``tools`` (the catalog's entries) as compact JSON, keys in their written order.

    The order is part of what a model sees (the parameter listing, Gemini's
    ``propertyOrdering``, the JSON text itself), so two attributes swapped in a design change
    the hash.
    """
    canonical = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def toolset_version(tools: Iterable[ToolDefinition]) -> str:
    """The catalog version of the toolset made of ``tools`` (in design order): the ``version``
    its ``tool_schemas.json`` carries, computed from the tools alone.

    Two processes that disagree on it disagree on what a model sees of the toolset, so calls
    made against one version must never be decoded against the other.
    """
    return catalog_hash([catalog_entry(tool) for tool in tools])[:12]


def build_catalog(
    tools: Iterable[Mapping[str, Any]], *, keep_fingerprints: bool = False
) -> dict[str, Any]:
    """The catalog document listing ``tools`` (entries), with its hash, version and count.

    Each entry's fingerprint is computed again from the entry, so that the catalog is
    consistent whoever built or changed its entries; ``keep_fingerprints`` keeps those the
    entries carry, for generation, whose entries come from :func:`catalog_entry` or from a
    toolset catalog it found unchanged byte for byte (a service of 1,000 tools whose one
    toolset changed is not digested again whole).
    """
    listed = [
        dict(entry) if keep_fingerprints and FINGERPRINT_KEY in entry else fingerprinted(entry)
        for entry in tools
    ]
    digest = catalog_hash(listed)
    return {
        "version": digest[:12],
        "hash": digest,
        "schema_dialect": DIALECT,
        "count": len(listed),
        "tools": listed,
    }


# --- a catalog, read back -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CatalogType:
    """A payload or result type: its generated class name, its schema and the design's example."""

    name: str
    schema: Mapping[str, Any]
    example: Any = None
    has_example: bool = False


@dataclass(frozen=True, slots=True)
class CatalogTool:
    """One tool as the catalog lists it (a :class:`ToolDefinition`)."""

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
    injected: tuple[str, ...] = ()
    confirm: ConfirmSpec | None = None
    loading: Loading | None = None
    code_access: CodeAccess | None = None
    content: tuple[ContentKind, ...] = ()
    agent: AgentContract | None = None
    task: TaskSupport | None = None
    scopes: tuple[str, ...] = ()

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


# --- reading and checking -----------------------------------------------------------------


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


def _parse_document(document: Any, problems: list[str], path: Path | None) -> Catalog | None:
    if not isinstance(document, Mapping):
        problems.append("the top level is not a JSON object")
        return None
    keys = ("version", "hash", "schema_dialect", "count", "tools")
    missing = [k for k in keys if k not in document]
    if missing:
        problems.append(f"missing keys: {', '.join(missing)}")
        return None
    version, digest, dialect, count, entries = (document[k] for k in keys)
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
        tool = _parse_tool(entry, where, problems, check_fingerprint=True)
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


def _parse_tool(
    entry: Any, where: str, problems: list[str], *, check_fingerprint: bool = False
) -> CatalogTool | None:
    """The tool ``entry`` describes, its problems added to ``problems``.

    A catalog's entries are checked against the fingerprints they carry, as the document is
    against its hash; an entry handed over alone (:meth:`CatalogTool.from_entry`) is read for
    what it says, whatever fingerprint it was copied with.
    """
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
    if payload is not None and payload.schema.get(K.TYPE) != "object":
        problems.append(f"{where}.payload.schema: the arguments' schema must be an object")
    annotations = annotations_from_entry(entry.get("annotations", {}), where, problems)
    server_data = parse_server_data(entry.get("server_data", []), where, problems)
    injected = entry.get("injected", [])
    if not isinstance(injected, list) or not all(isinstance(n, str) and n for n in injected):
        problems.append(f"{where}: 'injected' must be a list of field names")
    confirm = None
    if "confirm" in entry:
        try:
            confirm = ConfirmSpec.from_entry(entry["confirm"])
        except (ValueError, ConditionError) as exc:
            problems.append(f"{where}: {exc}")
    loading = entry.get(LOADING_KEY)
    if loading is not None and loading not in LOADINGS:
        problems.append(f"{where}: 'loading' must be one of {', '.join(LOADINGS)}")
    agent = agent_from_entry(entry.get(AGENT_KEY), where, problems)
    code_access = entry.get("code_access")
    confirmed = confirm is not None
    if code_access is not None and (bad := code_access_problem(code_access, confirmed=confirmed)):
        problems.append(f"{where}: 'code_access': {bad}")
    content = content_from_entry(entry, where, problems)
    task = task_from_entry(entry, where, problems)
    scopes = scopes_from_entry(entry, where, problems)
    if check_fingerprint and entry.get(FINGERPRINT_KEY, None) not in (
        None,
        tool_fingerprint(entry),
    ):
        problems.append(
            f"{where}: 'fingerprint' is not the fingerprint of the entry (the entry was edited "
            "by hand: generate the catalog again)"
        )
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
        injected=tuple(injected),
        confirm=confirm,
        loading=loading,
        code_access=code_access,
        content=content,
        agent=agent,
        task=task,
        scopes=scopes,
    )


def _parse_type(value: Any, where: str, problems: list[str]) -> CatalogType | None:
    if not isinstance(value, Mapping):
        problems.append(f"{where}: missing, or not a JSON object")
        return None
    name = value.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: 'name' must be a non-empty string")
    schema = checked_schema(value.get("schema"), f"{where}.schema", problems)
    if schema is None or not isinstance(name, str):
        return None
    return CatalogType(
        name=name, schema=schema, example=value.get("example"), has_example="example" in value
    )
