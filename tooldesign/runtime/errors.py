"""Errors the runtime and generated codecs raise or return."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from tooldesign.jsonschema.text import clipped
from tooldesign.runtime.dict_reader import DictFormatError, DictReader

if TYPE_CHECKING:
    from tooldesign.runtime.reasons import Recovery


class Constraint(StrEnum):
    """What a value broke. One of these per :class:`FieldIssue`."""

    MISSING_FIELD = "missing_field"
    INVALID_FIELD_TYPE = "invalid_field_type"
    INVALID_ENUM_VALUE = "invalid_enum_value"
    INVALID_RANGE = "invalid_range"
    INVALID_LENGTH = "invalid_length"
    INVALID_PATTERN = "invalid_pattern"
    INVALID_FORMAT = "invalid_format"
    UNKNOWN_FIELD = "unknown_field"
    ARGUMENT_RULE = "argument_rule"
    """A rule across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``) is broken."""


ROOT_PATH = ""
"""The path of the payload itself (for malformed JSON or a non-object payload)."""

MAX_ISSUES = 20
"""Issues kept per error: past them, a call's problems are counted, not described."""


@dataclass(frozen=True, slots=True, init=False)
class FieldIssue:
    """One problem with one field of a payload or result.

    ``field`` is the instance path (``devices[0].id``; ``""`` is the payload itself), as a
    message shows it: a key that is not a plain name is JSON-quoted (``preferences."a.b"``,
    ``""`` for an empty key), a long key or path is cut short.
    ``description`` is the design's description of the field, or of the nearest field holding
    it (``kinds`` for ``kinds[0]``). ``bounds`` holds the JSON Schema keywords that were broken
    or apply (``minimum``, ``maxLength``, ``minItems`` …). ``examples`` are the field's own
    examples from the design (``example=``).
    """

    field: str
    constraint: Constraint
    message: str
    description: str | None = None
    expected: str | None = None
    actual: str | None = None
    allowed: tuple[Any, ...] | None = None
    bounds: Mapping[str, int | float] | None = None
    pattern: str | None = None
    format: str | None = None
    examples: tuple[Any, ...] | None = None

    def __init__(
        self,
        field: str,
        constraint: Constraint,
        message: str,
        description: str | None = None,
        expected: str | None = None,
        actual: str | None = None,
        allowed: tuple[Any, ...] | None = None,
        bounds: Mapping[str, int | float] | None = None,
        pattern: str | None = None,
        format: str | None = None,
        examples: tuple[Any, ...] | None = None,
    ) -> None:
        # Frozen: each slot is set through its own descriptor, which costs half what the
        # generated __init__'s object.__setattr__ does (an invalid call builds one per bad field).
        s = _ISSUE_SLOTS
        s[0](self, field)
        s[1](self, constraint)
        s[2](self, message)
        s[3](self, description)
        s[4](self, expected)
        s[5](self, actual)
        s[6](self, allowed)
        s[7](self, bounds)
        s[8](self, pattern)
        s[9](self, format)
        s[10](self, examples)

    def describe(self, root: str = "arguments") -> str:
        """One line for a human or a model.

        ``limit: must be <= 500 (got 900) — Maximum results; example: 20``. An issue with the
        whole value (no field) is told as ``root``'s: the ``arguments``, or the ``result``.
        """
        where = self.field or root
        text = f"{where}: {self.message}"
        if self.description:
            text += f" — {self.description}"
        if self.examples:
            label = "example" if len(self.examples) == 1 else "examples"
            text += f"; {label}: " + ", ".join(_shown_example(e) for e in self.examples)
        return text

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "field": self.field,
            "constraint": str(self.constraint),
            "message": self.message,
        }
        for key in ("description", "expected", "actual", "pattern", "format"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.allowed is not None:
            data["allowed"] = list(self.allowed)
        if self.examples:
            data["examples"] = list(self.examples)
        if self.bounds:
            data["bounds"] = dict(self.bounds)
        return data

    @classmethod
    def from_dict(cls, data: object) -> FieldIssue:
        """The issue :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "a field issue")
        constraint = read.choice("constraint", Constraint)
        bounds = read.mapping("bounds")
        for key, value in bounds.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise DictFormatError(f"a field issue: bound {key!r} must be a number")
        return cls(
            field=read.text("field"),
            constraint=constraint,
            message=read.text("message"),
            description=read.text("description", None),
            expected=read.text("expected", None),
            actual=read.text("actual", None),
            allowed=tuple(read.items("allowed")) if "allowed" in read.data else None,
            bounds=bounds or None,
            pattern=read.text("pattern", None),
            format=read.text("format", None),
            examples=tuple(read.items("examples")) or None,
        )


_ISSUE_SLOTS: tuple[Callable[[FieldIssue, Any], None], ...] = tuple(
    vars(FieldIssue)[f.name].__set__ for f in fields(FieldIssue)
)
"""The setter of each of :class:`FieldIssue`'s slots, in the order its ``__init__`` takes them."""


def _shown_example(value: Any) -> str:
    return clipped(json.dumps(value, ensure_ascii=False, default=str), _MAX_EXAMPLE_SHOWN)


_MAX_EXAMPLE_SHOWN = 120


def more_problems(count: int) -> str:
    """The line that stands for the problems a message leaves out."""
    return f"… and {count} more problem{'' if count == 1 else 's'}"


class ToolValidationError(ValueError):
    """A payload or result did not match its tool's design. Carries one issue per problem."""

    def __init__(
        self,
        tool: str,
        issues: Iterable[FieldIssue],
        *,
        input: Any = None,
        kind: str = "payload",
        more: int = 0,
    ) -> None:
        self.tool = tool
        self.issues = tuple(issues)
        self.input = input
        self.kind = kind
        self.more = more
        """Problems found beyond ``issues``: counted, not described (see :data:`MAX_ISSUES`)."""
        # The summary is written when read (str()): the runtime answers a model with a hint
        # built from the issues, and never reads it.
        super().__init__()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __str__(self) -> str:
        lines = [f"invalid {self.kind} for tool {self.tool!r}:"]
        root = "result" if self.kind == "result" else "arguments"
        lines.extend(f"  - {issue.describe(root)}" for issue in self.issues)
        if self.more:
            lines.append(f"  - {more_problems(self.more)}")
        return "\n".join(lines)

    @property
    def missing_fields(self) -> tuple[str, ...]:
        missing = Constraint.MISSING_FIELD  # looked up once: an enum member's lookup is slow
        return tuple([i.field for i in self.issues if i.constraint is missing])


@dataclass(slots=True)
class ToolError:
    """An error result: a message safe to show the model, and the chain of causes for operators.

    ``message`` is what the model may read. ``cause`` is the original exception (kept for
    logs and telemetry, never shown to the model unless the application opts in).
    """

    message: str
    cause: BaseException | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_exception(cls, exc: BaseException, *, message: str | None = None) -> ToolError:
        return cls(message=message or "the tool failed", cause=exc)

    def chain(self) -> list[str]:
        """``"Type: text"`` for the cause and every exception it was raised from, outermost first."""
        if isinstance(self.cause, RemoteError):  # described where it was raised
            return list(self.cause.chain)
        out: list[str] = []
        seen: set[int] = set()
        exc = self.cause
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            out.append(f"{type(exc).__name__}: {exc}")
            exc = exc.__cause__ or exc.__context__
        return out

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message}
        if self.cause is not None:
            data["chain"] = self.chain()
        if self.details:
            data["details"] = json.loads(json.dumps(self.details, default=str))
        return data

    @classmethod
    def from_dict(cls, data: object) -> ToolError:
        """The error :meth:`to_dict` described. The cause, raised in another process, comes
        back as a :class:`RemoteError` carrying its chain."""
        read = DictReader(data, "an error")
        chain = read.texts("chain")
        return cls(
            message=read.text("message"),
            cause=RemoteError(chain) if chain else None,
            details=read.mapping("details"),
        )


class RemoteError(Exception):
    """An exception raised in another process (a worker), known by its description.

    ``chain`` is what :meth:`ToolError.chain` gave there: ``"Type: text"`` for the exception
    and each one it was raised from, outermost first.
    """

    def __init__(self, chain: Iterable[str]) -> None:
        self.chain = tuple(chain)
        super().__init__(self.chain[0] if self.chain else "an error in another process")


class ToolFailure(Exception):
    """Raise it from a tool to fail with a message meant for the model.

    Other exceptions are reported to the model as a generic failure (their text may hold
    internals); this one's message is shown as it is, with an optional clarifying question.
    ``recovery`` says what the planner should do next (``Recovery.FINISH`` for a failure no
    other step can help with); by default a refusal is ``replan``, and a failure with a
    clarifying question ``correct_call``.
    """

    def __init__(
        self,
        message: str,
        *,
        clarifying_question: str | None = None,
        recovery: Recovery | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.clarifying_question = clarifying_question
        self.recovery = recovery
