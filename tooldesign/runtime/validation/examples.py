"""Example arguments built from a schema, for a tool whose design gives no ``Example()``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import SchemaNavigator, field_examples
from tooldesign.jsonschema.refs import ref_name


def example_from_schema(schema: Mapping[str, Any]) -> Any:
    """Arguments built from the fields' own examples, or ``None`` if a required one has none.

    For a tool without an ``Example()``: each required field takes its first example (or its
    only allowed value, or an object built the same way from its fields, or a one-item array);
    an optional field appears only when the design gives it an example.
    """
    built = _ExampleBuilder(SchemaNavigator(schema)).build(schema, frozenset())
    return None if built is _NO_EXAMPLE or built == {} else built


_NO_EXAMPLE: Any = object()


class _ExampleBuilder:
    __slots__ = ("nav",)

    def __init__(self, nav: SchemaNavigator) -> None:
        self.nav = nav

    def build(self, raw: Any, expanding: frozenset[str]) -> Any:
        if not isinstance(raw, Mapping):
            return _NO_EXAMPLE
        ref = ref_name(raw[K.REF]) if isinstance(raw.get(K.REF), str) else None
        if ref in expanding:  # a recursive type: no example goes on forever
            return _NO_EXAMPLE
        node = self.nav.resolve(raw)
        if not node:
            return _NO_EXAMPLE
        examples = field_examples(node)
        if examples:
            return examples[0]
        if K.CONST in node:
            return node[K.CONST]
        allowed = node.get(K.ENUM)
        if isinstance(allowed, list) and len(allowed) == 1:
            return allowed[0]
        inner = expanding | {ref} if ref else expanding
        kind = node.get(K.TYPE)
        properties = node.get(K.PROPERTIES)
        if kind == "object" and isinstance(properties, Mapping):
            required = set(node.get(K.REQUIRED) or ())
            built: dict[str, Any] = {}
            for name, prop in properties.items():
                if name in required:
                    value = self.build(prop, inner)
                    if value is _NO_EXAMPLE:
                        return _NO_EXAMPLE
                    built[name] = value
                elif (examples := field_examples(self.nav.resolve(prop))) is not None:
                    built[name] = examples[0]
            return built
        if kind == "array":
            item = self.build(node.get(K.ITEMS), inner)
            return _NO_EXAMPLE if item is _NO_EXAMPLE else [item]
        for variant in self.nav.variants(node):
            value = self.build(variant, inner)
            if value is not _NO_EXAMPLE:
                return value
        return _NO_EXAMPLE
