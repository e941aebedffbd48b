"""The typed API a model writes code against: one Python stub per set of tools.

Each tool code may call is a function with keyword-only arguments typed by its payload schema
and a return type written from its result schema (``TypedDict``s: results are plain dicts in
the sandbox); its docstring carries the description, each argument's description and bounds,
the design's example, what it may raise and whether a person approves it. Injected fields are
not arguments: the runtime fills them from the run's metadata.

The same text is rendered from a catalog entry (what ``tooldesign gen`` writes next to the
catalog, ``code_api.pyi``) and from a runtime's specs (what a ``run_code`` tool shows), so
the two cannot drift: a test renders both and compares them.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooldesign.contract.catalog import CatalogTool
from tooldesign.contract.rules import split_rules
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.text import compact_json, printable
from tooldesign.jsonschema.words import phrases
from tooldesign.runtime.codemode.policy import Access, access_for, default_access
from tooldesign.runtime.spec.specs import ToolSpec

RAISES = (
    "Raises ValueError when the arguments are invalid (its message says what to correct), "
    "PermissionError when the call is not allowed or a person declined it, RuntimeError when "
    "the tool failed."
)
"""What every function may raise: the sandbox's exceptions for the runtime's answers."""

_STRUCTURE = frozenset(
    {
        K.TYPE, K.PROPERTIES, K.REQUIRED, K.ITEMS, K.ADDITIONAL_PROPERTIES, K.DESCRIPTION,
        K.TITLE, K.ENUM, K.CONST, K.ANY_OF, K.ONE_OF, K.REF, K.DEFS, K.EXAMPLES, K.EXAMPLE,
        K.SCHEMA, K.ID, K.COMMENT, K.DISCRIMINATOR, K.READ_ONLY, K.WRITE_ONLY, K.DEPRECATED,
    }
)  # fmt: skip
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


@dataclass(frozen=True, slots=True)
class ApiTool:
    """What the API says of one tool."""

    name: str
    description: str
    payload: Mapping[str, Any]
    result_name: str
    result: Mapping[str, Any]
    example: Any
    access: Access
    when: str | None = None

    @classmethod
    def from_spec(cls, spec: ToolSpec[Any, Any], overrides: Mapping[str, Access]) -> ApiTool:
        return cls(
            name=spec.name,
            description=spec.description,
            payload=spec.payload.schema,
            result_name=spec.result.name,
            result=spec.result.schema,
            example=spec.payload.example,
            access=access_for(spec, overrides),
            when=spec.confirm.when if spec.confirm is not None else None,
        )

    @classmethod
    def from_catalog(cls, tool: CatalogTool) -> ApiTool:
        """From a catalog's tool (``tool_schemas.json``), with the default access."""
        return cls(
            name=tool.name,
            description=tool.description,
            payload=tool.payload.schema,
            result_name=tool.result.name,
            result=tool.result.schema,
            example=tool.payload.example,
            access=default_access(tool.annotations, tool.confirm, tool.code_access),
            when=tool.confirm.when if tool.confirm is not None else None,
        )


def render_api(tools: Sequence[ApiTool], *, title: str) -> str:
    """The stub: types first, then one function per tool code may call, in the order given."""
    writer = _Writer()
    functions = [writer.function(tool) for tool in tools if tool.access != "direct"]
    direct = [tool.name for tool in tools if tool.access == "direct"]
    head = [
        f'"""{_line(title)}',
        "",
        "Call these functions from your code; each returns plain dicts and lists shaped as the",
        "types say. None for an optional argument leaves it out.",
        RAISES.replace(" PermissionError", "\nPermissionError").replace(
            " RuntimeError", "\nRuntimeError"
        ),
    ]
    if direct:
        head.append(f"Not callable from code (call them directly): {', '.join(direct)}.")
    head.append('"""')
    typing_names = sorted(writer.typing)
    imports = [f"from typing import {', '.join(typing_names)}"] if typing_names else []
    top = "\n".join(head) + ("\n\n" + "\n".join(imports) if imports else "")
    return "\n\n".join([top, *writer.classes, *functions]) + "\n"


def tool_api(tool: ApiTool) -> str:
    """One tool's share of the API: the types it needs and its function, without the stub's
    opening words (what a reference page shows of it). Empty for a tool code may not call."""
    if tool.access == "direct":
        return ""
    writer = _Writer()
    function = writer.function(tool)
    return "\n\n".join([*writer.classes, function]) + "\n"


def api_for_specs(
    specs: Iterable[ToolSpec[Any, Any]], overrides: Mapping[str, Access], *, title: str
) -> str:
    return render_api([ApiTool.from_spec(spec, overrides) for spec in specs], title=title)


def api_for_catalog(tools: Iterable[CatalogTool], *, title: str) -> str:
    return render_api([ApiTool.from_catalog(tool) for tool in tools], title=title)


def _line(text: str) -> str:
    """One line of prose, safe inside a docstring or a comment."""
    text = " ".join(str(text).split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return printable(text)


def _class_name(text: str) -> str:
    words = re.split(r"[^0-9A-Za-z]+", text)
    name = "".join(w[:1].upper() + w[1:] for w in words if w)
    if not name or name[0].isdigit():
        name = "T" + name
    return name


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


class _Writer:
    """Renders types once each (by name), collecting the ``typing`` names they use."""

    def __init__(self) -> None:
        self.classes: list[str] = []
        self.typing: set[str] = set()
        self._named: dict[str, str] = {}  # class name → rendered body, to share equal ones
        self._roots: dict[int, str] = {}  # root schemas being rendered → their class names

    def function(self, tool: ApiTool) -> str:
        payload = tool.payload
        returns = self.type_of(tool.result, tool.result, tool.result_name)
        props: Mapping[str, Any] = payload.get(K.PROPERTIES, {})
        required = set(payload.get(K.REQUIRED, ()))
        names = list(props)
        doc = [_line(tool.description)]
        if all(_identifier(n) for n in names):
            params = []
            for name in sorted(names, key=lambda n: n not in required):
                schema = props[name]
                kind = self.type_of(schema, payload, f"{tool.name}_{name}")
                if name in required:
                    params.append(f"{name}: {kind}")
                elif K.DEFAULT in schema:
                    params.append(f"{name}: {kind} = {_literal(schema[K.DEFAULT])}")
                else:
                    params.append(f"{name}: {kind} | None = None")
            listed = "".join(f"    {param},\n" for param in params)
            signature = (
                f"def {tool.name}(\n    *,\n{listed}) -> {returns}:"
                if params
                else f"def {tool.name}() -> {returns}:"
            )
            if names:
                doc.append("")
                doc.append("Args:")
                for name in names:
                    doc.append(f"    {name}: {_about(props[name], payload)}")
        else:  # a field no keyword argument can name: the arguments are one dict
            kind = self.type_of(payload, payload, f"{tool.name}_payload")
            signature = f"def {tool.name}(arguments: {kind}, /) -> {returns}:"
        _, rules = split_rules(payload)
        if rules:  # rules across arguments: the type hints cannot say them
            doc.append("")
            doc.append("Rules: " + _line("; ".join(rule.words() for rule in rules)))
        if tool.example is not None:
            doc.append("")
            doc.append(f"Example arguments: {_line(compact_json(tool.example))}")
        if tool.access == "approve":
            doc.append("")
            doc.append(
                "A person approves each call first"
                + (f" when {_line(tool.when)}" if tool.when else "")
                + ": the code waits for the decision."
            )
        body = "\n".join(f"    {line}" if line else "" for line in doc).lstrip()
        end = "\n    " if len(doc) > 1 else ""
        return f'{signature}\n    """{body}{end}"""'

    def type_of(self, schema: Any, root: Mapping[str, Any], hint: str) -> str:
        if not isinstance(schema, Mapping):
            self.typing.add("Any")
            return "Any"
        ref = schema.get(K.REF)
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            target = root.get(K.DEFS, {}).get(name)
            return self._object(target, root, name) if target is not None else "Any"
        if ref == "#":
            return self._roots.get(id(root)) or self._object(root, root, hint)
        for union in (K.ANY_OF, K.ONE_OF):
            if union in schema:
                kinds = [self.type_of(s, root, f"{hint}_{i}") for i, s in enumerate(schema[union])]
                return " | ".join(dict.fromkeys(kinds))
        if K.ENUM in schema or K.CONST in schema:
            values = schema[K.ENUM] if K.ENUM in schema else [schema[K.CONST]]
            self.typing.add("Literal")
            inner = ", ".join(_literal(v) for v in values if v is not None)
            text = f"Literal[{inner}]" if inner else "None"
            return f"{text} | None" if None in values and inner else text
        types = schema.get(K.TYPE)
        if isinstance(types, list):
            kinds = [self.type_of({**schema, K.TYPE: t}, root, hint) for t in types]
            return " | ".join(dict.fromkeys(kinds))
        if types in _SCALARS:
            return _SCALARS[types]
        if types == "array":
            return f"list[{self.type_of(schema.get(K.ITEMS, {}), root, f'{hint}_item')}]"
        if types == "object" or K.PROPERTIES in schema:
            if K.PROPERTIES in schema:
                return self._object(schema, root, hint)
            extra = schema.get(K.ADDITIONAL_PROPERTIES)
            value = (
                self.type_of(extra, root, f"{hint}_value") if isinstance(extra, Mapping) else "Any"
            )
            if value == "Any":
                self.typing.add("Any")
            return f"dict[str, {value}]"
        self.typing.add("Any")
        return "Any"

    def _object(self, schema: Mapping[str, Any], root: Mapping[str, Any], hint: str) -> str:
        name = _class_name(hint)
        if name in self._named:
            return name
        self._named[name] = ""  # recursion refers to the name
        if schema is root:
            self._roots[id(root)] = name
        props: Mapping[str, Any] = schema.get(K.PROPERTIES, {})
        required = set(schema.get(K.REQUIRED, ()))
        self.typing.add("TypedDict")
        lines = []
        if schema.get(K.DESCRIPTION):
            lines.append(f'    """{_line(schema[K.DESCRIPTION])}"""\n')
        fields = []
        for prop, sub in props.items():
            kind = self.type_of(sub, root, f"{name}_{prop}")
            if prop not in required:
                self.typing.add("NotRequired")
                kind = f"NotRequired[{kind}]"
            about = _about(sub, root)
            fields.append((prop, kind, about))
        if all(_identifier(p) for p, _, _ in fields):
            for prop, kind, about in fields:
                if about:
                    lines.append(f"    # {about}")
                lines.append(f"    {prop}: {kind}")
            if not fields:
                lines.append("    pass")
            text = f"class {name}(TypedDict):\n" + "\n".join(lines)
        else:  # keys that are not identifiers: the functional form
            body = ", ".join(f"{_literal(p)}: {k}" for p, k, _ in fields)
            text = f"{name} = TypedDict({name!r}, {{{body}}})"
        self._named[name] = text
        self.classes.append(text)
        return name


def _about(schema: Any, root: Mapping[str, Any]) -> str:
    """A field's description and the bounds its type cannot say."""
    if not isinstance(schema, Mapping):
        return ""
    words = [_line(schema[K.DESCRIPTION])] if schema.get(K.DESCRIPTION) else []
    rest = {k: v for k, v in schema.items() if k not in _STRUCTURE and k != K.DEFAULT}
    words.extend(_line(p) for p in phrases(rest, root))
    return "; ".join(w for w in words if w)


def _literal(value: Any) -> str:
    """A JSON value as a Python literal."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return compact_json(value)
    return repr(value)
