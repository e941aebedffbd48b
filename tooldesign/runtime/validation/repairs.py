"""Designed repairs at run time: the slips a design agreed to fix, fixed before decoding again.

Tried only when strict decoding refused a call and the tool declares repairs
(:class:`~tooldesign.contract.repairs.FieldRepair`): a call that decodes costs nothing more.
Each repair changes a value only when it has exactly the slip's shape (a string of digits for
a number, ``"true"`` for a boolean, …), which strict decoding would refuse anyway. If the
repaired call still does not decode, the model is answered about the call it sent.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import math
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooldesign.contract.repairs import ITEMS, VALUES, FieldRepair, RepairKind
from tooldesign.jsonschema.text import join_path, shown
from tooldesign.runtime.dict_reader import DictReader
from tooldesign.runtime.errors import ToolValidationError
from tooldesign.runtime.spec.limits import DEFAULT_LIMITS, Limits
from tooldesign.runtime.validation.json_input import parse_json, parse_object
from tooldesign.runtime.validation.sizes import check_text, check_value, is_large

if TYPE_CHECKING:
    from tooldesign.runtime.spec.specs import ToolSpec
    from tooldesign.runtime.validation.codecs import Decoded, PayloadCodec

_INTEGER = re.compile(r"\s*[+-]?\d{1,18}\s*", re.ASCII)
_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*", re.ASCII)
_MAX_JSON_TEXT = 100_000
_SHOWN = 40


@dataclass(frozen=True, slots=True)
class AppliedRepair:
    """One repair made to a call: where (``devices[0].status``), which, and what was assumed
    (``"20" as 20``)."""

    field: str
    kind: str
    assumed: str

    def describe(self) -> str:
        return f"{self.field or 'arguments'} {self.assumed}"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "kind": self.kind, "assumed": self.assumed}

    @classmethod
    def from_dict(cls, data: object) -> AppliedRepair:
        read = DictReader(data, "a repair")
        return cls(read.text("field"), read.text("kind"), read.text("assumed", ""))


def repairs_note(repairs: Sequence[AppliedRepair]) -> str:
    """The line ``for_model()`` adds after a repaired call: what was assumed."""
    return "Assumed: " + "; ".join(r.describe() for r in repairs) + "."


def decode_repaired(
    codec: PayloadCodec[Any],
    payload: Any,
    spec: ToolSpec[Any, Any],
    injected: Mapping[str, Any] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Decoded[Any], tuple[AppliedRepair, ...]] | None:
    """``payload`` (which ``codec`` refused) decoded after the repairs ``spec`` declares, and
    the repairs made; ``None`` when nothing could be repaired or the call is still invalid."""
    try:
        # Arguments over a limit stay refused: repairing them would read them whole.
        if isinstance(payload, str | bytes | bytearray):
            check_text(payload, limits, spec.name)
        else:
            check_value(payload, limits, spec.name)
    except ToolValidationError:
        return None
    repaired = repaired_payload(payload, spec.repairs, spec.name)
    if repaired is None:
        return None
    data, applied = repaired
    try:
        # What a repair read out of a string (JSON text) is held to the limits the payload is:
        # its nesting, its arrays and its size.
        check_value(data, limits, spec.name)
        return codec.decode_detailed(data, injected=injected, limits=limits), applied
    except ToolValidationError:
        return None


def decoded_at_once(
    codec: PayloadCodec[Any],
    spec: ToolSpec[Any, Any],
    payload: Any,
    *,
    injected: Mapping[str, Any],
    limits: Limits,
) -> tuple[Decoded[Any], tuple[AppliedRepair, ...]] | None:
    """:func:`decode_call`'s answer for most calls — arguments quick to decode, a design with
    nothing to repair — decoded here, without a coroutine on every call's path; ``None`` when
    :func:`decode_call` must decide. Raises the :class:`ToolValidationError` of what the model
    sent."""
    if spec.repairs or is_large(payload):
        return None
    return codec.decode_detailed(payload, injected=injected, limits=limits, large=False), ()


async def decode_call(
    codec: PayloadCodec[Any],
    spec: ToolSpec[Any, Any],
    payload: Any,
    *,
    injected: Mapping[str, Any],
    limits: Limits,
    executor: Executor | None = None,
) -> tuple[Decoded[Any], tuple[AppliedRepair, ...]]:
    """A call's arguments decoded within ``limits`` (large ones on ``executor``'s threads, so
    the event loop goes on serving calls), repaired if the design allows it, with the repairs
    made. Raises the :class:`ToolValidationError` of what the model sent."""
    large = is_large(payload)
    if not large and not spec.repairs:  # nothing to repair: its error is the answer
        return codec.decode_detailed(payload, injected=injected, limits=limits, large=False), ()
    try:
        if large:
            decode = functools.partial(
                codec.decode_detailed, payload, injected=injected, limits=limits
            )
            return await asyncio.get_running_loop().run_in_executor(executor, decode), ()
        return codec.decode_detailed(payload, injected=injected, limits=limits), ()
    except ToolValidationError:
        # A slip the design agreed to repair is repaired; else the model hears what it sent.
        repaired = decode_repaired(codec, payload, spec, injected, limits) if spec.repairs else None
        if repaired is None:
            raise
        return repaired


def repaired_payload(
    payload: Any, repairs: Sequence[FieldRepair], tool: str
) -> tuple[dict[str, Any], tuple[AppliedRepair, ...]] | None:
    """``payload`` with the declared repairs made, and what they were (``None``: nothing to
    repair, or the payload is not a JSON object)."""
    try:
        data = parse_object(payload, tool)
    except ToolValidationError:
        return None
    # Parsed text is ours to change; a dict the caller passed is not.
    working: dict[str, Any] = (
        dict(data) if isinstance(payload, str | bytes | bytearray) else copy.deepcopy(dict(data))
    )
    applied: list[AppliedRepair] = []
    for repair in repairs:
        _visit(working, repair.path, "", repair, applied)
    return (working, tuple(applied)) if applied else None


def _visit(
    holder: dict[str, Any] | list[Any],
    path: tuple[str, ...],
    shown_at: str,
    repair: FieldRepair,
    applied: list[AppliedRepair],
) -> None:
    """Follow ``path`` from ``holder`` and repair the values it leads to, in place."""
    part, rest = path[0], path[1:]
    slots: list[tuple[Any, str]]
    if part == ITEMS:
        if not isinstance(holder, list):
            return
        slots = [(i, join_path(shown_at, i)) for i in range(len(holder))]
    elif part == VALUES:
        if not isinstance(holder, dict):
            return
        slots = [(key, join_path(shown_at, key)) for key in holder]
    else:
        if not isinstance(holder, dict) or part not in holder:
            return
        slots = [(part, join_path(shown_at, part))]
    for key, where in slots:
        value = holder[key]
        if rest:
            if isinstance(value, dict | list):
                _visit(value, rest, where, repair, applied)
            continue
        for kind in repair.kinds:
            repaired = _repaired(kind, value, repair)
            if repaired is _UNCHANGED:
                continue
            applied.append(AppliedRepair(where, kind, _assumed(kind, value, repaired)))
            value = repaired
        holder[key] = value


_UNCHANGED: Any = object()


def _repaired(kind: str, value: Any, repair: FieldRepair) -> Any:
    if kind == RepairKind.NUMERIC_STRING and isinstance(value, str):
        if _INTEGER.fullmatch(value):
            return int(value)  # a whole number is a number too
        if repair.json_type == "number" and _NUMBER.fullmatch(value):
            number = float(value)
            if math.isfinite(number):
                return number
    elif kind == RepairKind.BOOLEAN_STRING and isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "false"):
            return word == "true"
    elif kind == RepairKind.JSON_STRING and isinstance(value, str) and len(value) <= _MAX_JSON_TEXT:
        try:  # read as arguments are: nesting past what any tool takes is refused, not recursed
            parsed = parse_json(value, "")
        except ToolValidationError:
            return _UNCHANGED
        wanted = dict if repair.json_type == "object" else list
        if isinstance(parsed, wanted):
            return parsed
    elif kind == RepairKind.SINGLE_VALUE and value is not None and not isinstance(value, list):
        return [value]
    elif kind == RepairKind.ENUM_CASE and isinstance(value, str) and repair.enum:
        if value in repair.enum:
            return _UNCHANGED
        matches = [
            v for v in repair.enum if isinstance(v, str) and v.casefold() == value.casefold()
        ]
        if len(matches) == 1:
            return matches[0]
    return _UNCHANGED


def _assumed(kind: str, before: Any, after: Any) -> str:
    if kind == RepairKind.JSON_STRING:
        return (
            f"sent as JSON text, read as {'an object' if isinstance(after, Mapping) else 'a list'}"
        )
    if kind == RepairKind.SINGLE_VALUE:
        return f"{shown(before, _SHOWN)} read as the list {shown(after, _SHOWN)}"
    return f"{shown(before, _SHOWN)} read as {shown(after, _SHOWN)}"


__all__ = ["AppliedRepair", "decode_call", "decode_repaired", "repaired_payload", "repairs_note"]
