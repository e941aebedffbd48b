"""Reading the JSON objects that ``from_dict`` methods rebuild values from.

Those objects come from elsewhere (another process, a queue), so a wrong one must fail with a
message naming the object and the key, never with a ``KeyError`` deep inside a constructor.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, TypeVar

ChoiceT = TypeVar("ChoiceT", bound=StrEnum)

_MISSING: Any = object()


class DictFormatError(ValueError):
    """A JSON object that cannot be read back as the value it claims to be."""


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


class DictReader:
    """The fields of one JSON object, read with errors that say ``<what>: '<key>' must be …``."""

    __slots__ = ("data", "what")

    def __init__(self, data: object, what: str) -> None:
        if not isinstance(data, Mapping):
            raise DictFormatError(f"{what} must be a JSON object, got {_kind(data)}")
        self.data: Mapping[str, Any] = data
        self.what = what

    def _get(self, key: str, default: Any) -> Any:
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise DictFormatError(f"{self.what}: '{key}' is missing")
        return default

    def _wrong(self, key: str, expected: str, value: object) -> DictFormatError:
        return DictFormatError(f"{self.what}: '{key}' must be {expected}, got {_kind(value)}")

    def text(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        return value

    def choice(self, key: str, choices: type[ChoiceT]) -> ChoiceT:
        """A string field that must be one of ``choices``' values."""
        value = self.text(key)
        try:
            return choices(value)
        except ValueError:
            listed = ", ".join(choice.value for choice in choices)
            raise DictFormatError(
                f"{self.what}: '{key}' {value!r} is not one of {listed}"
            ) from None

    def flag(self, key: str, default: bool) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self._wrong(key, "a boolean", value)
        return value

    def integer(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(key, "an integer", value)
        return value

    def number(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(key, "a number", value)
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        """An object field (``{}`` when absent)."""
        value = self._get(key, {})
        if not isinstance(value, Mapping):
            raise self._wrong(key, "an object", value)
        return dict(value)

    def items(self, key: str) -> list[Any]:
        """An array field (``[]`` when absent)."""
        value = self._get(key, [])
        if not isinstance(value, list | tuple):
            raise self._wrong(key, "an array", value)
        return list(value)

    def texts(self, key: str) -> tuple[str, ...]:
        values = self.items(key)
        for value in values:
            if not isinstance(value, str):
                raise self._wrong(key, "an array of strings", values)
        return tuple(values)

    def any(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)
