"""Read-only JSON values: what specs hold, so that what a model is shown cannot drift from what
the decoder checks.

:func:`freeze` turns JSON data into :class:`FrozenDict` and :class:`FrozenList`, all the way
down. They are a ``dict`` and a ``list`` to every reader (``isinstance``, ``==``,
``json.dumps``, pydantic, jsonschema) and refuse every change with a ``TypeError``. A copy is
yours to change: ``copy.deepcopy`` and :func:`copy_json` give plain, mutable JSON data (and
``.copy()``, ``copy.copy``, ``dict(...)`` a plain shallow copy); ``pickle`` keeps them frozen.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, Self

__all__ = ["FrozenDict", "FrozenList", "copy_json", "freeze"]


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"{type(self).__name__} is read-only: a spec cannot change once made "
        "(copy.deepcopy() gives a copy you can change)"
    )


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot change: a ``dict`` for reading, its values frozen too."""

    __slots__ = ("_marshalled",)
    _marshalled: bytes | None

    def __new__(cls, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /) -> Self:
        self = super().__new__(cls)
        pairs = items.items() if isinstance(items, dict | Mapping) else items
        # dict's own update: this class's refuses.
        dict.update(self, {key: freeze(value) for key, value in pairs})
        self._marshalled = None
        return self

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Filled by ``__new__``: calling ``__init__`` again changes nothing."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        thawed: dict[str, Any] = copy_json(self)
        return thawed

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return FrozenDict, (dict(self),)


class FrozenList(list[Any]):
    """A JSON array that cannot change: a ``list`` for reading, its items frozen too."""

    __slots__ = ("_marshalled",)
    _marshalled: bytes | None

    def __new__(cls, items: Iterable[Any] = (), /) -> Self:
        self = super().__new__(cls)
        list.extend(self, [freeze(item) for item in items])  # list's own: this class's refuses
        self._marshalled = None
        return self

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Filled by ``__new__``: calling ``__init__`` again changes nothing."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        thawed: list[Any] = copy_json(self)
        return thawed

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)


def freeze(value: Any) -> Any:
    """``value`` with every mapping made a :class:`FrozenDict` and every list a :class:`FrozenList`.

    Tuples stay tuples (of frozen items), scalars stay as they are, and what is frozen
    already is shared, not copied.
    """
    kind = type(value)
    if kind in _SCALARS or kind is FrozenDict or kind is FrozenList:
        return value
    if kind is dict or isinstance(value, Mapping):
        return FrozenDict(value)
    if isinstance(value, list):
        return FrozenList(value)
    if kind is tuple:
        return tuple(freeze(item) for item in value)
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A plain, mutable deep copy of JSON data, frozen or not: dicts, lists and scalars.

    ``marshal`` copies plain JSON data in C, several times faster than ``copy.deepcopy`` or a
    Python walk. A frozen value keeps the ``marshal`` image of itself from its first copy on,
    so copying it again (each export of a spec's schema does) is one C call.
    """
    if type(value) is FrozenDict or type(value) is FrozenList:
        image = value._marshalled
        if image is None:
            plain = _plain(value)
            try:
                image = value._marshalled = marshal.dumps(plain)
            except ValueError:  # not only JSON data (a Python object in an example)
                return plain
        return marshal.loads(image)
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:  # frozen parts inside, or values marshal cannot take
        return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value
