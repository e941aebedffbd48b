"""What generated ``content.py`` modules call to build a design's prompts and resources (see
:mod:`tooldesign.runtime.mcp.content`, which serves them).

A prompt renders its design's template or the function it is bound to, unless the
application gives a handler of its own; a resource the design binds to nothing must be given
one, and ``needed`` says which when it is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")


def from_template(text: str) -> Callable[..., str]:
    """A prompt's ``render`` that fills ``text``'s ``{argument}`` placeholders (evaluation
    checked each names an argument that always has a value)."""

    def render(arguments: BaseModel | None = None) -> str:
        values: dict[str, Any] = {} if arguments is None else arguments.model_dump(by_alias=True)
        return text.format_map(values)

    return render


def needed(handler: T | None, what: str, key: str) -> T:
    """``handler``, which ``what`` cannot be served without: a ``ValueError`` naming the
    handler to give when there is none."""
    if handler is None:
        raise ValueError(
            f"{what} needs a handler: give handlers[{key!r}] (the design binds it to no function)"
        )
    return handler
