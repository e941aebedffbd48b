"""What a toolset's ``content.py`` is rendered from: its prompts' and resource templates' typed
argument models, the handlers an application may give, and the bound functions imported."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tooldesign.codegen.literals import py_literal
from tooldesign.contract.constraints import CONSTRAINTS
from tooldesign.contract.content_catalog import content_catalog_text
from tooldesign.ir.model import (
    NO_VALUE,
    Binding,
    ContentItem,
    Field,
    ObjectShape,
    Primitive,
    PrimitiveType,
    Toolset,
)
from tooldesign.ir.schema import SchemaBuilder

_PYTHON = {
    Primitive.STRING: "str",
    Primitive.INTEGER: "int",
    Primitive.NUMBER: "float",
    Primitive.BOOLEAN: "bool",
}
_BOUNDS = tuple(
    (c.option, c.pydantic)
    for c in CONSTRAINTS
    if c.pydantic is not None and c.applies_to != "array"
)
"""``(Constraints attribute, pydantic Field argument)`` of each bound a scalar can take."""


@dataclass(frozen=True)
class ModelField:
    ident: str
    annotation: str
    default: str
    """The ``Field(...)`` call: default, description, alias and bounds."""


@dataclass(frozen=True)
class ModelView:
    class_name: str
    doc: str
    fields: tuple[ModelField, ...]


@dataclass(frozen=True)
class ItemView:
    item: ContentItem
    handler_type: str
    """The type of the handler the application may give (``handlers[ident]``)."""
    default: str
    """The handler used when the application gives none: the bound function, the rendered
    template, or ``None``."""
    completer: str | None
    """For ``Completes``: the bound completer, or ``None`` (then the application gives one)."""


@dataclass(frozen=True)
class ContentView:
    service: str
    toolset: str
    models: tuple[ModelView, ...]
    prompts: tuple[ItemView, ...]
    resources: tuple[ItemView, ...]
    templates: tuple[ItemView, ...]
    imports: tuple[tuple[str, str], ...]
    """``(module, alias)`` of each application module a binding names."""
    catalog: str
    """The text of its ``content.json``."""

    @property
    def exports(self) -> list[str]:
        """``__all__``, sorted as ruff sorts it (classes, then functions)."""
        names = ["Handlers", *(m.class_name for m in self.models)]
        names += ["prompts", "resources", "server_content", "templates"]
        return sorted(names, key=lambda name: (name[:1].islower(), name))

    @property
    def uses_literal(self) -> bool:
        return any(f.annotation.startswith("Literal[") for m in self.models for f in m.fields)

    @property
    def first_party(self) -> frozenset[str]:
        return frozenset(module.partition(".")[0] for module, _ in self.imports)


def content_view(service: str, toolset: Toolset) -> ContentView | None:
    """The view of ``toolset``'s content module; ``None`` when it declares no content."""
    if not toolset.content:
        return None
    modules: dict[str, str] = {}

    def bound(binding: Binding | None) -> str | None:
        if binding is None:
            return None
        alias = modules.setdefault(binding.module, f"app_{len(modules)}")
        return f"{alias}.{binding.qualname}"

    models: list[ModelView] = []
    items: dict[str, list[ItemView]] = {"prompt": [], "resource": [], "template": []}
    for item in toolset.content:
        args = "" if item.kind == "resource" else item.class_name
        if args and (item.arguments or item.kind == "template"):
            models.append(_model(item))
        elif item.kind == "prompt":
            args = ""
        returns = "mc.Rendered" if item.kind == "prompt" else "mc.Body"
        handler_type = f"Callable[[{args}], {returns} | Awaitable[{returns}]]"
        default = bound(item.binding)
        if default is None and item.template is not None:
            default = f"dc.from_template({py_literal(item.template)})"
        completer = bound(item.completer)
        items[item.kind].append(ItemView(item, handler_type, default or "None", completer))
    return ContentView(
        service,
        toolset.name,
        tuple(models),
        tuple(items["prompt"]),
        tuple(items["resource"]),
        tuple(items["template"]),
        tuple((module, alias) for module, alias in modules.items()),
        content_catalog_text([catalog_entry(item) for item in toolset.content]),
    )


def catalog_entry(item: ContentItem) -> dict[str, Any]:
    """``item`` as ``content.json`` lists it (:mod:`tooldesign.contract.content_catalog`)."""
    fields = item.arguments
    if item.kind == "template":  # a variable always has a value
        fields = tuple(dataclasses.replace(f, required=True) for f in fields)
    shape = ObjectShape(item.class_name, fields, None, item.location, item.path)
    entry: dict[str, Any] = {
        "kind": item.kind,
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "uri": item.uri,
        "mime_type": item.mime_type if item.kind != "prompt" else None,
        "arguments": SchemaBuilder({}).object_schema(shape),
        "completes": {
            f.name: "values" if f.constraints.enum else "handler"
            for f in item.arguments
            if f.constraints.enum or item.completes
        },
    }
    if item.asks:
        entry["asks"] = list(item.asks)
    return entry


def _model(item: ContentItem) -> ModelView:
    what = "Arguments of prompt" if item.kind == "prompt" else "Variables of resource template"
    return ModelView(
        item.class_name,
        f"{what} {item.name!r}.",
        tuple(_field(f, item.kind == "template") for f in item.arguments),
    )


def _field(f: Field, always: bool) -> ModelField:
    assert isinstance(f.type, PrimitiveType)
    python = _PYTHON[f.type.kind]
    c = f.constraints
    annotation = f"Literal[{', '.join(py_literal(v) for v in c.enum)}]" if c.enum else python
    required = f.required or always
    args: list[str] = []
    if not required:
        if f.default is NO_VALUE:
            annotation += " | None"
            args.append("None")
        else:
            args.append(py_literal(f.default))
    if f.description:
        args.append(f"description={py_literal(f.description)}")
    if f.ident != f.name:
        args.append(f"alias={py_literal(f.name)}")
    for option, keyword in _BOUNDS:
        value = getattr(c, option)
        if value is not None:
            args.append(f"{keyword}={py_literal(value)}")
    return ModelField(f.ident, annotation, f"Field({', '.join(args)})")
