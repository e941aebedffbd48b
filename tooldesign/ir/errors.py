"""Design errors: every problem found in a design, each with its file, line and element path."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tooldesign.contract.location import Location


@dataclass(frozen=True, slots=True)
class DesignIssue:
    """One problem in a design.

    ``path`` names the element (``service "assistant" › toolset "devices" › tool "list_devices"
    › args › "limit"``); ``location`` is the design-file line of the DSL call that caused it.
    ``cause`` is the exception the design's own code raised, when that is the problem (its
    traceback is shown on request, ``gen --traceback``).
    """

    message: str
    location: Location | None = None
    path: str = ""
    cause: BaseException | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        where = ""
        if self.location is not None:
            where = f"{self.location}: "
        element = f"{self.path}: " if self.path else ""
        return f"{where}{element}{self.message}"


@dataclass(frozen=True, slots=True)
class DesignNotice(DesignIssue):
    """Something a design's author should know that is no error (a name changed for Python)."""


class DesignError(Exception):
    """A design that cannot be generated. Carries every issue found, not just the first."""

    def __init__(self, issues: Iterable[DesignIssue]) -> None:
        self.issues = tuple(issues)
        count = len(self.issues)
        header = f"the design has {count} error{'s' if count != 1 else ''}:"
        super().__init__("\n".join([header, *(f"  {issue}" for issue in self.issues)]))


class Issues:
    """Collects issues across evaluation phases."""

    def __init__(self) -> None:
        self.items: list[DesignIssue] = []

    def add(
        self,
        message: str,
        location: Location | None,
        path: str,
        *,
        cause: BaseException | None = None,
    ) -> None:
        self.items.append(DesignIssue(message, location, path, cause))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        """Raise every issue, in design-line order (file by file), whatever phase found it."""
        if self.items:
            raise DesignError(sorted(self.items, key=_design_order))


def _design_order(issue: DesignIssue) -> tuple[bool, str, int]:
    where = issue.location
    # Issues with no design line (rare) come last; the sort is stable, so ties keep their order.
    return (where is None, where.file if where else "", where.line if where else 0)


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
