"""Rendering generated files: a Jinja environment whose only way to emit design data is as Python
literals, and the renderer each kind of file names."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldesign.codegen.files import (
    CATALOG,
    CODE_API,
    MODELS,
    SEARCH_WORDS,
    SERVICE_INIT,
    GeneratedFile,
)
from tooldesign.codegen.literals import py_docstring, py_literal

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = Path(__file__).parent / "templates"


@cache
def environment() -> jinja2.Environment:
    import jinja2  # here: a run that renders no template does not import it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["py"] = py_literal
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


@dataclass
class Rendered:
    files: dict[str, str] = field(default_factory=dict)
    """Path → content, not yet formatted."""
    notices: list[str] = field(default_factory=list)
    """What the model generator said about the models (a constraint it left out, say)."""


def render_files(files: Iterable[GeneratedFile]) -> Rendered:
    """Each file rendered by what it names."""
    out = Rendered()
    for file in files:
        if file.template == MODELS:
            # Imported here: the model generator is slow to import, and most runs reuse models.
            from tooldesign.codegen.models import generate_models

            models = generate_models(file.context["view"], file.context["header"])
            out.files[file.path] = models.source
            out.notices.extend(models.notices)
        elif file.template == CATALOG:
            out.files[file.path] = _catalog(file.context["parts"])
        elif file.template == CODE_API:
            out.files[file.path] = _code_api(file.context)
        elif file.template == SEARCH_WORDS:
            out.files[file.path] = _search_words(file.context["entries"])
        elif file.template == SERVICE_INIT:
            # Written as the formatter would write it: it skips the formatting run.
            out.files[file.path] = (
                f"{file.context['header']}\n{py_docstring(file.context['doc'])}\n"
            )
        else:
            text = render(file.template, **file.context)
            if file.first_party is not None:
                from tooldesign.codegen.imports import sort_imports

                text = sort_imports(text, file.first_party)
            out.files[file.path] = text
    return out


def _code_api(context: Any) -> str:
    from tooldesign.contract.catalog import CatalogTool
    from tooldesign.runtime.codemode.api import api_for_catalog

    tools = [CatalogTool.from_entry(entry) for entry in context["entries"]]
    return f"{context['header']}\n{api_for_catalog(tools, title=context['heading'])}"


def _search_words(entries: Iterable[Any]) -> str:
    from tooldesign.contract.catalog import CatalogTool
    from tooldesign.runtime.spec.search import words_text

    return words_text(CatalogTool.from_entry(entry) for entry in entries)


def _catalog(parts: Iterable[Any]) -> str:
    import json

    from tooldesign.contract.catalog import build_catalog, catalog_text

    tools = [
        tool
        for part in parts
        for tool in (
            json.loads(part.read_text(encoding="utf-8"))["tools"]
            if isinstance(part, Path)
            else part
        )
    ]
    # Entries made by catalog_entry, or read from a toolset catalog generation found intact.
    return catalog_text(build_catalog(tools, keep_fingerprints=True))
