"""``tooldesign docs``: a static, self-contained HTML reference of tool catalogs.

The site is plain files — an index, a page per tool, optionally a page of changes against an
older version, a stylesheet and a script — that open from disk (``file://``) or any static
server, and ask for nothing over the network. Pages work without JavaScript (provider
definitions are shown one after another instead of as tabs); only the search needs it.

Output is deterministic: the same catalogs give the same bytes. The folder is the site's: a
file list (``.tooldesign-site``) records what was written, so pages of tools that are gone are
removed on the next run, and a folder holding anything else is refused rather than mixed in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from tooldesign.contract.collector import cycle_collector_paused
from tooldesign.contract.errors import UserError
from tooldesign.docsite.content import content_anchor, content_views
from tooldesign.docsite.definitions import (
    CODE_MODE,
    FORMS,
    code_api_total,
    definitions,
    pretty_json,
    total_sizes,
)
from tooldesign.docsite.pages import Site, group, tool_page
from tooldesign.govern.changes import ABSENT, IMPACT_TITLES, IMPACTS, CatalogDiff
from tooldesign.govern.report import unproven
from tooldesign.govern.sources import CatalogTools, read_source
from tooldesign.runtime.providers.tokens import token_counter

MANIFEST = ".tooldesign-site"
ASSETS = ("style.css", "site.js")


@dataclass(frozen=True, slots=True)
class SiteReport:
    tools: int
    written: int
    removed: int
    changes: bool
    tokens: bool


def build_site(sources: Sequence[str], out: Path, *, against: str | None = None) -> SiteReport:
    """Read ``sources`` (and ``against``, for a page of changes) and write the site to ``out``."""
    # Many small, short-lived objects and no cycles: the cycle collector only costs time here.
    with cycle_collector_paused():
        catalogs = [read_source(source) for source in sources]
        merged = _merged(catalogs)
        diff = None
        if against is not None:
            from tooldesign.govern.diff import diff_catalogs

            diff = diff_catalogs(read_source(against), merged)
        files = render_site(merged, diff)
    written, removed = write_site(out, files)
    return SiteReport(
        len(merged.entries), written, removed, diff is not None, token_counter() is not None
    )


def _merged(catalogs: Sequence[CatalogTools]) -> CatalogTools:
    if len(catalogs) == 1:
        return catalogs[0]
    entries: dict[str, Mapping[str, Any]] = {}
    tools = {}
    for catalog in catalogs:
        for ident, entry in catalog.entries.items():
            if ident not in entries:
                entries[ident] = entry
                tools[ident] = catalog.tools[ident]
    label = " + ".join(c.label for c in catalogs)
    versions = tuple(v for c in catalogs for v in c.versions)
    content: dict[str, Mapping[str, Any]] = {}
    for catalog in catalogs:
        for key, entry in catalog.content.items():
            content.setdefault(key, entry)
    return CatalogTools(label, entries, tools, versions, content)


def render_site(catalog: CatalogTools, diff: CatalogDiff | None = None) -> dict[str, bytes]:
    """Every file of the site, by path."""
    tools = list(catalog.tools.values())
    found = definitions(tools)
    pages = [tool_page(tool, catalog.entries[tool.id], found[tool.id]) for tool in tools]
    sizes = {**total_sizes(found), CODE_MODE.key: code_api_total(tools)}
    site = Site(group(pages), tuple(pages), sizes)
    env = _environment()
    common = {
        "site": site,
        "label": catalog.label,
        "forms": (*FORMS, CODE_MODE),
        "has_changes": diff is not None,
        "has_content": bool(catalog.content),
        "tokens": token_counter() is not None,
    }
    files: dict[str, str] = {
        "index.html": env.get_template("index.html.j2").render(root="", page="index", **common)
    }
    tool_template = env.get_template("tool.html.j2")
    for page in pages:
        files[page.file] = tool_template.render(root="../", page="tool", tool=page, **common)
    if catalog.content:
        files["content.html"] = env.get_template("content.html.j2").render(
            root="", page="content", content=content_views(catalog.content), **common
        )
    if diff is not None:
        hrefs = {page.id: page.file for page in pages}
        hrefs.update({key: f"content.html#{content_anchor(key)}" for key in catalog.content})
        files["changes.html"] = env.get_template("changes.html.j2").render(
            root="",
            page="changes",
            diff=diff,
            hrefs=hrefs,
            impacts=IMPACTS,
            impact_titles=IMPACT_TITLES,
            absent=ABSENT,
            unproven=unproven,
            **common,
        )
    out = {path: text.encode("utf-8") for path, text in files.items()}
    for asset in ASSETS:
        out[f"assets/{asset}"] = _asset(asset)
    return out


def write_site(out: Path, files: Mapping[str, bytes]) -> tuple[int, int]:
    """Write ``files`` under ``out``; remove what the last run wrote that is not written now."""
    manifest = out / MANIFEST
    previous: list[str] = []
    if out.exists():
        if not out.is_dir():
            raise UserError(f"{out}: not a folder; --out takes the folder to write the site in")
        if manifest.is_file():
            previous = manifest.read_text(encoding="utf-8").splitlines()
        elif any(out.iterdir()):
            raise UserError(
                f"{out}: the folder holds files tooldesign docs did not write; "
                "give a new or empty folder (the site's old files are removed on each run)"
            )
    written = 0
    try:
        for path, content in sorted(files.items()):
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                if target.read_bytes() == content:
                    continue
            except OSError:
                pass
            target.write_bytes(content)
            written += 1
        removed = 0
        for path in previous:
            if path and path not in files and _inside(out, path):
                stale = out / path
                if stale.is_file():
                    stale.unlink()
                    removed += 1
        _prune_empty(out)
        manifest.write_text("".join(f"{p}\n" for p in sorted(files)), encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{out}: cannot write the site: {exc.strerror or exc}") from None
    return written, removed


def _inside(root: Path, relative: str) -> bool:
    resolved = os.path.normpath(relative)
    return not (os.path.isabs(resolved) or resolved.startswith(".."))


def _prune_empty(root: Path) -> None:
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tooldesign.docsite", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["thousands"] = lambda n: f"{n:,}"
    env.filters["json_text"] = pretty_json
    return env


@cache
def _asset(name: str) -> bytes:
    return resources.files("tooldesign.docsite").joinpath("static", name).read_bytes()


__all__ = ["MANIFEST", "SiteReport", "build_site", "render_site", "write_site"]
