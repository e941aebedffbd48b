"""The types generated models hold string formats as: each reads a JSON string with its format's
grammar (the RFC the format table cites), then as its Python type.

Pydantic's own types read more than a tool's schema promises, or other: ``"0"`` as a date-time
(Unix time), ``P1DT`` as a duration, ``fe80::1%eth0`` as an IPv6 address; its ``AnyUrl`` refuses
``http:///path``, which RFC 3986 allows, and accepts ``https://exämple.com/``, which it does
not; its ``EmailStr`` refuses ``user@localhost``. A model shown ``"format": "uri"`` must send
what JSON Schema means by it, and the decoder must take all of that: these types hold values to
:meth:`Format.valid <tooldesign.contract.formats.Format.valid>`, the one grammar per format that
the format checker of verbatim schemas and design validation read too. Python values (a
``datetime`` a service returns) pass untouched; only strings are checked (and parsed).

Generated ``types.py`` modules use them wherever the schema gives a format (the
``runtime_type`` of each row of :mod:`tooldesign.contract.formats`); for type checkers they are
plain ``datetime``, ``date``, ``time``, ``timedelta``, ``UUID``, ``IPv4Address``,
``IPv6Address`` and ``str``. :func:`model_types` gives the type generated models hold each
format as, read from that table.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import uuid
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

from pydantic import AwareDatetime, BeforeValidator, Strict, TypeAdapter
from pydantic_core import PydanticCustomError
from tooldesign.contract.format_grammars import DATE, DATE_TIME
from tooldesign.contract.formats import BY_NAME, FORMATS

EXAMPLES = {f.name: f.examples[0] for f in FORMATS}
"""A valid value of each format, for messages."""

FORMAT_ERROR = "rfc_format"
"""The pydantic error type of a string that is not of its format (its context names it)."""

_SHAPES = {"date-time": DATE_TIME, "date": DATE}


def _reader(fmt: str, parse: Callable[[str], Any] | None) -> Any:
    """A before-validator: a string of the format becomes the Python value (``parse``; ``None``
    keeps the string); other input passes, for the type after it to judge."""
    row = BY_NAME[fmt]
    valid = row.valid

    def read(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if not valid(value):
            shape = _SHAPES.get(fmt)
            if shape is not None and parse is not None and shape.fullmatch(value) is not None:
                try:  # the right shape, an impossible value (February 30): say why
                    parse(value)
                except ValueError as exc:
                    raise PydanticCustomError(
                        FORMAT_ERROR,
                        "is not a valid {format}: {reason}",
                        {"format": fmt, "reason": str(exc)},
                    ) from None
            raise PydanticCustomError(
                FORMAT_ERROR,
                "must be an {rfc} {format}, such as {example}",
                {"rfc": row.rfc_name, "format": fmt, "example": row.examples[0]},
            )
        # Parsed here where strict pydantic takes only Python values once a validator has run
        # (a date, a UUID); an IP address it reads from the string itself.
        return value if parse is None else parse(value)

    return read


def _timedelta(text: str) -> dt.timedelta:
    # As pydantic reads ISO 8601: a year is 365 days, a month 30 (the grammar checked the rest).
    return _DURATION.validate_python(text)


_DURATION: TypeAdapter[dt.timedelta] = TypeAdapter(dt.timedelta)


Rfc3339DateTime = Annotated[
    AwareDatetime,
    BeforeValidator(_reader("date-time", lambda text: dt.datetime.fromisoformat(text.upper()))),
]
"""A date-time with a timezone offset: ``2026-01-31T09:30:00Z``, ``2026-01-31T10:30:00.5+01:00``."""

Rfc3339Date = Annotated[dt.date, BeforeValidator(_reader("date", dt.date.fromisoformat))]
"""A full date: ``2026-01-31``."""

Rfc3339Time = Annotated[
    dt.time, BeforeValidator(_reader("time", lambda text: dt.time.fromisoformat(text.upper())))
]
"""A full time with a timezone offset: ``09:30:00Z``, ``10:30:00+01:00``."""

Rfc3339Duration = Annotated[dt.timedelta, BeforeValidator(_reader("duration", _timedelta))]
"""A duration as RFC 3339 Appendix A writes one: ``PT1H``, ``P1DT12H``, ``P2W``."""

Rfc5321Email = Annotated[str, Strict(), BeforeValidator(_reader("email", None))]
"""An email address (RFC 5321's Mailbox): ``user@example.com``, ``"a b"@localhost``."""

Rfc3986Uri = Annotated[str, Strict(), BeforeValidator(_reader("uri", None))]
"""An absolute URI, held as it was sent: ``https://example.com/``, ``urn:isbn:0451450523``."""

Rfc4122Uuid = Annotated[uuid.UUID, BeforeValidator(_reader("uuid", uuid.UUID))]
"""A UUID in its hyphenated form: ``123e4567-e89b-12d3-a456-426614174000``."""

Rfc2673Ipv4Address = Annotated[ipaddress.IPv4Address, BeforeValidator(_reader("ipv4", None))]
"""An IPv4 address in dotted-quad form, without leading zeros: ``192.0.2.1``."""

Rfc4291Ipv6Address = Annotated[ipaddress.IPv6Address, BeforeValidator(_reader("ipv6", None))]
"""An IPv6 address in one of RFC 4291's text forms, without a zone: ``2001:db8::1``."""

Rfc1123Hostname = Annotated[str, Strict(), BeforeValidator(_reader("hostname", None))]
"""A host name: letters, digits and hyphens in labels of at most 63, 253 in all."""


@cache
def format_checker() -> Any:
    """A ``jsonschema`` format checker that checks each format of the table by its grammar.

    For the formats in schemas kept verbatim (``Any(schema={"format": "date-time"})``): checked
    as an attribute of that format is, with no optional package needed (jsonschema's own check
    of ``date-time`` needs one, and without it accepts ``"not a date"``). Other formats keep
    jsonschema's own checks, where it has one without such a package (``regex``…).
    """
    from jsonschema import FormatChecker

    checker = FormatChecker()
    for fmt in FORMATS:
        if fmt.grammar is not None:
            checker.checks(fmt.name)(_string_check(fmt.grammar))
    return checker


def _string_check(valid: Callable[[str], bool]) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        return not isinstance(value, str) or valid(value)  # a format says nothing of others

    return check


@cache
def model_types() -> dict[str, Any]:
    """The type generated models hold a string of each format as.

    Design values (defaults, examples) are checked, and defaults written, as these types read
    them.
    """
    return {fmt.name: globals()[fmt.runtime_type] for fmt in FORMATS if fmt.runtime_type}


__all__ = [
    "EXAMPLES",
    "FORMAT_ERROR",
    "Rfc1123Hostname",
    "Rfc2673Ipv4Address",
    "Rfc3339Date",
    "Rfc3339DateTime",
    "Rfc3339Duration",
    "Rfc3339Time",
    "Rfc3986Uri",
    "Rfc4122Uuid",
    "Rfc4291Ipv6Address",
    "Rfc5321Email",
    "format_checker",
    "model_types",
]
