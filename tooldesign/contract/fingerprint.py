"""A tool's fingerprint: one digest of everything a model or an application can observe of it.

Each catalog entry carries its own, as ``"fingerprint": "<64 hex digits>"`` (its last key):
the sha256 of the entry's canonical form, the ``fingerprint`` key itself left out. The
catalog's ``hash`` covers every tool's JSON byte for byte, in written order; a tool's
fingerprint covers that tool alone and ignores how its JSON is written — key order, spacing,
the order of a schema's ``required`` list, and keys left out for their default value
(``annotations: {}``, ``server_data: []``, ``tags: []``, ``bounded: false``, ``injected: []``)
— so a client can keep the fingerprint of each tool it relies on and tell, tool by tool,
whether it changed. Everything else counts: the name and id, title, description, tags, every
schema keyword (descriptions and examples too: the model reads them), the generated class
names (application code imports them), annotations, server data, the injected fields'
names (an application supplies them) and any key a future catalog adds.

The catalog writer (:func:`tooldesign.contract.catalog.catalog_entry`) stores it; the reader
checks it; ``tooldesign diff`` and ``tooldesign docs`` use it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K

FINGERPRINT_KEY = "fingerprint"
"""The catalog entry key that carries the fingerprint (left out of what it digests)."""

_DEFAULTS: Mapping[str, Any] = {
    "tags": [],
    "bounded": False,
    "annotations": {},
    "server_data": [],
    "injected": [],
}
"""Entry keys the catalog may leave out, with the value a reader takes for them."""

# Schema keywords whose values are schemas, or maps or lists of schemas: the walk follows them
# (and only them), so an enum or default value that happens to hold a "required" key is data.
_SCHEMA_VALUED = K.holding("schema")
_SCHEMA_MAPS = K.holding("named")
_SCHEMA_LISTS = K.holding("schemas")


def tool_fingerprint(entry: Mapping[str, Any]) -> str:
    """The fingerprint of one catalog entry: 64 hex digits (sha256 of its canonical form).

    A ``fingerprint`` key already in ``entry`` is left out, so the catalog writer can compute
    it from the entry it is about to complete, and a reader can check it.
    """
    canonical = json.dumps(
        canonical_entry(entry), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def fingerprint_of(entry: Mapping[str, Any]) -> str:
    """The entry's own fingerprint when it carries one, or the one computed from it."""
    carried = entry.get(FINGERPRINT_KEY)
    return carried if isinstance(carried, str) and carried else tool_fingerprint(entry)


def canonical_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The entry with defaults filled in, its fingerprint left out, its schemas canonical."""
    out: dict[str, Any] = {**_DEFAULTS}
    for key, value in entry.items():
        if key == FINGERPRINT_KEY:
            continue
        if key in ("payload", "result") and isinstance(value, Mapping):
            out[key] = _with_schema(value)
        elif key == "server_data" and isinstance(value, list):
            out[key] = [_with_schema(item) if isinstance(item, Mapping) else item for item in value]
        else:
            out[key] = value
    return out


def _with_schema(holder: Mapping[str, Any]) -> dict[str, Any]:
    return {k: canonical_schema(v) if k == "schema" else v for k, v in holder.items()}


def canonical_schema(schema: Any) -> Any:
    """``schema`` with each ``required`` list sorted: the order of required names means nothing
    to a validator, and follows the design's attribute order, which a reordering changes."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == K.REQUIRED and isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[key] = sorted(value)
        elif key in _SCHEMA_VALUED:
            out[key] = canonical_schema(value)
        elif key in _SCHEMA_MAPS:
            out[key] = (
                {name: canonical_schema(sub) for name, sub in value.items()}
                if isinstance(value, Mapping)
                else value
            )
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [canonical_schema(sub) for sub in value]
        else:
            out[key] = value
    return out
