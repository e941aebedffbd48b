"""Design values: strings where text is due, JSON data, constraints and examples, each checked."""

from __future__ import annotations

import dataclasses
import gc
import math
from collections import deque
from functools import partial
from itertools import chain, compress
from typing import Any

from tooldesign.contract.constraints import constraint_options
from tooldesign.contract.location import Location
from tooldesign.dsl.records import AttributeRecord, DesignRecord, Record
from tooldesign.ir.errors import Issues, short_repr
from tooldesign.ir.model import NO_CONSTRAINTS, NO_VALUE, Constraints, ExampleValue

MAX_NESTING = 32
"""How deep types (``Object``, ``ArrayOf``, ``MapOf`` and ``OneOf`` in one another) and values
(lists and objects) may nest in a design. Far beyond what a model fills in (OpenAI's strict mode
stops at 10), and well within what the model generator, pydantic and Python's recursion limit
handle."""

_NUMBER_OPTIONS = constraint_options(takes="number")
_COUNT_OPTIONS = constraint_options(takes="count")
_TEXT_OPTIONS = constraint_options(takes="text")


def is_text(value: object) -> bool:
    return isinstance(value, str)


def text(value: Any, rec: Record, what: str, issues: Issues) -> str | None:
    """``value`` if it is a string (or ``None``); otherwise reported, and ``None``."""
    if value is None or is_text(value):
        return value  # type: ignore[no-any-return]
    issues.add(f"{what} must be a string, got {value!r}", rec.location, rec.path)
    return None


def json_data(value: Any) -> tuple[Any, str | None]:
    """``value`` as JSON data (tuples become lists), or what keeps it from being JSON.

    Design values end up both in JSON (schemas, catalogs) and in Python source (specs), so
    they must mean the same in both: strings, finite numbers, booleans, ``None``, lists and
    objects with string keys.
    """
    problems: list[str] = []

    def convert(item: Any, where: str, depth: int = 0) -> Any:
        if item is None or isinstance(item, str | bool | int):
            return item
        if depth == MAX_NESTING and isinstance(item, list | tuple | dict):
            problems.append(
                f"{_at(where)}lists and objects nest more than {MAX_NESTING} levels deep"
            )
            return None
        if isinstance(item, float):
            if not math.isfinite(item):
                problems.append(f"{_at(where)}{item!r} is not a finite number")
            return item
        if isinstance(item, list | tuple):
            return [convert(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(item)]
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            for key, x in item.items():
                if not isinstance(key, str):
                    problems.append(f"{_at(where)}object keys must be strings, got {key!r}")
                    continue
                out[key] = convert(x, f"{where}[{key!r}]", depth + 1)
            return out
        problems.append(
            f"{_at(where)}{type(item).__name__} {short_repr(item, 40)} is not a JSON value"
        )
        return item

    data = convert(value, "")
    return data, "; ".join(problems) if problems else None


def _at(where: str) -> str:
    return f"at {where}: " if where else ""


def json_option(options: dict[str, Any], key: str, attr: AttributeRecord, issues: Issues) -> Any:
    """A ``default=`` or ``example=`` as JSON data (``NO_VALUE`` when absent or not JSON)."""
    if key not in options:
        return NO_VALUE
    value, problem = json_data(options[key])
    if problem is not None:
        issues.add(f"{key}= must be JSON data: {problem}", attr.location, attr.path)
        return NO_VALUE
    return value


def examples(
    values: list[tuple[Any, Location]], path: str, issues: Issues
) -> tuple[ExampleValue, ...]:
    out: list[ExampleValue] = []
    for value, where in values:
        data, problem = json_data(value)
        if problem is not None:
            issues.add(f"Example must be JSON data: {problem}", where, path)
        else:
            out.append(ExampleValue(data, where))
    return tuple(out)


def constraints(options: dict[str, Any], attr: AttributeRecord, issues: Issues) -> Constraints:
    values: dict[str, Any] = {}
    for key in _NUMBER_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            issues.add(f"{key}= must be a number, got {value!r}", attr.location, attr.path)
            continue
        if not math.isfinite(value):
            issues.add(f"{key}= must be a finite number, got {value!r}", attr.location, attr.path)
            continue
        values[key] = value
    for key in _COUNT_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            issues.add(
                f"{key}= must be a non-negative integer, got {value!r}",
                attr.location,
                attr.path,
            )
            continue
        values[key] = value
    for key in _TEXT_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if not is_text(value):
            issues.add(f"{key}= must be a string, got {value!r}", attr.location, attr.path)
            continue
        values[key] = value
    enum = options.get("enum")
    if enum is not None:
        if isinstance(enum, str | bytes) or not isinstance(enum, list | tuple | set | frozenset):
            issues.add(f"enum= must be a list of values, got {enum!r}", attr.location, attr.path)
        elif not enum:
            issues.add("enum= must list at least one value", attr.location, attr.path)
        else:
            listed = sorted(enum, key=repr) if isinstance(enum, set | frozenset) else enum
            checked = [json_data(value) for value in listed]
            bad = [problem for _, problem in checked if problem is not None]
            if bad:
                issues.add(
                    f"enum= values must be JSON data: {'; '.join(bad)}",
                    attr.location,
                    attr.path,
                )
            else:
                values["enum"] = tuple(value for value, _ in checked)
    return Constraints(**values) if values else NO_CONSTRAINTS


def report_unencodable_text(design: DesignRecord, issues: Issues) -> None:
    """Report every string of the design that UTF-8 cannot encode (one holding a lone surrogate,
    such as ``"\\ud800"``): generated files, schemas and catalogs are UTF-8, and each such string
    would make writing them fail.

    Every record is walked, with what the DSL recorded in it (names, descriptions, options,
    examples, type expressions, schemas), so no place where text can hide is missed; each
    string is reported at the DSL call that recorded it. Every design pays for the walk, so
    strings are checked where they are found and only ASCII's absence costs an encoding.
    """
    roots = [*design.types, *design.services]
    if not _may_hold_unencodable_text(roots):
        return
    seen: set[int] = set()
    # Breadth first, without recursion: types may be nested far too deep (then reported).
    pending: deque[tuple[Any, Location | None, str, str]] = deque(
        (record, None, "", "") for record in roots
    )
    while pending:
        value, where, path, what = pending.popleft()
        if id(value) in seen:
            continue
        seen.add(id(value))
        children: list[tuple[Any, str]]
        if isinstance(value, dict):
            children = [(key, what) for key in value]
            children += [(v, k if what == "options" else what) for k, v in value.items()]
        elif isinstance(value, list | tuple | set | frozenset):
            if isinstance(value, tuple) and value and isinstance(value[-1], Location):
                where = value[-1]  # (a value, where it was given): Example, Tags, Required…
            children = [(item, what) for item in value]
        else:
            names = _text_fields(type(value))
            if isinstance(value, Record):
                where, path = value.location, value.path
                children = [(getattr(value, name), name) for name in names]
            else:
                children = [(getattr(value, name), what) for name in names]
        for item, said in children:
            if isinstance(item, str):
                if not item.isascii():
                    _report_surrogate(item, where, path, said, issues)
            elif item is not None and not isinstance(item, _NOT_WALKED):
                pending.append((item, where, path, said))


def _may_hold_unencodable_text(roots: list[Any]) -> bool:
    """Whether any string reachable the way the walk goes may be unencodable: a screen, so that
    a design with none (nearly all) never pays for the walk that says where.

    Each level of the walk's values is taken whole: its references come from one call to the
    collector's list of them, are sorted by kind with no Python loop per value, and its strings
    are joined and encoded at once (joining cannot hide a lone surrogate: Python strings never
    pair surrogates). It reaches every string the walk reaches, and a few more (a record's
    path), so it may send a design to the walk in vain, never past it.
    """
    roles: dict[type, str] = {}
    seen: set[int] = set()
    level = roots
    while level:
        found = gc.get_referents(*level)
        for kind in set(map(type, found)) - roles.keys():
            roles[kind] = _screen_role(kind)
        role = list(map(roles.__getitem__, map(type, found)))
        walked = list(compress(found, map("walked".__eq__, role)))
        fresh = dict(zip(map(id, walked), walked, strict=True))
        new = fresh.keys() - seen
        seen |= new
        level = list(map(fresh.__getitem__, new))
        # The collector's list leaves out the keys of a dict keyed by strings alone.
        keys = list(chain.from_iterable(compress(level, map(_is_dict, level))))
        texts = [*compress(found, map("text".__eq__, role)), *compress(keys, map(_is_str, keys))]
        joined = "".join(texts)
        if not joined.isascii() and _lone_surrogate(joined) is not None:
            return True
    return False


def _screen_role(kind: type) -> str:
    if issubclass(kind, str):
        return "text"
    if issubclass(kind, _CONTAINERS) or _text_fields(kind):
        return "walked"
    return "skipped"


_CONTAINERS = (dict, list, tuple, set, frozenset)
# isinstance(value, dict) and isinstance(value, str), callable from C with no Python frame.
_is_dict = partial(type.__instancecheck__, dict)
_is_str = partial(type.__instancecheck__, str)


_NOT_WALKED = (bool, int, float, Location)
"""Values that hold no text (a location names a file the user's own system gave)."""


def _report_surrogate(
    text: str, where: Location | None, path: str, what: str, issues: Issues
) -> None:
    bad = _lone_surrogate(text)
    if bad is not None:
        issues.add(
            f"{_DSL_WORDS.get(what, what)} holds {bad!r}, a lone surrogate that UTF-8 "
            "cannot encode; text in a design must be valid Unicode",
            where,
            path,
        )


_DSL_WORDS = {
    "examples": "Example",
    "tags": "Tags",
    "required": "Required",
    "injected": "Inject",
    "type": "the type",
    "target": "BindTo",
    "mcp_server": "server=",
}
"""Record fields as the DSL calls that fill them are named in messages."""


_TEXT_FIELDS: dict[type, tuple[str, ...]] = {}


def _text_fields(kind: type) -> tuple[str, ...]:
    """The fields of a kind of thing the DSL records (a record or a type expression) that may
    hold text; none for anything else. Read once per kind."""
    names = _TEXT_FIELDS.get(kind)
    if names is None:
        recorded = dataclasses.is_dataclass(kind) and kind.__module__.startswith("tooldesign.dsl.")
        skipped = ("location", "path", "entered")
        names = _TEXT_FIELDS[kind] = (
            tuple(f.name for f in dataclasses.fields(kind) if f.name not in skipped)
            if recorded
            else ()
        )
    return names


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None
