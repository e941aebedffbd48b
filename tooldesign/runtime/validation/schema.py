"""JSON values rewritten as the JSON Schema that describes them says: each object's keys kept or
dropped (optional nulls stripped, undeclared keys dropped), each scalar replaced (whole numbers
made integers). Schemas are read through :mod:`tooldesign.jsonschema` (references followed by
its one resolver); none of it mutates what it reads: schemas are the specs' shared, read-only
values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import (
    MAPS,
    accepts_null,
    merge_single_all_of,
    object_schema,
    type_list,
    variants,
)
from tooldesign.jsonschema.refs import resolve
from tooldesign.runtime.spec.frozen import FrozenList

JSON_ARRAYS = frozenset({list, FrozenList})
"""For ``type(x) in JSON_ARRAYS``: a JSON array, plain or frozen. Faster than ``isinstance``
when ``x`` is most often not one (``None``), as on the keywords exports look for."""

_MAX_DEPTH = 64


KeepKey = Callable[[str, Any, Mapping[str, Any], Mapping[str, Any]], bool]
"""``keep(key, item, object_schema, root)``: whether an object keeps one of its keys."""

RewriteLeaf = Callable[[Any, Sequence[Mapping[str, Any]], str], Any]
"""``leaf(value, schemas, path)``: a scalar's new value; ``schemas`` are the schema it is an
instance of and that schema's union variants; ``path`` is where it is (``items[].at``)."""


def rewrite(
    value: Any,
    schema: Mapping[str, Any],
    *,
    keep: KeepKey | None = None,
    leaf: RewriteLeaf | None = None,
) -> Any:
    """``value`` rewritten as ``schema`` (the root) describes it: each object's keys filtered by
    ``keep``, each scalar replaced by what ``leaf`` gives.

    Objects no schema describes (or no union variant fits) are left as they are.
    """
    return _rewrite(value, schema, schema, keep, leaf, "", 0)


def _rewrite(
    value: Any,
    schema: Any,
    root: Mapping[str, Any],
    keep: KeepKey | None,
    leaf: RewriteLeaf | None,
    path: str,
    depth: int,
) -> Any:
    if not isinstance(schema, MAPS) or depth > _MAX_DEPTH:
        return value
    schema = resolve(merge_single_all_of(schema), root)
    if isinstance(value, dict):
        node = object_schema(value, schema, root)
        if node is None:
            return value
        properties = node.get(K.PROPERTIES)
        properties = properties if isinstance(properties, MAPS) else {}
        extra = node.get(K.ADDITIONAL_PROPERTIES)
        return {
            key: _rewrite(
                item,
                properties.get(key, extra),
                root,
                keep,
                leaf,
                f"{path}.{key}" if path else key,
                depth + 1,
            )
            for key, item in value.items()
            if keep is None or keep(key, item, node, root)
        }
    if isinstance(value, list):
        for node in (schema, *variants(schema, root)):
            items = node.get(K.ITEMS)
            if isinstance(items, MAPS):
                return [
                    _rewrite(item, items, root, keep, leaf, f"{path}[]", depth + 1)
                    for item in value
                ]
        return value
    if leaf is not None:
        return leaf(value, (schema, *variants(schema, root)), path)
    return value


def _not_an_optional_null(
    key: str, item: Any, node: Mapping[str, Any], root: Mapping[str, Any]
) -> bool:
    if item is not None:
        return True
    properties = node.get(K.PROPERTIES)
    if not isinstance(properties, MAPS) or key not in properties:
        return True
    required = node.get(K.REQUIRED)
    return (isinstance(required, list) and key in required) or accepts_null(properties[key], root)


def strip_optional_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` without the ``null``s sent for optional fields whose schema does not take one.

    Such a ``null`` means "not given": strict provider modes make models send it for every
    optional field, and decoders read it so. A field whose schema accepts ``null`` keeps it.
    """
    return rewrite(value, schema, keep=_not_an_optional_null)


def _declared(key: str, item: Any, node: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    properties = node.get(K.PROPERTIES)
    return (isinstance(properties, MAPS) and key in properties) or node.get(
        K.ADDITIONAL_PROPERTIES, True
    ) is not False


def declared_only(value: Any, schema: Mapping[str, Any], *, leaf: RewriteLeaf | None = None) -> Any:
    """``value`` without the keys its closed objects in ``schema`` do not declare (and, in the
    same pass, each scalar replaced by what ``leaf`` gives)."""
    return rewrite(value, schema, keep=_declared, leaf=leaf)


def integral_numbers(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with each number that has no fractional part (``3.0``) made an ``int`` where
    ``schema`` asks for an integer, as JSON Schema's ``integer`` takes it; ``value`` itself when
    there is none to change."""
    if not has_integral_float(value):
        return value
    changed = False

    def leaf(item: Any, schemas: Sequence[Mapping[str, Any]], path: str) -> Any:
        nonlocal changed
        if type(item) is float and item.is_integer():
            kinds = {kind for node in schemas for kind in type_list(node)}
            if "integer" in kinds and "number" not in kinds:
                changed = True
                return int(item)
        return item

    rewritten = rewrite(value, schema, leaf=leaf)
    return rewritten if changed else value


def has_integral_float(value: Any) -> bool:
    """Whether a number with no fractional part (``3.0``) is anywhere in ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            if item.is_integer():
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
