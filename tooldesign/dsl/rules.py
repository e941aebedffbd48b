"""Rules across a tool's arguments, inside its ``Args`` block.

    with Args():
        Attribute("contact_method", String, "How to reach them", enum=["phone", "email"])
        Attribute("phone", String, "Phone number")
        Attribute("email", String, "Email address")
        AtLeastOne("phone", "email")
        When("contact_method", equals="phone", requires=["phone"], otherwise=["email"])

Each rule is published in the tool's input schema (``anyOf``, ``oneOf``, ``if``/``then``/
``else``), checked by the generated model and the decoder, and stated in words to providers
that cannot take those keywords.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldesign.dsl.calls import _shape_for
from tooldesign.dsl.recorder import caller_location
from tooldesign.dsl.records import RuleRecord


def AtLeastOne(*names: str) -> None:
    """At least one of these optional arguments must be given ("a phone or an email")."""
    _record(RuleRecord("at_least_one", names, caller_location()), "AtLeastOne")


def ExactlyOne(*names: str) -> None:
    """Exactly one of these optional arguments must be given ("an id or a name, not both")."""
    _record(RuleRecord("exactly_one", names, caller_location()), "ExactlyOne")


def When(
    field: str, *, equals: Any, requires: Sequence[str], otherwise: Sequence[str] = ()
) -> None:
    """When argument ``field`` is given and equals ``equals``, the ``requires`` arguments must
    be given too; when it is not (left out, or another value), the ``otherwise`` ones."""
    where = caller_location()
    rule = RuleRecord(
        "when", _names(requires), where, field=field, equals=equals, otherwise=_names(otherwise)
    )
    _record(rule, "When")


def _names(value: Any) -> tuple[Any, ...]:
    # A bare string is one name, not its letters.
    return (value,) if isinstance(value, str) else tuple(value) if value is not None else ()


def _record(rule: RuleRecord, what: str) -> None:
    shape, _ = _shape_for(what, rule.location)
    if shape is not None:
        shape.rules.append(rule)
