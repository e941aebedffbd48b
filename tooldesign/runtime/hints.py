"""Retry hints: what a model needs to repair a call it got wrong."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from tooldesign.jsonschema.text import compact_json
from tooldesign.runtime.dict_reader import DictReader
from tooldesign.runtime.errors import FieldIssue, ToolValidationError, more_problems
from tooldesign.runtime.reasons import RetryReason


@dataclass(frozen=True, slots=True, init=False)
class RetryHint:
    """Guidance attached to an error result so the caller (usually a model) can try again.

    ``restrict_to_tool`` says the next attempt should call this same tool again (with the
    repaired input) rather than pick another. ``retry_after`` is in seconds (rate limits).
    """

    reason: RetryReason
    tool: str
    message: str
    restrict_to_tool: bool = False
    missing_fields: tuple[str, ...] = ()
    example_input: Any = None
    prior_input: Any = None
    clarifying_question: str | None = None
    issues: tuple[FieldIssue, ...] = ()
    retry_after: float | None = None
    valid_tools: tuple[str, ...] = ()
    suggested_tools: tuple[str, ...] = ()
    """For ``tool_unavailable``: the valid names the unknown one was probably meant as."""
    more_issues: int = 0
    """Problems found beyond ``issues``: counted, not described."""

    def __init__(
        self,
        reason: RetryReason,
        tool: str,
        message: str,
        restrict_to_tool: bool = False,
        missing_fields: tuple[str, ...] = (),
        example_input: Any = None,
        prior_input: Any = None,
        clarifying_question: str | None = None,
        issues: tuple[FieldIssue, ...] = (),
        retry_after: float | None = None,
        valid_tools: tuple[str, ...] = (),
        suggested_tools: tuple[str, ...] = (),
        more_issues: int = 0,
    ) -> None:
        # Frozen: each slot is set through its own descriptor, at half the cost of the
        # generated __init__'s object.__setattr__ (every invalid call builds one).
        s = _HINT_SLOTS
        s[0](self, reason)
        s[1](self, tool)
        s[2](self, message)
        s[3](self, restrict_to_tool)
        s[4](self, missing_fields)
        s[5](self, example_input)
        s[6](self, prior_input)
        s[7](self, clarifying_question)
        s[8](self, issues)
        s[9](self, retry_after)
        s[10](self, valid_tools)
        s[11](self, suggested_tools)
        s[12](self, more_issues)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reason": str(self.reason),
            "tool": self.tool,
            "message": self.message,
            "restrict_to_tool": self.restrict_to_tool,
        }
        if self.missing_fields:
            data["missing_fields"] = list(self.missing_fields)
        if self.issues:
            data["issues"] = [issue.to_dict() for issue in self.issues]
        if self.more_issues:
            data["more_issues"] = self.more_issues
        if self.example_input is not None:
            data["example_input"] = self.example_input
        if self.prior_input is not None:
            data["prior_input"] = self.prior_input
        if self.clarifying_question:
            data["clarifying_question"] = self.clarifying_question
        if self.retry_after is not None:
            data["retry_after"] = self.retry_after
        if self.valid_tools:
            data["valid_tools"] = list(self.valid_tools)
        if self.suggested_tools:
            data["suggested_tools"] = list(self.suggested_tools)
        return data

    @classmethod
    def from_dict(cls, data: object) -> RetryHint:
        """The hint :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "a retry hint")
        return cls(
            reason=read.choice("reason", RetryReason),
            tool=read.text("tool"),
            message=read.text("message"),
            restrict_to_tool=read.flag("restrict_to_tool", False),
            missing_fields=read.texts("missing_fields"),
            example_input=read.any("example_input"),
            prior_input=read.any("prior_input"),
            clarifying_question=read.text("clarifying_question", None),
            issues=tuple(FieldIssue.from_dict(issue) for issue in read.items("issues")),
            retry_after=read.number("retry_after", None),
            valid_tools=read.texts("valid_tools"),
            suggested_tools=read.texts("suggested_tools"),
            more_issues=read.integer("more_issues", 0),
        )


_HINT_SLOTS: tuple[Callable[[RetryHint, Any], None], ...] = tuple(
    vars(RetryHint)[f.name].__set__ for f in fields(RetryHint)
)
"""The setter of each of :class:`RetryHint`'s slots, in the order its ``__init__`` takes them."""


def retry_hint_for_invalid_payload(
    error: ToolValidationError,
    *,
    example: Any = None,
) -> RetryHint:
    """Turn a payload validation error into the hint a model needs to repair its call.

    Missing fields only → ``missing_fields``; anything else → ``invalid_arguments``. The message
    names every bad field, what was expected and the field's design description, and shows the
    design's example.
    """
    return invalid_payload_hint(error, example, example_line(example))


def example_line(example: Any) -> str | None:
    """The line of an invalid-arguments hint that shows ``example`` (``None`` without one)."""
    return None if example is None else f"Example of valid arguments: {compact_json(example)}"


def invalid_payload_hint(
    error: ToolValidationError, example: Any, example_line: str | None
) -> RetryHint:
    """:func:`retry_hint_for_invalid_payload` with the example's line already written (a
    runtime writes each tool's once: its example is frozen)."""
    issues = error.issues
    missing = error.missing_fields
    only_missing = bool(missing) and len(missing) == len(issues) and not error.more
    tool = error.tool
    # One line per issue ("- field: what is wrong"), in one join.
    lines = [f"The arguments for tool {tool!r} are invalid:", *[i.describe() for i in issues]]
    if error.more:
        lines.append(more_problems(error.more))
    text = "\n- ".join(lines)
    if example_line is not None:
        text += "\n" + example_line
    text += f"\nCall {tool!r} again with corrected arguments."
    if only_missing:
        reason = RetryReason.MISSING_FIELDS
        question: str | None = f"What value should be used for {', '.join(missing)}?"
    else:
        reason, question = RetryReason.INVALID_ARGUMENTS, None
    return RetryHint(
        reason,
        tool,
        text,
        True,  # restrict_to_tool
        missing,
        example,
        error.input,
        question,
        issues,
        None,  # retry_after
        (),  # valid_tools
        (),  # suggested_tools
        error.more,
    )
