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
    values = model.__dict__
    aliased = _aliases(type(model))
    wire = {
        aliased.get(name, name): values[name]
        for name in model.model_fields_set
        if values.get(name) is not None
    }
    given = wire.keys()
    for rule in rules:
        about = rule.broken(given, wire)
        if about is not None:
            # The message is the rule's words, and only them (the issue reads it as such).
            raise PydanticCustomError(RULE_ERROR, "{rule}", {"rule": rule.words()})
    return model


def _aliases(cls: type[pydantic.BaseModel]) -> dict[str, str]:
    """Python attribute name → wire name, for the fields whose two differ."""
    out: dict[str, str] = {}
    for name, info in cls.model_fields.items():
        if info.alias is not None and info.alias != name:
            out[name] = info.alias
    return out
