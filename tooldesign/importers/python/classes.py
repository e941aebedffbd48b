"""The file's own classes as design types: pydantic models, TypedDicts and dataclasses (nested
classes included) by their fields, Enums by their values."""

from __future__ import annotations

import ast

from tooldesign.importers.docstrings import parse_docstring
from tooldesign.importers.draft import ANY, INT, STRING, DraftAttribute, DraftNamedType, Named
from tooldesign.importers.python.annotations import AnnotationReader, Mapped
from tooldesign.importers.python.syntax import (
    NO_VALUE,
    enum_members,
    is_dataclass,
    is_enum,
    is_typed_dict,
    last_name,
)

# Class-body annotations that declare no field: class variables, dataclass init-only values
# and the keyword-only marker.
_NOT_FIELDS = frozenset({"ClassVar", "InitVar", "KW_ONLY"})


class ClassReader(AnnotationReader):
    """Reads a class an annotation names into ``types``, once (a recursive one refers to
    itself)."""

    def local_class(self, qualified: str, where: str) -> Mapped:
        node = self.classes[qualified]
        if is_enum(node):
            return self.enum_class(node, where)
        name = self.type_names[qualified]
        if name not in self.types:
            if self.is_model(node) or is_typed_dict(node) or is_dataclass(node):
                self.types[name] = None  # being built: a recursive reference finds it
                self.types[name] = self.named_type(qualified)
            else:
                self.notice(
                    f"class {qualified} is not a pydantic model, TypedDict, dataclass or Enum: "
                    "typed Any",
                    where,
                )
                return Mapped(ANY)
        return Mapped(Named(name))

    def enum_class(self, node: ast.ClassDef, where: str) -> Mapped:
        values = list(enum_members(node).values())
        kinds = {type(v) for v in values}
        if not values or len(kinds) != 1 or kinds - {str, int}:
            self.notice(f"enum {node.name} has values the design cannot list: typed Any", where)
            return Mapped(ANY)
        return Mapped(STRING if kinds == {str} else INT, {"enum": values})

    def named_type(self, qualified: str) -> DraftNamedType:
        node = self.classes[qualified]
        name = self.type_names[qualified]
        where = f"type {name} ({self.path.name}:{node.lineno})"
        total = all(
            not (k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in node.keywords
        )
        saved, self.scope = self.scope, qualified  # its nested classes are in scope
        try:
            attributes = [*self.inherited(node), *self.class_fields(node, total, where)]
        finally:
            self.scope = saved
        doc = parse_docstring(ast.get_docstring(node))
        return DraftNamedType(name, doc.description or None, tuple(attributes))

    def inherited(self, node: ast.ClassDef) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        for base in node.bases:
            parent = self.base_class(node, base)
            if parent is not None:
                self.local_class(parent, f"type {self.type_names[self.qualified_names[id(node)]]}")
                named = self.types.get(self.type_names[parent])
                if named is not None:
                    out.extend(named.attributes)
        return out

    def class_fields(self, node: ast.ClassDef, total: bool, where: str) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        body = node.body
        doc = parse_docstring(ast.get_docstring(node))
        model = self.is_model(node)
        for index, item in enumerate(body):
            if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
                continue
            name = item.target.id
            if (
                name == "model_config"
                or (name.startswith("_") and model)  # pydantic's private attributes
                or last_name(item.annotation) in _NOT_FIELDS
                or (
                    isinstance(item.annotation, ast.Subscript)
                    and last_name(item.annotation.value) in _NOT_FIELDS
                )
            ):
                continue
            field_where = f"{where} › field {name!r}"
            mapped = self.annotation(item.annotation, field_where)
            default_value, field_options = self.default(item.value, field_where)
            wire = name
            if field_options is not None:
                mapped = self.with_field(mapped, field_options, field_where)
                alias = field_options.get("alias") or field_options.get("validation_alias")
                if isinstance(alias, str):
                    wire = alias
            if default_value is NO_VALUE and mapped.has_default:
                default_value = mapped.default
            required = (
                mapped.required
                if mapped.required is not None
                else (total and default_value is NO_VALUE)
            )
            if required and mapped.nullable:
                self.notice("may be None but has no default: written as optional", field_where)
                required = False
            description = (
                mapped.description
                or doc.params.get(name)
                or _attribute_docstring(body, index)
                or mapped.note
            )
            out.append(
                self.attribute(wire, mapped, description, required, default_value, field_where)
            )
        return out


def _attribute_docstring(body: list[ast.stmt], index: int) -> str | None:
    """The string right after a class attribute (what pydantic reads as its docstring)."""
    if index + 1 < len(body):
        nxt = body[index + 1]
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            return " ".join(nxt.value.value.split())
    return None
