"""Designed repairs: slips of weaker models a design agrees to fix instead of refusing.

Strict decoding refuses ``"20"`` for an integer, which costs a model a round trip. A design can
name, per attribute (``Attribute("limit", Int, repair=["numeric_string"])``) or as a default for
a whole service, toolset or tool (``Repairs("numeric_string")``), which slips it accepts, from
the closed set in :data:`REPAIRS`. The runtime then repairs such a value, runs the call, records
each repair (``telemetry.repairs``) and tells the model in one line what it assumed. Without a
declared repair, decoding stays strict; the schema a model is shown never changes.

:class:`FieldRepair` is what generated specs carry per repairable field: where it is in the
payload, which repairs apply, and what the field is (its JSON type and, for strings, its enum).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal


class RepairKind(StrEnum):
    NUMERIC_STRING = "numeric_string"
    """``"20"`` for an integer, ``"2.5"`` for a number."""
    BOOLEAN_STRING = "boolean_string"
    """``"true"``/``"false"`` (any case) for a boolean."""
    JSON_STRING = "json_string"
    """A JSON object (or list) sent as its JSON text."""
    SINGLE_VALUE = "single_value"
    """One value where a list is expected: taken as a list of one."""
    ENUM_CASE = "enum_case"
    """An enum value in another case (``"Online"`` for ``"online"``)."""


RepairName = Literal["numeric_string", "boolean_string", "json_string", "single_value", "enum_case"]
"""A repair's name, as a design writes it."""


@dataclass(frozen=True, slots=True)
class Repair:
    """One row of the table: a repair, the JSON types it applies to, and what it does."""

    kind: RepairKind
    applies_to: frozenset[str]
    """JSON types of the fields it can repair (``"string"`` only with an enum, for enum_case)."""
    description: str


REPAIRS: tuple[Repair, ...] = (
    Repair(
        RepairKind.NUMERIC_STRING,
        frozenset({"integer", "number"}),
        'a number sent as a string ("20") is read as the number',
    ),
    Repair(
        RepairKind.BOOLEAN_STRING,
        frozenset({"boolean"}),
        '"true" or "false" sent as a string is read as the boolean',
    ),
    Repair(
        RepairKind.JSON_STRING,
        frozenset({"object", "array"}),
        "an object or list sent as its JSON text is read as the object or list",
    ),
    Repair(
        RepairKind.SINGLE_VALUE,
        frozenset({"array"}),
        "a single value where a list is expected is read as a list of one",
    ),
    Repair(
        RepairKind.ENUM_CASE,
        frozenset({"string"}),
        "an allowed value written in another case is read as the allowed value",
    ),
)

REPAIR_NAMES: frozenset[str] = frozenset(str(row.kind) for row in REPAIRS)
_BY_KIND = {row.kind: row for row in REPAIRS}


def repair_row(kind: str) -> Repair | None:
    """The row of the repair called ``kind``, if there is one."""
    try:
        return _BY_KIND[RepairKind(kind)]
    except ValueError:
        return None


def applies(kind: str, json_type: str, enum: tuple[Any, ...] | None = None) -> bool:
    """Whether repair ``kind`` can repair a field of ``json_type`` (with ``enum``, for strings)."""
    row = repair_row(kind)
    if row is None or json_type not in row.applies_to:
        return False
    if row.kind is RepairKind.ENUM_CASE:
        return bool(enum) and all(isinstance(value, str) for value in enum or ())
    return True


ITEMS = "[]"
"""A path segment for the items of a list."""
VALUES = "{}"
"""A path segment for the values of a map."""


@dataclass(frozen=True, slots=True)
class FieldRepair:
    """The repairs of one field of a payload.

    ``path`` leads to it from the payload: field names, :data:`ITEMS` for a list's items,
    :data:`VALUES` for a map's values (``("devices", "[]", "status")``). ``json_type`` is the
    field's JSON type; ``enum`` its allowed values (for ``enum_case``).
    """

    path: tuple[str, ...]
    kinds: tuple[str, ...]
    json_type: str
    enum: tuple[Any, ...] | None = None

    def shown_path(self) -> str:
        """The path as messages show it: ``devices[].status``."""
        out = ""
        for part in self.path:
            if part in (ITEMS, VALUES):
                out += part
            else:
                out += f".{part}" if out else part
        return out


__all__ = [
    "ITEMS",
    "REPAIRS",
    "REPAIR_NAMES",
    "VALUES",
    "FieldRepair",
    "Repair",
    "RepairKind",
    "RepairName",
    "applies",
    "repair_row",
]
