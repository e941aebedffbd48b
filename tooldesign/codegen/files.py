"""The output's layout: the files of a toolset package and of a service package, in one place.

Each file is named by its path, what renders it and what that reads. Python modules come from
the templates (``types.py`` from the model generator) and pass through the one formatting run;
catalogs and the service packages' ``__init__.py`` files are written as rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldesign.codegen.output import HEADER
from tooldesign.contract.catalog import CATALOG_NAME, catalog_entry
from tooldesign.contract.content_catalog import CONTENT_CATALOG_NAME
from tooldesign.contract.naming import package_dir
from tooldesign.runtime.spec.search import WORDS_NAME

if TYPE_CHECKING:
    from tooldesign.codegen.views import ToolsetView

MODELS = "<model generator>"
"""The renderer of ``types.py``: datamodel-code-generator, from the view's model document."""

CATALOG = "<catalog>"
"""The renderer of ``tool_schemas.json``: the tools listed, as JSON with one tool a line."""

SEARCH_WORDS = "<search words>"
"""The renderer of ``tool_search.json``: each tool's weighted words, read once at generation
(:mod:`tooldesign.runtime.spec.search`), so a runtime's tool search need not read them."""

CODE_API = "<code api>"
"""The renderer of ``code_api.pyi``: the typed API code mode shows a model, from the catalog."""

CODE_API_NAME = "code_api.pyi"

SERVICE_INIT = "<service package>"
"""The renderer of a service package's ``__init__.py`` files: a header and a docstring."""

MODELS_NAME = "types.py"

CatalogPart = Sequence[dict[str, Any]] | Path
"""A toolset's tools in a service catalog: their entries, or its catalog file already on disk."""


@dataclass(frozen=True)
class GeneratedFile:
    path: str
    """Relative to the output folder."""
    template: str
    """A template in ``codegen/templates``, or :data:`MODELS`, :data:`CATALOG` or
    :data:`SERVICE_INIT`."""
    context: Mapping[str, Any]
    formatted: bool = True
    """Passes through the formatting run (``False``: written exactly as rendered)."""
    first_party: frozenset[str] | None = None
    """For a module that imports application code: its top-level packages, so its imports are
    sorted as in the application's project."""


def catalog_entries(view: ToolsetView) -> list[dict[str, Any]]:
    """The toolset's tools as catalogs list them."""
    return [catalog_entry(tool) for tool in view.tools]


def toolset_files(view: ToolsetView, catalog: Sequence[dict[str, Any]]) -> list[GeneratedFile]:
    """Every file of a toolset package; ``catalog``: its tools' entries."""
    package = package_dir(view.service_ident, view.ident)
    context = {
        "view": view,
        "header": f"{HEADER}\n# Toolset {view.name!r} of service {view.service!r}.",
    }
    files = [
        GeneratedFile(
            f"{package}/__init__.py",
            "package_init.py.j2",
            {**context, "doc": f"Toolset {view.name} of service {view.service}."},
        ),
        GeneratedFile(f"{package}/specs.py", "specs.py.j2", context),
        GeneratedFile(f"{package}/codecs.py", "codecs.py.j2", context),
    ]
    if view.mcp is not None:  # its tools run on an MCP server: no bindings, a remote executor
        files.append(GeneratedFile(f"{package}/executor.py", "mcp_executor.py.j2", context))
    else:
        files.append(
            GeneratedFile(
                f"{package}/executor.py", "executor.py.j2", context, first_party=view.first_party
            )
        )
    if view.content is not None:
        files.append(
            GeneratedFile(
                f"{package}/content.py",
                "content.py.j2",
                {**context, "view": view.content},
                first_party=view.content.first_party,
            )
        )
        files.append(
            GeneratedFile(
                f"{package}/{CONTENT_CATALOG_NAME}",
                "content.json.j2",
                {"text": view.content.catalog},
                formatted=False,
            )
        )
    if view.transforms is not None:
        files.append(
            GeneratedFile(
                f"{package}/transforms.py",
                "transforms.py.j2",
                context,
                first_party=view.first_party,
            )
        )
    files.append(
        GeneratedFile(
            f"{package}/{MODELS_NAME}",
            MODELS,
            {
                "view": view,
                "header": f"{HEADER}\n# Models of toolset {view.name!r} of service {view.service!r}.",
            },
        )
    )
    files.append(
        GeneratedFile(f"{package}/{CATALOG_NAME}", CATALOG, {"parts": [catalog]}, formatted=False)
    )
    files.append(
        GeneratedFile(
            f"{package}/{WORDS_NAME}", SEARCH_WORDS, {"entries": catalog}, formatted=False
        )
    )
    # Written as rendered: the runtime renders the same text from the specs (a test compares).
    files.append(
        GeneratedFile(
            f"{package}/{CODE_API_NAME}",
            CODE_API,
            {
                "entries": catalog,
                "heading": code_api_title(view.service, view.name, view.description),
                "header": f"{HEADER}\n# Code-mode API of toolset {view.name!r} of service "
                f"{view.service!r}.",
            },
            formatted=False,
        )
    )
    return files


def code_api_title(service: str, toolset: str, description: str | None) -> str:
    """The first line of a toolset's code-mode API."""
    title = f"Toolset {toolset} of service {service}"
    return f"{title}: {description}" if description else title


def service_files(
    name: str,
    ident: str,
    catalog: Sequence[CatalogPart],
    content: Sequence[tuple[str, str]] = (),
) -> list[GeneratedFile]:
    """The files of a service package beside its toolsets' (``catalog``: each toolset's tools;
    ``content``: ``(name, ident)`` of each toolset that declares prompts or resources)."""
    header = f"{HEADER}\n# Service {name!r}."
    extra = [
        GeneratedFile(
            f"{ident}/content.py",
            "service_content.py.j2",
            {"header": header, "service": name, "toolsets": content},
        )
    ]
    return [
        *(extra if content else []),
        GeneratedFile(
            f"{ident}/__init__.py",
            SERVICE_INIT,
            {"header": header, "doc": f"Generated toolsets of service {name}."},
            formatted=False,
        ),
        GeneratedFile(
            f"{ident}/toolsets/__init__.py",
            SERVICE_INIT,
            {"header": header, "doc": f"Toolset packages of service {name}."},
            formatted=False,
        ),
        GeneratedFile(f"{ident}/{CATALOG_NAME}", CATALOG, {"parts": catalog}, formatted=False),
    ]
