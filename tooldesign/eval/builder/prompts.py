"""A toolset's prompts, resources and resource templates as the IR keeps them, each checked:
names and URIs unique across the design (one MCP server serves them all), a resource's URI
well formed, a template's variables exactly its arguments, a prompt's placeholders among its
arguments, arguments scalar (MCP sends them as text)."""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any, Literal

from tooldesign.contract.asks import Whom, asks_problem
from tooldesign.contract.naming import pascal_case
from tooldesign.dsl.content_records import ContentRecord, PromptRecord, ResourceRecord
from tooldesign.dsl.records import BindRecord, ToolsetRecord
from tooldesign.eval.builder import values
from tooldesign.eval.builder.fields import TypeBuilder
from tooldesign.eval.builder.names import TOOL_NAME, ident
from tooldesign.ir.model import NO_VALUE, Binding, ContentItem, Field, Primitive, PrimitiveType

URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s{}]*")
"""A URI: a scheme, a colon, and no white space (nor template braces)."""
VARIABLE = re.compile(r"\{([^{}]*)\}")
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_SCALARS = (Primitive.STRING, Primitive.INTEGER, Primitive.NUMBER, Primitive.BOOLEAN)


class Seen:
    """Names and URIs taken so far in the design, by kind: where each was first declared."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, str], ContentRecord] = {}
        self.handlers: dict[str, ContentRecord] = {}
        """The generated handlers' names (``Handlers`` keys), by the element first given one:
        a service's content module takes them all."""

    def claim(self, kind: str, key: str, rec: ContentRecord, issues: Any) -> None:
        first = self.first.setdefault((kind, key), rec)
        if first is not rec:
            issues.add(
                f"duplicate {kind} {key!r} (first declared at {first.location}); one MCP server "
                "serves the prompts and resources of every service generated together",
                rec.location,
                rec.path,
            )


def content(
    types: TypeBuilder,
    toolset: ToolsetRecord,
    seen: Seen,
    bind: Callable[[BindRecord, str], Binding | None],
) -> tuple[ContentItem, ...]:
    """The toolset's content records, built and checked (problems go to ``types.issues``)."""
    out = []
    if toolset.is_mcp and toolset.content:
        first = toolset.content[0]
        types.issues.add(
            "an MCPToolset's tools run on its server, which serves its own prompts and "
            "resources: declare them in a Toolset of this design",
            first.location,
            first.path,
        )
        return ()
    for rec in toolset.content:
        item = _item(types, rec, seen, bind)
        if item is None:
            continue
        keys = [item.ident] + ([f"complete_{item.ident}"] if item.completes else [])
        for key in keys:
            first = seen.handlers.setdefault(key, rec)
            duplicate = first.name == rec.name and what_of(first) == what_of(rec)
            if first is not rec and not duplicate:  # a duplicate is reported as one
                types.issues.add(
                    f"{what_of(rec)} {item.name!r} and {what_of(first)} {first.name!r} (declared "
                    f"at {first.location}) name the same generated handler ({key}); rename one",
                    rec.location,
                    rec.path,
                )
        out.append(item)
    return tuple(out)


def what_of(rec: ContentRecord) -> str:
    if isinstance(rec, PromptRecord):
        return "prompt"
    return (
        "resource template" if isinstance(rec, ResourceRecord) and rec.is_template else "resource"
    )


def _item(
    types: TypeBuilder,
    rec: ContentRecord,
    seen: Seen,
    bind: Callable[[BindRecord, str], Binding | None],
) -> ContentItem | None:
    issues = types.issues
    is_prompt = isinstance(rec, PromptRecord)
    kind: Literal["prompt", "resource", "template"] = (
        "prompt"
        if is_prompt
        else "template"
        if isinstance(rec, ResourceRecord) and rec.is_template
        else "resource"
    )
    what = {"prompt": "prompt", "resource": "resource", "template": "resource template"}[kind]
    for call, where in rec.duplicates:
        issues.add(f"{call} is declared more than once in this {what}", where, rec.path)
    name = rec.name
    if not values.is_text(name) or not TOOL_NAME.fullmatch(name):
        issues.add(
            f"{what} name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ (it names a generated "
            "handler and model)",
            rec.location,
            rec.path,
        )
        return None
    seen.claim(what + " name", name, rec, issues)
    description = values.text(rec.description, rec, "description", issues)
    if not description or not description.strip():
        issues.add(
            f"{what} needs a description (hosts show it to choose the {what})",
            rec.location,
            rec.path,
        )
    title = values.text(rec.title, rec, "title", issues) if rec.title is not None else None
    item_ident = ident(name, f"{kind}_")
    class_name = pascal_case(item_ident) + ("Arguments" if is_prompt else "Parameters")
    arguments = _arguments(types, rec, class_name, what)
    uri = mime = template = None
    if isinstance(rec, ResourceRecord):
        uri = _uri(rec, arguments, what, issues)
        if uri is not None:
            seen.claim(what + " URI", uri, rec, issues)
        if rec.mime_type is not None:
            mime = values.text(rec.mime_type, rec, "mime_type", issues)
            if mime is not None and not re.fullmatch(r"[\w.+-]+/[\w.+-]+", mime):
                issues.add(
                    f"mime_type {mime!r} is not a media type (type/subtype)",
                    rec.location,
                    rec.path,
                )
    elif isinstance(rec, PromptRecord):
        template = _template(rec, arguments, issues)
    binding = (
        _function(bind(rec.bind, "BindTo"), rec.bind, issues) if rec.bind is not None else None
    )
    if template is not None and rec.bind is not None:
        issues.add(
            "a prompt renders its template or the function it is bound to, not both: drop "
            "template= or BindTo",
            rec.bind.location,
            rec.path,
        )
    completer = None
    if rec.completes is not None and rec.completes.target is not None:
        completer = _function(bind(rec.completes, "Completes"), rec.completes, issues)
    return ContentItem(
        kind=kind,
        name=name,
        ident=item_ident,
        class_name=class_name,
        description=description or "",
        title=title,
        uri=uri,
        mime_type=mime,
        arguments=arguments,
        template=template,
        binding=binding,
        completes=rec.completes is not None,
        completer=completer,
        location=rec.location,
        path=rec.path,
        asks=_asks(rec, template, issues),
    )


def _asks(rec: ContentRecord, template: str | None, issues: Any) -> tuple[Whom, ...]:
    """``Asks`` of a prompt: whom its rendering asks, which a template (no code) cannot."""
    record = rec.asks if isinstance(rec, PromptRecord) else None
    if record is None:
        return ()
    problem = asks_problem(tuple(record.whom))
    if problem is None and template is not None:
        problem = (
            "a prompt rendered from its template asks nobody: bind it to a function that asks "
            "(BindTo) or drop Asks"
        )
    if problem is not None:
        issues.add(problem, record.location, record.path)
        return ()
    whom: tuple[Whom, ...] = tuple(record.whom)
    return whom


def _function(binding: Binding | None, rec: BindRecord, issues: Any) -> Binding | None:
    """``binding`` if it names a module-level function: a prompt or resource is served with no
    instance of a class to call a method on."""
    if binding is not None and "." in binding.qualname:
        issues.add(
            f"{binding.module}:{binding.qualname} is a method; bind a prompt or resource to a "
            "module-level function, or give the generated server_content a handler that holds "
            "the instance",
            rec.location,
            rec.path,
        )
        return None
    return binding


def _arguments(
    types: TypeBuilder, rec: ContentRecord, class_name: str, what: str
) -> tuple[Field, ...]:
    issues = types.issues
    args = rec.args
    if args is None:
        return ()
    if isinstance(rec, ResourceRecord) and not rec.is_template:
        issues.add(
            "a Resource has a fixed URI and takes no Args: declare a ResourceTemplate to take "
            "parameters",
            args.location,
            args.path,
        )
        return ()
    if args.type is not None or args.shape is None:
        issues.add(
            f"a {what}'s Args is a block of attributes (`with Args():`), not a type",
            args.location,
            args.path,
        )
        return ()
    shape = types.shape(args.shape, class_name, None)
    fields = []
    for f in shape.fields:
        if not isinstance(f.type, PrimitiveType) or f.type.kind not in _SCALARS:
            issues.add(
                f"argument {f.name!r} of a {what} must be a String, Int, Float or Boolean "
                "(MCP sends them as text)",
                f.location,
                f.path,
            )
            continue
        fields.append(f)
    return tuple(fields)


def _uri(rec: ResourceRecord, arguments: tuple[Field, ...], what: str, issues: Any) -> str | None:
    uri = values.text(rec.uri, rec, "URI", issues)
    if uri is None:
        return None
    if not rec.is_template:
        if "{" in uri:
            issues.add(
                f"resource URI {uri!r} has a template variable: declare a ResourceTemplate",
                rec.location,
                rec.path,
            )
        elif not URI.fullmatch(uri):
            issues.add(
                f"resource URI {uri!r} is not a URI (scheme:rest, no spaces)",
                rec.location,
                rec.path,
            )
        return uri
    variables = VARIABLE.findall(uri)
    literal = VARIABLE.sub("x", uri)
    bad = [v for v in variables if not VARIABLE_NAME.fullmatch(v)]
    if bad or not URI.fullmatch(literal):
        issues.add(
            f"resource template {uri!r} is not a URI template of simple variables "
            "(scheme:…{name}…, each variable a name, no spaces)",
            rec.location,
            rec.path,
        )
        return uri
    if not variables:
        issues.add(
            f"resource template {uri!r} has no variables: declare a Resource",
            rec.location,
            rec.path,
        )
    names = {f.name for f in arguments}
    for v in dict.fromkeys(variables):
        if variables.count(v) > 1:
            issues.add(f"resource template {uri!r} names {{{v}}} twice", rec.location, rec.path)
        if v not in names:
            issues.add(
                f"resource template variable {{{v}}} of {uri!r} has no attribute: declare "
                f'Attribute("{v}", String, "…") in its Args',
                rec.location,
                rec.path,
            )
    for f in arguments:
        if f.name not in variables:
            issues.add(
                f"attribute {f.name!r} is not a variable of resource template {uri!r}: add "
                f"{{{f.name}}} to the template or remove the attribute",
                f.location,
                f.path,
            )
    return uri


def _template(rec: PromptRecord, arguments: tuple[Field, ...], issues: Any) -> str | None:
    if rec.template is None:
        return None
    text = values.text(rec.template, rec, "template", issues)
    if text is None:
        return None
    names = {f.name: f for f in arguments}
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as exc:
        issues.add(
            f"prompt template is not a format string ({exc}); write {{{{ and }}}} for braces",
            rec.location,
            rec.path,
        )
        return None
    for f in fields:
        argument = names.get(f)
        if argument is None:
            issues.add(
                f"prompt template placeholder {{{f}}} is not an argument"
                + (f" (arguments: {', '.join(sorted(names))})" if names else " (it has none)"),
                rec.location,
                rec.path,
            )
        elif not argument.required and argument.default is NO_VALUE:
            issues.add(
                f"prompt template placeholder {{{f}}} names an optional argument without a "
                "default: make it Required or give it default=",
                rec.location,
                rec.path,
            )
    return text
