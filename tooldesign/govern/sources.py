"""Where governed catalogs come from: a ``tool_schemas.json``, a folder of them, or a git revision.

A source is named as people type it: a path that exists is read from disk; otherwise
``REV:PATH`` (``main:gen``, ``v1.2:gen/assistant/tool_schemas.json``) is read from git with
``git cat-file`` — nothing is checked out, and PATH is relative to the repository's top, as in
``git show REV:PATH`` (``REV:./PATH`` for the current folder). A folder is searched below for
catalogs; a service's catalog and its toolsets' catalogs list the same tools, so each tool is
taken once, from the catalog nearest the top. Every catalog is checked by the runtime's loader
(:func:`tooldesign.contract.catalog.parse_catalog`), so a corrupt one is an error naming it.

Beside the tools, a source holds the prompts, resources and resource templates its toolsets
serve: each ``content.json`` below a folder (or beside a toolset's catalog file), checked by
:func:`tooldesign.contract.content_catalog.parse_content_catalog`, keyed ``"<kind> <name>"``.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from tooldesign.contract.catalog import CATALOG_NAME, CatalogTool, parse_catalog
from tooldesign.contract.content_catalog import CONTENT_CATALOG_NAME, parse_content_catalog
from tooldesign.contract.errors import UserError


@dataclass(frozen=True, slots=True)
class CatalogTools:
    """The tools of one source: each tool's raw catalog entry and its parsed form, by id."""

    label: str
    """How reports name the source (``gen``, ``main:gen``)."""
    entries: Mapping[str, Mapping[str, Any]]
    """Tool id → the tool's entry as the catalog holds it, in catalog order."""
    tools: Mapping[str, CatalogTool]
    """Tool id → the parsed tool (what the provider exports read)."""
    versions: tuple[str, ...] = field(default=())
    """The ``version`` of each catalog the tools were taken from (a folder's toolset catalogs
    repeat its service catalog: only the latter's counts)."""
    content: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """``"<kind> <name>"`` (``prompt triage_site``) → its ``content.json`` entry, as written."""


def read_source(source: str) -> CatalogTools:
    """The tools of ``source``: a catalog file or folder on disk, or ``REV:PATH`` in git."""
    path = Path(source)
    if path.exists():
        found = _collect(source, _disk_catalogs(path))
        return _with_content(found, _disk_content(path))
    rev, colon, inner = source.partition(":")
    if colon and rev:
        return read_git(rev, inner)
    raise UserError(f"{source}: no such file or folder (nor a git REV:PATH such as main:gen)")


def git_path(source: str) -> str | None:
    """For ``REV:PATH`` (not a path on disk), where PATH is in the working tree; else ``None``.

    PATH is relative to the repository's top, as git reads it, unless it starts with ``./``
    or ``../`` (relative to the current folder).
    """
    if Path(source).exists():
        return None
    rev, colon, path = source.partition(":")
    if not (colon and rev):
        return None
    if path.startswith(("./", "../")) or path in (".", ".."):
        return path
    top = _git("rev-parse", "--show-toplevel", what=source).strip()
    return str(Path(top) / path) if path else top


def read_git(rev: str, path: str) -> CatalogTools:
    """The tools of ``path`` (a catalog or a folder) as revision ``rev`` holds it, via git."""
    spec = f"{rev}:{path}"
    kind = _git("cat-file", "-t", spec, what=spec).strip()
    if kind == "blob":
        names = [""]
    elif kind == "tree":
        listing = _git("ls-tree", "-r", "-z", "--full-tree", "--name-only", spec, what=spec)
        names = [n for n in listing.split("\0") if PurePosixPath(n).name == CATALOG_NAME]
        if not names:
            raise UserError(f"{spec}: no {CATALOG_NAME} below this folder in {rev}")
        names.sort(key=lambda n: (len(PurePosixPath(n).parts), n))
    else:
        raise UserError(f"{spec}: a {kind} in git, not a catalog or a folder of them")
    base = path.rstrip("/")
    blobs = [
        (f"{spec}/{name}" if name else spec, f"{rev}:{base}/{name}" if name else spec)
        for name in names
    ]
    found = _collect(
        spec, ((label, _git("cat-file", "blob", ref, what=label)) for label, ref in blobs)
    )
    if kind != "tree":
        return found
    contents = sorted(
        n for n in listing.split("\0") if PurePosixPath(n).name == CONTENT_CATALOG_NAME
    )
    return _with_content(
        found,
        (
            (f"{spec}/{name}", _git("cat-file", "blob", f"{rev}:{base}/{name}", what=spec))
            for name in contents
        ),
    )


def _disk_content(path: Path) -> Iterator[tuple[str, str | bytes]]:
    """The ``content.json`` files of a source on disk: below a folder, or beside a catalog."""
    found = sorted(path.rglob(CONTENT_CATALOG_NAME)) if path.is_dir() else []
    if not path.is_dir() and (path.parent / CONTENT_CATALOG_NAME).is_file():
        found = [path.parent / CONTENT_CATALOG_NAME]
    for content in found:
        try:
            yield str(content), content.read_bytes()
        except OSError as exc:
            raise UserError(f"{content}: cannot read the file: {exc.strerror}") from None


def _with_content(tools: CatalogTools, files: Iterable[tuple[str, str | bytes]]) -> CatalogTools:
    """``tools`` with the entries of the ``content.json`` files (each checked, corrupt: an
    error naming it)."""
    content: dict[str, Mapping[str, Any]] = {}
    for source, data in files:
        parse_content_catalog(data, source=source)  # raises ContentCatalogError naming it
        for entry in json.loads(data)["content"]:
            content.setdefault(f"{entry['kind']} {entry['name']}", entry)
    return dataclasses.replace(tools, content=content) if content else tools


def _disk_catalogs(path: Path) -> Iterator[tuple[str, bytes]]:
    if path.is_dir():
        found = sorted(path.rglob(CATALOG_NAME), key=lambda p: (len(p.parts), p.as_posix()))
        if not found:
            raise UserError(f"{path}: no {CATALOG_NAME} below this folder")
    else:
        found = [path]
    for catalog in found:
        try:
            yield str(catalog), catalog.read_bytes()
        except OSError as exc:
            raise UserError(f"{catalog}: cannot read the file: {exc.strerror}") from None


def _collect(label: str, catalogs: Iterator[tuple[str, str | bytes]]) -> CatalogTools:
    entries: dict[str, Mapping[str, Any]] = {}
    tools: dict[str, CatalogTool] = {}
    versions: list[str] = []
    for source, data in catalogs:
        try:
            document = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError):
            # The loader words this error; it is the one that reads every catalog.
            parse_catalog(data, source=source)
            raise
        listed = document.get("tools") if isinstance(document, dict) else None
        if entries and isinstance(listed, list) and all(_known(e, entries) for e in listed):
            continue  # a toolset's catalog below its service's: every tool is read already
        catalog = parse_catalog(document, source=source)  # raises CatalogError naming the file
        before = len(entries)
        # parse_catalog checked the document: "tools" is a list of entries, in catalog order.
        for tool, entry in zip(catalog.tools, document["tools"], strict=True):
            if tool.id not in entries:
                entries[tool.id] = entry
                tools[tool.id] = tool
        if len(entries) > before or not catalog.tools:
            versions.append(catalog.version)
    return CatalogTools(label, entries, tools, tuple(versions))


def _known(entry: Any, entries: Mapping[str, Any]) -> bool:
    return isinstance(entry, dict) and entry.get("id") in entries


def _git(*args: str, what: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, encoding="utf-8", check=False
        )
    except FileNotFoundError:
        raise UserError(
            f"{what}: reading a git revision needs git, which is not installed"
        ) from None
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()
        raise UserError(f"{what}: git cannot read it: {reason[-1] if reason else 'failed'}")
    return done.stdout
