"""``tool_schemas.json``: the catalog of tools that agents and LLM providers consume."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tooldesign.ir.schema import DIALECT

if TYPE_CHECKING:
    from tooldesign.codegen.views import ToolView, TypeView


def tool_entry(tool: ToolView, service: str, toolset: str) -> dict[str, Any]:
    """One tool as the catalog lists it: only what a model may see, plus server-data specs."""
    entry: dict[str, Any] = {
        "id": tool.id,
        "name": tool.name,
        "service": service,
        "toolset": toolset,
        "title": tool.title,
        "description": tool.description,
        "tags": list(tool.tags),
        "payload": _type_entry(tool.payload),
        "result": _type_entry(tool.result),
        "bounded": tool.bounded,
    }
    if tool.annotations:
        entry["annotations"] = dict(tool.annotations)
    entry["server_data"] = [
        {
            "kind": sd.kind,
            "description": sd.description,
            "default": sd.default,
            "schema": sd.type.schema,
        }
        for sd in tool.server_data
    ]
    return entry


def _type_entry(view: TypeView) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": view.class_name, "schema": view.schema}
    if view.example is not None:
        entry["example"] = view.example
    return entry


def catalog_hash(tools: list[dict[str, Any]]) -> str:
    """sha256 of the tools as compact JSON, keys in their written order.

    The order is part of what a model sees (the parameter listing, Gemini's
    ``propertyOrdering``, the JSON text itself), so two attributes swapped in a design change
    the hash. ``tooldesign.runtime.catalog.catalog_hash`` computes the same, for the loader.
    """
    canonical = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def build_catalog(tools: Iterable[dict[str, Any]]) -> dict[str, Any]:
    listed = list(tools)
    digest = catalog_hash(listed)
    return {
        "version": digest[:12],
        "hash": digest,
        "schema_dialect": DIALECT,
        "count": len(listed),
        "tools": listed,
    }


def catalog_text(catalog: dict[str, Any]) -> str:
    """The catalog as JSON with one tool per line.

    Diffs stay per tool, and each line is written by the C encoder (``indent`` would force the
    pure-Python one, slow on catalogs of thousands of tools).
    """
    head = {key: value for key, value in catalog.items() if key != "tools"}
    lines = [_compact(tool) for tool in catalog["tools"]]
    body = ",\n".join(lines)
    return (
        f'{_compact(head)[:-1]}, "tools": [\n{body}\n]}}\n'
        if lines
        else f'{_compact(head)[:-1]}, "tools": []}}\n'
    )


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
