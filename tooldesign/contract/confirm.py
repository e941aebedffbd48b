"""``Confirm``: the design's statement that a person approves a tool's calls before they run.

One definition for every stage: the IR and generated specs hold a :class:`ConfirmSpec`, the
catalog lists it under the entry's ``confirm`` key (:meth:`ConfirmSpec.entry`), and the runtime
renders its prompt for each call (:func:`render_prompt`) and evaluates its condition
(:mod:`~tooldesign.contract.conditions`).

The prompt is a template over the tool's arguments: ``"Restart {device_id}?"``. Each ``{name}``
(or ``{object.field}``) names an argument; ``{{`` and ``}}`` are literal braces. Rendering
substitutes values — never evaluates anything the design wrote: no attribute access, no
indexing, no format specifications or conversions (``{x!r}``, ``{x:>10}``) are accepted.
"""

from __future__ import annotations

import json
import string
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooldesign.contract.conditions import Condition, parse_condition

DEFAULT_DENIED = (
    "A person declined this call, so it did not run. Do not make it again; tell the user, or "
    "reach the goal another way."
)
"""What the model is told when a person refuses a call, unless the design says otherwise."""

MAX_PROMPT_LENGTH = 1000
"""Characters a prompt template may have."""

_MAX_VALUE_SHOWN = 200


class TemplateError(ValueError):
    """A prompt template that cannot be rendered safely: the message says why."""


@dataclass(frozen=True, slots=True)
class ConfirmSpec:
    """``Confirm(prompt=..., when=..., denied=...)`` of one tool.

    ``prompt`` is the template shown to the person; ``when`` (a condition over the arguments)
    limits approval to the calls for which it holds (``None``: every call); ``denied`` is what
    the model is told when the person refuses.
    """

    prompt: str
    when: str | None = None
    denied: str = DEFAULT_DENIED

    def condition(self) -> Condition | None:
        """``when``, parsed (once per text: parsing is cached)."""
        return parse_condition(self.when) if self.when is not None else None

    def applies(self, arguments: Mapping[str, Any]) -> bool:
        """Whether a call with these arguments needs approval."""
        if self.when is None:
            return True
        return parse_condition(self.when).holds(arguments)

    def entry(self) -> dict[str, Any]:
        """The catalog's ``confirm`` value: ``{"prompt", "when"?, "denied"}``."""
        data: dict[str, Any] = {"prompt": self.prompt}
        if self.when is not None:
            data["when"] = self.when
        data["denied"] = self.denied
        return data

    @classmethod
    def from_entry(cls, value: Any) -> ConfirmSpec:
        """The spec a catalog's ``confirm`` value describes; raises ``ValueError`` saying why not."""
        if not isinstance(value, Mapping):
            raise ValueError("'confirm' must be a JSON object with a 'prompt'")  # noqa: TRY004 - a format error
        prompt, when, denied = value.get("prompt"), value.get("when"), value.get("denied")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError("'confirm.prompt' must be a non-empty string")
        if when is not None and not isinstance(when, str):
            raise ValueError("'confirm.when' must be a string or absent")
        if denied is not None and (not isinstance(denied, str) or not denied.strip()):
            raise ValueError("'confirm.denied' must be a non-empty string or absent")
        unknown = sorted(set(value) - {"prompt", "when", "denied"})
        if unknown:
            raise ValueError(f"'confirm' has unknown keys {', '.join(map(repr, unknown))}")
        prompt_fields(prompt)
        if when is not None:
            parse_condition(when)
        return cls(prompt, when, denied if denied is not None else DEFAULT_DENIED)


def prompt_fields(template: str) -> tuple[tuple[str, ...], ...]:
    """The argument paths ``template`` names (``{device_id}`` → ``("device_id",)``).

    Raises :class:`TemplateError` for what rendering must not do: attribute access through
    anything but plain names, indexing, conversions, format specifications, unbalanced braces.
    """
    if not isinstance(template, str) or not template.strip():
        raise TemplateError("a prompt must be a non-empty string")
    if len(template) > MAX_PROMPT_LENGTH:
        raise TemplateError(
            f"a prompt may have at most {MAX_PROMPT_LENGTH} characters, this one has {len(template)}"
        )
    try:
        pieces = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise TemplateError(
            f"the prompt is not a valid template: {exc} (write {{{{ for a brace)"
        ) from None
    found: dict[tuple[str, ...], None] = {}
    for _, name, spec, conversion in pieces:
        if name is None:
            continue
        if conversion is not None or spec:
            raise TemplateError(
                f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}: "
                "a placeholder is a plain argument name, with no conversion or format"
            )
        parts = tuple(name.split("."))
        if not name or not all(part.isidentifier() for part in parts):
            raise TemplateError(
                f"{{{name}}} is not an argument name (write {{{{ and }}}} for literal braces)"
            )
        found[parts] = None
    return tuple(found)


def render_prompt(template: str, arguments: Mapping[str, Any]) -> str:
    """``template`` with each placeholder replaced by the argument's value, shown short.

    A string is shown as it is (cut short, control characters replaced by spaces), anything
    else as compact JSON; an absent argument as ``(none)``. Nothing in the template is evaluated.
    """
    out: list[str] = []
    for literal, name, _, _ in string.Formatter().parse(template):
        out.append(literal)
        if name is None:
            continue
        value: Any = arguments
        for part in name.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        out.append(shown_value(value))
    return "".join(out)


def shown_value(value: Any) -> str:
    """A value as a person reads it in a prompt: one line, cut short."""
    if value is None:
        return "(none)"
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return text if len(text) <= _MAX_VALUE_SHOWN else text[: _MAX_VALUE_SHOWN - 1] + "…"


__all__ = [
    "DEFAULT_DENIED",
    "ConfirmSpec",
    "TemplateError",
    "prompt_fields",
    "render_prompt",
    "shown_value",
]
