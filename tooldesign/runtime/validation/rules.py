"""Rules across a tool's arguments, checked by its generated payload model (a validator that
calls :func:`check_rules`), so every way a payload is read keeps them."""

from __future__ import annotations

from typing import TypeVar

import pydantic
from pydantic_core import PydanticCustomError
from tooldesign.contract.rules import RULE_ERROR, ArgumentRule

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


def check_rules(model: ModelT, rules: tuple[ArgumentRule, ...]) -> ModelT:
    """``model`` when it keeps every rule; else a pydantic error of type ``argument_rule``
    whose message is the first broken rule in words.

    An argument counts as given when it was set and is not null: the decoder reads a null
    for an optional argument as "not given".
    """
    cls = type(model)
    aliased = _ALIASES.get(cls)
    if aliased is None:
        aliased = _ALIASES[cls] = _aliases(cls)
    values = model.__dict__
    given = {
        aliased.get(name, name): values[name]
        for name in model.__pydantic_fields_set__
        if values[name] is not None
    }
    for rule in rules:
        if rule.broken(given, given) is not None:
            # The message is the rule's words, and only them (the issue reads it as such).
            raise PydanticCustomError(RULE_ERROR, "{rule}", {"rule": rule.words()})
    return model


_ALIASES: dict[type[pydantic.BaseModel], dict[str, str]] = {}
"""Per generated model: Python attribute name → wire name, where the two differ."""


def _aliases(cls: type[pydantic.BaseModel]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, info in cls.model_fields.items():
        if info.alias is not None and info.alias != name:
            out[name] = info.alias
    return out
