"""JSON values read through the JSON Schema that describes them.

The one place local ``$ref``s are followed (:func:`ref_target`, :func:`resolve`): the codecs,
their error messages, the examples, the MCP client and the provider exports all read schemas
through it. Here too: asking whether a schema takes ``null``, finding the object schema a value
is an instance of (in a union too), rewriting a value's objects key by key as its schema says,
and :class:`SchemaNavigator`, which walks a schema field by field and names its types. None of
it mutates what it reads: schemas are the specs' shared, read-only values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tooldesign.runtime.spec.frozen import FrozenList
from tooldesign.runtime.text import shown

MAPS = (dict, Mapping)
"""For ``isinstance``: a JSON object. ``dict`` first, the fast check for what JSON parses to."""

JSON_ARRAYS = frozenset({list, FrozenList})
"""For ``type(x) in JSON_ARRAYS``: a JSON array, plain or frozen. Faster than ``isinstance``
when ``x`` is most often not one (``None``), as on the keywords exports look for."""

_MAX_DEPTH = 64


def type_list(schema: Mapping[str, Any]) -> list[str]:
    """The schema's ``type`` as a list (empty when it has none)."""
    value = schema.get("type")
    if type(value) is str:
        return [value]
    if isinstance(value, list):
        return [t for t in value if isinstance(t, str)]
    return []


def ref_target(root: Mapping[str, Any], ref: str) -> Mapping[str, Any] | None:
    """The sub-schema a local ``$ref`` (``#`` or a JSON pointer under it) points to."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, MAPS) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, MAPS) else None


def ref_name(ref: str) -> str:
    """The name a ``$ref`` gives its target, its last pointer token: ``#/$defs/Device`` → ``Device``."""
    return ref.rsplit("/", 1)[-1]


def resolve(
    schema: Mapping[str, Any], root: Mapping[str, Any], *, keep_siblings: bool = False
) -> Mapping[str, Any]:
    """``schema`` with a local ``$ref`` followed (through chains of refs); unresolvable → itself.

    With ``keep_siblings``, keywords written beside a ``$ref`` (a field's description) are kept
    over the target's: they describe the field, the target its type.
    """
    seen: set[str] = set()
    while True:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or ref in seen:
            return schema
        seen.add(ref)
        target = ref_target(root, ref)
        if target is None:
            return schema
        if keep_siblings and len(schema) > 1:
            target = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        schema = target


def merge_single_all_of(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``{"allOf": [X], …}`` as ``X`` with the other keywords over it; any other schema as is.

    An ``allOf`` of one schema is how JSON Schema generators put a description beside a
    ``$ref``; dialects without ``allOf`` take the merged form.
    """
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], MAPS):
        return {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
    return schema


def accepts_null(schema: Any, root: Mapping[str, Any], _seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``null`` is a valid instance of ``schema`` (as far as a tool schema can say)."""
    if schema is True:
        return True
    if not isinstance(schema, MAPS):
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in _seen:
            return False
        target = ref_target(root, ref)
        if target is None or not accepts_null(target, root, _seen | {ref}):
            return False
    if "type" in schema and "null" not in type_list(schema):
        return False
    if "enum" in schema and None not in (schema["enum"] or ()):
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list) and not any(accepts_null(v, root, _seen) for v in variants):
            return False
    all_of = schema.get("allOf")
    return not isinstance(all_of, list) or all(accepts_null(v, root, _seen) for v in all_of)


def alternatives(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``anyOf`` and ``oneOf`` alternatives of ``schema``, as written (``$ref``s kept)."""
    if "anyOf" not in schema and "oneOf" not in schema:
        return []  # most nodes: asked of each node on the way to every issue
    return [
        variant
        for key in ("anyOf", "oneOf")
        for variant in schema.get(key) or ()
        if isinstance(variant, MAPS)
    ]


def variants(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``anyOf``/``oneOf`` alternatives of ``schema``, refs followed."""
    return [resolve(merge_single_all_of(variant), root) for variant in alternatives(schema)]


def object_schema(
    value: Mapping[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The object schema ``value`` is an instance of: ``schema`` itself, or one of its variants.

    Among a union's object variants: those whose required fields the value has and whose
    fixed values (a discriminator tag, a one-value enum) it matches; of those, the one that
    declares most of its keys. ``None`` when no variant fits.
    """
    if "properties" in schema or "additionalProperties" in schema:
        return schema
    candidates = [v for v in variants(schema, root) if isinstance(v.get("properties"), MAPS)]
    discriminator = schema.get("discriminator")
    tag = discriminator.get("propertyName") if isinstance(discriminator, MAPS) else None
    fitting = [v for v in candidates if _fits(value, v, root, tag)]
    if not fitting:
        return None
    return max(fitting, key=lambda v: len(set(value) & set(v["properties"])))


def _fits(
    value: Mapping[str, Any], variant: Mapping[str, Any], root: Mapping[str, Any], tag: str | None
) -> bool:
    """Whether ``value`` has the variant's required fields and the values it fixes."""
    required = variant.get("required")
    if isinstance(required, list) and any(name not in value for name in required):
        return False
    for name, field_schema in variant["properties"].items():
        if not isinstance(field_schema, MAPS):
            continue
        field_schema = resolve(merge_single_all_of(field_schema), root)
        fixed = field_schema.get("enum") or ("const" in field_schema and [field_schema["const"]])
        given = name in value or name == tag  # the tag must be there; another fixed field may not
        if fixed and len(fixed) == 1 and given and value.get(name) != fixed[0]:
            return False
    return True


class SchemaNavigator:
    """Walks one JSON Schema field by field, ``$ref``s followed, and names its types.

    ``extra_properties`` are top-level fields the schema leaves out (injected fields, hidden
    from the model): their types name what is missing, but they are never listed as fields the
    caller may send.
    """

    def __init__(
        self,
        schema: Mapping[str, Any],
        *,
        extra_properties: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.schema = schema
        self._extra = extra_properties or {}
        self.root = self.resolve(schema)

    def resolve(self, node: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """``node`` with its ``$ref`` followed, the keywords beside it kept (see :func:`resolve`)."""
        if node is None or "$ref" not in node:
            return node
        return resolve(node, self.schema, keep_siblings=True)

    def variants(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """A union's variants as written (``$ref``s kept, for their names), ``null`` left out."""
        return [v for v in alternatives(node) if (self.resolve(v) or {}).get("type") != "null"]

    def child(self, node: Mapping[str, Any], part: int | str) -> Mapping[str, Any] | None:
        """The schema of ``node``'s item (an index) or field (a key), as written."""
        if isinstance(part, int) or node.get("type") == "array":
            items = node.get("items")
            return items if isinstance(items, MAPS) else None
        properties = node.get("properties")
        if isinstance(properties, MAPS) and part in properties:
            child = properties[part]
            return child if isinstance(child, MAPS) else None
        if node is self.root and part in self._extra:
            return self._extra[part]
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, MAPS) else None

    def tagged_variant(self, node: Mapping[str, Any], tag: int | str) -> Mapping[str, Any] | None:
        """The variant of a discriminated union whose tag field takes ``tag``, resolved."""
        discriminator = node.get("discriminator")
        if not isinstance(discriminator, MAPS):
            return None
        prop = discriminator.get("propertyName")
        for raw in self.variants(node):
            variant = self.resolve(raw)
            if variant is None:
                continue
            tag_schema = self.resolve((variant.get("properties") or {}).get(prop))
            if tag_schema is None:
                continue
            values = tag_schema.get("enum") or (
                [tag_schema["const"]] if "const" in tag_schema else []
            )
            if tag in values:
                return variant
        return None

    def describe_type(self, node: Mapping[str, Any] | None) -> str:
        """What a value of ``node`` is, in a few words: ``array of object (Device)``."""
        name = type_name(node)
        node = self.resolve(node)
        if not node:
            return "any value"
        union = alternatives(node)
        if union:
            return " or ".join(self.describe_type(v) for v in union)
        kind = node.get("type")
        if isinstance(kind, list):
            return " or ".join(str(k) for k in kind)
        if kind == "array":
            return f"array of {self.describe_type(node.get('items'))}"
        if kind == "object" and (node.get("title") or name):
            return f"object ({node.get('title') or name})"
        if kind is None and "enum" in node:
            return "one of " + ", ".join(shown(v) for v in node["enum"])
        return str(kind) if kind else "any value"


def type_name(node: Mapping[str, Any] | None) -> str | None:
    """The design's name of a type: its title, or the ``$defs`` entry a ``$ref`` points to."""
    if not node:
        return None
    title = node.get("title")
    if isinstance(title, str):
        return title
    ref = node.get("$ref")
    return ref_name(ref) if isinstance(ref, str) else None


def description(node: Mapping[str, Any] | None) -> str | None:
    """The design's description of a field, if its schema has one."""
    if not node:
        return None
    text = node.get("description")
    return text if isinstance(text, str) else None


def field_examples(node: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """The field's own examples from the design (``examples``), if it has any."""
    examples = node.get("examples") if node else None
    return tuple(examples) if isinstance(examples, list) and examples else None


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
        properties = node.get("properties")
        properties = properties if isinstance(properties, MAPS) else {}
        extra = node.get("additionalProperties")
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
            items = node.get("items")
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
    properties = node.get("properties")
    if not isinstance(properties, MAPS) or key not in properties:
        return True
    required = node.get("required")
    return (isinstance(required, list) and key in required) or accepts_null(properties[key], root)


def strip_optional_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` without the ``null``s sent for optional fields whose schema does not take one.

    Such a ``null`` means "not given": strict provider modes make models send it for every
    optional field, and decoders read it so. A field whose schema accepts ``null`` keeps it.
    """
    return rewrite(value, schema, keep=_not_an_optional_null)


def _declared(key: str, item: Any, node: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    properties = node.get("properties")
    return (isinstance(properties, MAPS) and key in properties) or node.get(
        "additionalProperties", True
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
