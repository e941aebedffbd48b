"""String formats: the one table of what each ``format=`` a design may give means, everywhere.

Each row says what a stage needs to know of a format: the RFC whose grammar decides what is one
(JSON Schema 2020-12 §7.3 cites each; the grammar itself is in
:mod:`tooldesign.contract.format_grammars`), the JSON type it applies to, the Python type
generated models hold its values as (and the runtime type that reads them with that grammar,
before pydantic's own type, which reads more, or other, than the RFC), the names code-first
tools annotate it with, the
pydantic errors that report a bad value, two valid values (for messages, docs and the diff's
witnesses), and which provider forms take it as it is (the others restate it in the
description). Design validation, the schema and model generators, binding, the runtime's
issue messages, the importers, the provider exports and ``tooldesign diff`` all read this
table, so adding a format is adding a row here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from tooldesign.contract import format_grammars as grammars


@dataclass(frozen=True, slots=True)
class Format:
    """One format a design may give a string attribute (``format="date-time"``)."""

    name: str
    """The JSON Schema ``format`` value."""
    examples: tuple[str, str]
    """Two valid values: the first is shown in messages; a diff's witnesses use both."""
    python_type: str | None = None
    """``module.Class`` generated models hold a value as; ``None``: a plain ``str``."""
    runtime_type: str | None = None
    """The ``tooldesign.runtime`` type generated models use instead of :attr:`python_type`,
    because pydantic's own reads more than the format allows (``"0"`` as a date-time)."""
    python_names: tuple[str, ...] = ()
    """Annotations code-first tools write for it (``datetime``, ``EmailStr``): importers read
    them as this format."""
    pydantic_errors: tuple[str, ...] = ()
    """Prefixes of the pydantic error types that say a value is not of the format."""
    openai_strict: bool = False
    """OpenAI's strict mode takes the format."""
    anthropic_strict: bool = False
    """Anthropic's strict mode takes the format."""
    gemini: bool = False
    """Gemini's OpenAPI schema documents the format."""
    json_type: str = "string"
    """The JSON type of a value (a design gives formats to strings)."""
    rfc: str = ""
    """The grammar a value must follow, by its RFC and rule (``RFC 3986 §3, URI``)."""
    grammar: Callable[[str], bool] | None = None
    """Whether a string follows that grammar (:mod:`tooldesign.contract.format_grammars`):
    the one test of the format, which the decoder (through :attr:`runtime_type`), the format
    checker of verbatim schemas and design validation all read. Every row that ships has one."""

    def valid(self, text: str) -> bool:
        """Whether ``text`` is of this format (any string, for a row without a grammar)."""
        return self.grammar is None or self.grammar(text)

    @property
    def rfc_name(self) -> str:
        """The RFC alone, for messages (``RFC 3986``)."""
        return " ".join(self.rfc.split()[:2]).rstrip(",")


FORMATS: tuple[Format, ...] = (
    Format(
        "date-time",
        ("2026-01-31T09:30:00Z", "2026-02-01T10:00:00Z"),
        rfc="RFC 3339 §5.6, date-time",
        grammar=grammars.date_time,
        python_type="datetime.datetime",
        runtime_type="Rfc3339DateTime",
        python_names=("datetime",),
        pydantic_errors=("datetime_", "timezone_"),
        openai_strict=True,
        anthropic_strict=True,
        gemini=True,
    ),
    Format(
        "date",
        ("2026-01-31", "2026-02-01"),
        rfc="RFC 3339 §5.6, full-date",
        grammar=grammars.date,
        python_type="datetime.date",
        runtime_type="Rfc3339Date",
        python_names=("date",),
        pydantic_errors=("date_",),
        openai_strict=True,
        anthropic_strict=True,
        gemini=True,
    ),
    Format(
        "time",
        ("09:30:00Z", "10:00:00Z"),
        rfc="RFC 3339 §5.6, full-time",
        grammar=grammars.time,
        python_type="datetime.time",
        runtime_type="Rfc3339Time",
        python_names=("time",),
        pydantic_errors=("time_", "timezone_"),
        openai_strict=True,
        anthropic_strict=True,
    ),
    Format(
        "duration",
        ("PT1H", "PT2H"),
        rfc="RFC 3339 Appendix A, duration",
        grammar=grammars.duration,
        runtime_type="Rfc3339Duration",
        python_type="datetime.timedelta",
        python_names=("timedelta",),
        pydantic_errors=("timedelta_",),
        openai_strict=True,
        anthropic_strict=True,
    ),
    Format(
        "email",
        ("user@example.com", "other@example.com"),
        rfc="RFC 5321 §4.1.2, Mailbox",
        grammar=grammars.email,
        runtime_type="Rfc5321Email",
        python_names=("EmailStr",),
        pydantic_errors=("email",),
        openai_strict=True,
        anthropic_strict=True,
        gemini=True,
    ),
    Format(
        "uri",
        ("https://example.com/", "https://example.org/"),
        rfc="RFC 3986 §3, URI",
        grammar=grammars.uri,
        runtime_type="Rfc3986Uri",
        python_names=("AnyUrl", "HttpUrl", "AnyHttpUrl"),
        anthropic_strict=True,
    ),
    Format(
        "uuid",
        ("123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174001"),
        rfc="RFC 4122 §3, UUID",
        grammar=grammars.uuid,
        runtime_type="Rfc4122Uuid",
        python_type="uuid.UUID",
        python_names=("UUID",),
        pydantic_errors=("uuid_",),
        openai_strict=True,
        anthropic_strict=True,
    ),
    Format(
        "ipv4",
        ("192.0.2.1", "192.0.2.2"),
        rfc="RFC 2673 §3.2, dotted-quad",
        grammar=grammars.ipv4,
        runtime_type="Rfc2673Ipv4Address",
        python_type="ipaddress.IPv4Address",
        python_names=("IPv4Address",),
        pydantic_errors=("ip_",),
        openai_strict=True,
        anthropic_strict=True,
    ),
    Format(
        "ipv6",
        ("2001:db8::1", "2001:db8::2"),
        rfc="RFC 4291 §2.2, IPv6 address",
        grammar=grammars.ipv6,
        runtime_type="Rfc4291Ipv6Address",
        python_type="ipaddress.IPv6Address",
        python_names=("IPv6Address",),
        pydantic_errors=("ip_",),
        openai_strict=True,
        anthropic_strict=True,
    ),
    Format(
        "hostname",
        ("example.com", "example.org"),
        rfc="RFC 1123 §2.1, host name",
        grammar=grammars.hostname,
        runtime_type="Rfc1123Hostname",
        openai_strict=True,
        anthropic_strict=True,
    ),
)
"""Every format a design may use."""

FormatName = Literal[
    "date-time", "date", "time", "duration", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"
]
"""The table's format names, for type checkers and editors (``Attribute(format="datetime")`` is
flagged before ``gen`` runs): a new row's name goes here too (a test keeps the two equal)."""

BY_NAME: Mapping[str, Format] = {f.name: f for f in FORMATS}

FORMAT_NAMES: frozenset[str] = frozenset(BY_NAME)

NON_STRING_FORMATS: frozenset[str] = frozenset(f.name for f in FORMATS if f.python_type)
"""Formats whose values generated models hold as another Python type than ``str`` (a datetime,
a ``UUID``, …): such a type takes no string constraints."""

RUNTIME_TYPES: Mapping[str, str] = {
    f.name: f"tooldesign.runtime.{f.runtime_type}" for f in FORMATS if f.runtime_type
}
"""The runtime types generated models hold these formats as, by their import path."""

PYDANTIC_ERROR_PREFIXES: tuple[str, ...] = tuple(
    dict.fromkeys(prefix for f in FORMATS for prefix in f.pydantic_errors)
)
"""The pydantic error types (by prefix) that say a string is not of its format."""
