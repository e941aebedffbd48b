"""JSON Schema helpers shared by the provider transforms (the dialect itself, its words and its
references are :mod:`tooldesign.jsonschema`'s).

Every transform builds new dictionaries and never mutates its input: the schemas it reads are
the specs' (frozen) and the loaded catalogs', both shared. What it copies as it is, it copies
with :func:`~tooldesign.runtime.spec.frozen.copy_json`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS, subschemas, type_list
from tooldesign.jsonschema.refs import def_name, resolve
from tooldesign.jsonschema.text import json_type
from tooldesign.runtime.spec.frozen import FrozenDict, FrozenList
from tooldesign.runtime.validation.schema import JSON_ARRAYS

Schema = dict[str, Any]
"""A JSON Schema a transform builds."""

# Keywords with no meaning for a model: dropped without a word (``x-mcp-header`` is MCP's, whose
# export keeps it: what its HTTP calls mirror in a header).
IGNORED = frozenset({K.SCHEMA, K.COMMENT, K.X_MCP_HEADER})


def split_keywords(
    schema: Mapping[str, Any], keep: frozenset[str], skip: frozenset[str]
) -> tuple[Schema, Schema]:
    """``schema``'s keywords in one pass: those in ``keep``, and the rest not in ``skip``.

    Transforms keep what their dialect takes and restate the rest (``dropped``) in words.
    """
    kept: Schema = {}
    dropped: Schema = {}
    for key, value in schema.items():
        if key in keep:
            kept[key] = value
        elif key not in skip:
            dropped[key] = value
    return kept, dropped


def complete_arrays(schema: Any) -> None:
    """Give every array schema without ``items`` an ``items: {}`` (any item), in place.

    ``{"type": "array"}`` alone is valid JSON Schema, but OpenAI rejects a tool that has one
    ("array schema missing items"); ``items: {}`` means the same and is accepted. Call it on a
    copy: it changes the schema it is given.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if K.ITEMS not in node and "array" in type_list(node):
            node[K.ITEMS] = {}
        stack.extend(subschemas(node))


def enum_values(schema: Mapping[str, Any]) -> list[Any] | None:
    """The values a schema's ``const`` or ``enum`` allows; ``None`` when it has neither."""
    if K.CONST in schema:
        return [schema[K.CONST]]
    values = schema.get(K.ENUM)
    return values if type(values) in JSON_ARRAYS else None


def value_types(values: Iterable[Any]) -> list[str]:
    """The JSON types of ``values`` other than null, in the order met.

    For an enum without a ``type``: dialects that need a type beside an enum take these.
    ``integer`` is folded into ``number`` when both occur (a number covers both).
    """
    kinds = list(dict.fromkeys(json_type(value) for value in values if value is not None))
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")
    return kinds


def object_root(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A tool's parameters with a ``$ref`` at the root replaced by the definition it names.

    Some schemas keep the arguments object in ``$defs`` and refer to it from the root; the
    providers want the object itself there. The root's ``$defs`` stay, for the references
    inside. A root whose own keywords would clash with the definition's (both declare
    ``properties``, say) is left as it is, and reported as not an object by the exports.
    """
    ref = schema.get(K.REF)
    if type(ref) is not str or ref == "#":
        return schema
    target = resolve(schema, schema)
    if K.REF in target:  # points nowhere, or round in a circle
        return schema
    siblings = {k: v for k, v in schema.items() if k != K.REF}
    if not _ANNOTATIONS.issuperset(siblings.keys() & target.keys()):
        return schema
    return {**target, **siblings}


# Keywords that only annotate: the root's own win over the definition's.
_ANNOTATIONS = frozenset({K.DESCRIPTION, K.TITLE, K.COMMENT, K.EXAMPLES, K.DEFS, K.SCHEMA})


def takes_value(types: list[str], value: Any) -> bool:
    """Whether a value of these JSON types may be ``value`` (``integer`` is a whole ``number``)."""
    kind = json_type(value)
    if kind in types:
        return True
    if kind == "integer":
        return "number" in types
    return kind == "number" and "integer" in types and float(value).is_integer()


def recursive_defs(root: Mapping[str, Any]) -> frozenset[str]:
    """Names of the ``$defs`` entries that refer back to themselves, directly or not."""
    defs = root.get(K.DEFS)
    if not isinstance(defs, MAPS):
        return frozenset()
    return cyclic({name: _refs_in(body) for name, body in defs.items()})


def cyclic(edges: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """The names in a graph of references (name → names it refers to) that reach themselves."""
    recursive: set[str] = set()
    for start, targets in edges.items():
        stack, seen = list(targets), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name in seen or name not in edges:
                continue
            seen.add(name)
            stack.extend(edges[name])
    return frozenset(recursive)


def _refs_in(schema: Any) -> set[str]:
    """The ``$defs`` names referred to anywhere inside ``schema``."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if type(node) in _JSON_OBJECTS:
            name = def_name(node.get(K.REF))
            if name is not None:
                found.add(name)
            stack.extend(v for v in node.values() if type(v) in _JSON_CONTAINERS)
        else:
            stack.extend(v for v in node if type(v) in _JSON_CONTAINERS)
    return found


# By exact type: the fastest check, run on every value of every schema an export reads.
_JSON_OBJECTS = frozenset({dict, FrozenDict})
_JSON_CONTAINERS = frozenset({dict, list, FrozenDict, FrozenList})
