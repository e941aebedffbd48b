"""Prompts and resources, designed like tools and served beside them over MCP.

    with Toolset("sites", "…"):
        with Prompt("triage_site", "Investigate an unhealthy site",
                    template="Site {site_id} looks unhealthy. …"):
            with Args():
                Attribute("site_id", String, "The site to look into")
                Required("site_id")
            Completes()                      # site_id completes from a handler
        with Resource("netops://sites", "sites", "Every site", mime_type="application/json"):
            BindTo(read_sites)
        with ResourceTemplate("docs://{kind}/{doc_id}", "document", "A document"):
            with Args():                     # the template's variables, each one attribute
                Attribute("kind", String, "Which collection", enum=["runbooks", "articles"])
                Attribute("doc_id", String, "The document's id")

A prompt renders from its ``template`` (``{argument}`` placeholders) or from the function it is
bound to; a resource or template reads from the function it is bound to, or from a handler the
application gives the generated ``server_content``. Evaluation checks names, URIs, template
variables and placeholders against the arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldesign.dsl.content_records import ContentRecord, PromptRecord, ResourceRecord
from tooldesign.dsl.recorder import Block, caller_location, current
from tooldesign.dsl.records import BindRecord, ToolsetRecord


def _quoted(name: object) -> str:
    return f'"{name}"' if isinstance(name, str) and name.isprintable() else repr(name)


def _in_toolset(what: str, record: ContentRecord) -> Block:
    rec = current()
    if isinstance(rec.top, ToolsetRecord):
        rec.top.content.append(record)
    else:
        rec.issue(f"{what} must be called inside a Toolset block", record.location, record.path)
    return Block(record, rec)


def Prompt(
    name: str,
    description: str | None = None,
    *,
    title: str | None = None,
    template: str | None = None,
) -> Block:
    """A prompt of the enclosing toolset: ``with Prompt("triage_site", "…", template="…"):``.

    Its arguments are an ``Args`` block; it renders ``template`` (``{argument}`` placeholders
    filled from the arguments) or, with ``BindTo(render)``, ``render(arguments)``'s text or
    messages.
    """
    rec, where = current(), caller_location()
    record = PromptRecord(
        where,
        rec.child_path(f"prompt {_quoted(name)}"),
        name=name,
        description=description,
        title=title,
        template=template,
    )
    return _in_toolset("Prompt", record)


def Resource(
    uri: str,
    name: str,
    description: str | None = None,
    *,
    title: str | None = None,
    mime_type: str | None = None,
) -> Block:
    """A resource at a fixed ``uri`` of the enclosing toolset, read by the function it is bound
    to (``BindTo(read)``, ``read()`` returns text or bytes) or by a handler given when served."""
    return _resource("Resource", uri, name, description, title, mime_type, False)


def ResourceTemplate(
    uri_template: str,
    name: str,
    description: str | None = None,
    *,
    title: str | None = None,
    mime_type: str | None = None,
) -> Block:
    """Resources under ``uri_template`` (``docs://{kind}/{doc_id}``): each variable is an
    attribute of its ``Args`` block (typed, with enums and bounds), read by
    ``read(parameters)``."""
    return _resource("ResourceTemplate", uri_template, name, description, title, mime_type, True)


def _resource(
    what: str,
    uri: str,
    name: str,
    description: str | None,
    title: str | None,
    mime_type: str | None,
    is_template: bool,
) -> Block:
    rec, where = current(), caller_location()
    kind = "resource template" if is_template else "resource"
    record = ResourceRecord(
        where,
        rec.child_path(f"{kind} {_quoted(name)}"),
        name=name,
        description=description,
        title=title,
        uri=uri,
        mime_type=mime_type,
        is_template=is_template,
    )
    return _in_toolset(what, record)


def Completes(target: Callable[..., Any] | str | None = None) -> None:
    """The arguments of the enclosing prompt or resource template whose type allows no fixed
    values (an ``enum`` completes by itself) complete from ``target(argument, value, context)``
    (a function or ``"module:qualname"``); without ``target``, from a handler given when
    served."""
    rec, where = current(), caller_location()
    top = rec.top
    if not isinstance(top, PromptRecord | ResourceRecord) or (
        isinstance(top, ResourceRecord) and not top.is_template
    ):
        rec.issue(
            "Completes must be called inside a Prompt or ResourceTemplate block",
            where,
            rec.child_path("Completes"),
        )
        return
    if top.completes is not None:
        top.duplicates.append(("Completes", where))
        return
    top.completes = BindRecord(where, rec.child_path("completes"), target=target)
