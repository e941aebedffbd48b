"""What the DSL records for the prompts and resources a toolset serves beside its tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooldesign.contract.location import Location
from tooldesign.dsl.records import AsksRecord, BindRecord, MessageRecord, Record


@dataclass(eq=False)
class ContentRecord(Record):
    """A ``Prompt``, ``Resource`` or ``ResourceTemplate`` block: what it takes like a tool does
    (``Args``, ``BindTo``), and ``Completes``."""

    name: Any = None
    description: Any = None
    title: Any = None
    args: MessageRecord | None = None
    bind: BindRecord | None = None
    completes: BindRecord | None = None
    """``Completes(...)``: arguments without values of their own complete from a handler."""
    duplicates: list[tuple[str, Location]] = field(default_factory=list)


@dataclass(eq=False)
class PromptRecord(ContentRecord):
    """``Prompt(name, description, template=...)``."""

    template: Any = None
    asks: AsksRecord | None = None
    """``Asks(...)``: whom it asks while it renders (as a tool does during a call)."""


@dataclass(eq=False)
class ResourceRecord(ContentRecord):
    """``Resource(uri, name, ...)`` (no arguments) or ``ResourceTemplate(uri_template, name,
    ...)`` (its variables are its ``Args``)."""

    uri: Any = None
    mime_type: Any = None
    is_template: bool = False
