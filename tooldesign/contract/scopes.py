"""The scopes a tool needs, as a design states them (``Scopes(...)``) and as the catalog, the
generated spec and the runtime carry them.

A scope is an OAuth 2.0 scope token (RFC 6749, section 3.3): one or more printable ASCII
characters other than a space, ``"`` and ``\\``, as in ``"devices:write"``. A tool needs every
scope of its toolset and every scope of its own (all of them: a caller's token must hold each).
A catalog entry lists them under ``scopes``, sorted, and leaves the key out when there are none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

SCOPES_KEY = "scopes"

_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
"""RFC 6749's ``scope-token``: ``1*( %x21 / %x23-5B / %x5D-7E )``."""

MAX_SCOPE_LENGTH = 256
"""A scope longer than this is a mistake (authorization servers cap theirs well below it)."""


def scope_problem(scope: object) -> str | None:
    """What is wrong with ``scope`` as a scope token, or ``None`` when it is one."""
    if not isinstance(scope, str):
        return f"a scope is a string, not {type(scope).__name__} {scope!r}"
    if not scope:
        return "a scope cannot be empty"
    if len(scope) > MAX_SCOPE_LENGTH:
        return f"scope {scope[:40]!r}… is longer than {MAX_SCOPE_LENGTH} characters"
    if not _SCOPE_TOKEN.fullmatch(scope):
        return (
            f"scope {scope!r} is not an OAuth scope token (printable ASCII without spaces, "
            "'\"' or '\\\\', e.g. 'devices:write')"
        )
    return None


def needed_scopes(*groups: Iterable[str]) -> tuple[str, ...]:
    """The scopes of ``groups`` (a toolset's, then a tool's) as one sorted tuple without
    repeats: the order a catalog and a generated spec write them in."""
    return tuple(sorted({scope for group in groups for scope in group}))


def missing_scopes(needed: tuple[str, ...], held: frozenset[str]) -> tuple[str, ...]:
    """The scopes of ``needed`` that ``held`` lacks, in ``needed``'s order."""
    return tuple(scope for scope in needed if scope not in held)


def scopes_entry(scopes: tuple[str, ...]) -> dict[str, Any]:
    """A catalog entry's ``scopes`` key (nothing for a tool anyone may call)."""
    return {SCOPES_KEY: list(scopes)} if scopes else {}


def scopes_from_entry(entry: Mapping[str, Any], where: str, problems: list[str]) -> tuple[str, ...]:
    """The scopes a catalog entry's ``scopes`` key lists, checked (a problem is appended)."""
    value = entry.get(SCOPES_KEY, [])
    if not isinstance(value, list):
        problems.append(f"{where}: 'scopes' must be a list of scope strings")
        return ()
    for scope in value:
        if (problem := scope_problem(scope)) is not None:
            problems.append(f"{where}: 'scopes': {problem}")
            return ()
    return needed_scopes(value)
