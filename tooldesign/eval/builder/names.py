"""Names a design gives: the rules they follow and the identifiers they become, unique per scope."""

from __future__ import annotations

import re

from tooldesign.contract.location import Location
from tooldesign.contract.naming import python_identifier
from tooldesign.ir.errors import Issues

# Matched whole (``fullmatch``): with ``$``, a name ending in a newline would pass.
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
GROUP_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class UniqueNames:
    """Names of one kind in one scope: unique as written, and still unique once sanitised.

    With ``folders``, the sanitised names name folders, which must also differ in more than
    case: macOS and Windows file systems take ``Svc/`` and ``svc/`` for one folder.
    ``claim`` reports the first problem found and says whether the name may be used.
    """

    def __init__(self, kind: str, issues: Issues, *, folders: bool = False) -> None:
        self.kind = kind
        self.issues = issues
        self.folders = folders
        self.first: dict[str, Location] = {}
        self.sanitised: dict[str, str] = {}
        self.folded: dict[str, tuple[str, str]] = {}

    def claim(self, name: str, sanitised: str | None, location: Location, path: str) -> bool:
        if name in self.first:
            self.issues.add(
                f"duplicate {self.kind} name {name!r} (first declared at {self.first[name]})",
                location,
                path,
            )
            return False
        if sanitised is None:
            self.issues.add(
                f"{self.kind} name {name!r} is not a valid identifier after sanitising",
                location,
                path,
            )
            return False
        if sanitised in self.sanitised:
            other = self.sanitised[sanitised]
            self.issues.add(
                f"{self.kind} name {name!r} collides with {other!r} after sanitising (both become {sanitised!r})",
                location,
                path,
            )
            return False
        if self.folders and sanitised.casefold() in self.folded:
            other, folder = self.folded[sanitised.casefold()]
            self.issues.add(
                f"{self.kind} name {name!r} differs from {other!r} (declared at "
                f"{self.first[other]}) only in case: macOS and Windows file systems would take "
                f"their folders {sanitised}/ and {folder}/ for one",
                location,
                path,
            )
            return False
        self.first[name] = location
        self.sanitised[sanitised] = name
        self.folded[sanitised.casefold()] = (name, sanitised)
        return True


def ident(name: object, digit_prefix: str, shadowed: frozenset[str] = frozenset()) -> str:
    """A Python identifier for a group or tool name (a stand-in for a name that is no string).

    One in ``shadowed`` (the name of a module the program imports, for a service package) gets
    a trailing ``_``.
    """
    if not isinstance(name, str):
        return digit_prefix.rstrip("_")
    text = python_identifier(name, digit_prefix=digit_prefix) or digit_prefix.rstrip("_")
    return f"{text}_" if text in shadowed else text
