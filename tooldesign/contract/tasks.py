"""Whether a tool runs as a long-running task, as a design states it (``LongRunning(...)``) and
as the specs, the catalog and the MCP server read it.

A task-supporting tool called over MCP by a client that negotiated the tasks extension
(``io.modelcontextprotocol/tasks``) answers at once with a task the client polls
(``tasks/get``), answers questions of (``tasks/update``) and cancels (``tasks/cancel``); its
result is kept ``keep_ms`` after it ends. ``required=True``: the tool runs only as a task
(a client without the extension is refused, -32021). ``asks_first``: the tool's questions are
asked in the call's own rounds (``input_required`` results) before the task exists; the task
is created on the round that answers them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_KEEP_MS = 3_600_000
"""How long a task's result is kept after it ends, unless the design says otherwise: an hour."""
DEFAULT_POLL_MS = 500
"""How often a client is told to poll a task, unless the design says otherwise."""
MAX_KEEP_MS = 7 * 24 * 3_600_000


@dataclass(frozen=True, slots=True)
class TaskSupport:
    """``LongRunning(...)``: the tool may (or must) run as a task."""

    required: bool = False
    """The tool runs only as a task (a client without the extension is refused)."""
    keep_ms: int = DEFAULT_KEEP_MS
    """How long the task and its result stay readable after it ends (milliseconds)."""
    poll_ms: int = DEFAULT_POLL_MS
    """How often clients are told to poll it (milliseconds)."""
    asks_first: bool = False
    """Its questions are asked in the call's rounds before the task is created."""

    def entry(self) -> dict[str, Any]:
        """The catalog's ``task`` key of a tool entry."""
        return {
            "onlyTask": self.required,
            "keepMs": self.keep_ms,
            "pollMs": self.poll_ms,
            "asksFirst": self.asks_first,
        }

    @classmethod
    def from_entry(cls, entry: object) -> TaskSupport:
        """The inverse of :meth:`entry` (a catalog's ``task`` key): ``ValueError`` naming what
        is wrong."""
        if not isinstance(entry, dict):
            raise TypeError(f"a tool's task must be an object, got {entry!r}")
        made = cls(
            required=entry.get("onlyTask", False),
            keep_ms=entry.get("keepMs", DEFAULT_KEEP_MS),
            poll_ms=entry.get("pollMs", DEFAULT_POLL_MS),
            asks_first=entry.get("asksFirst", False),
        )
        problem = task_problem(made.required, made.keep_ms, made.poll_ms, made.asks_first)
        if problem is not None:
            raise ValueError(problem)
        return made


def task_problem(
    required: object, keep_ms: object, poll_ms: object, asks_first: object
) -> str | None:
    """What is wrong with the arguments of ``LongRunning`` (``None``: nothing)."""
    if not isinstance(required, bool):
        return f"LongRunning's required is True or False, not {required!r}"
    for name, value in (("keep_ms", keep_ms), ("poll_ms", poll_ms)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            return f"LongRunning's {name} is a positive whole number of milliseconds, not {value!r}"
    assert isinstance(keep_ms, int)
    if keep_ms > MAX_KEEP_MS:
        return f"LongRunning's keep_ms is at most {MAX_KEEP_MS} (a week), not {keep_ms}"
    if not isinstance(asks_first, bool):
        return f"LongRunning's asks_first is True or False, not {asks_first!r}"
    return None


TASK_KEY = "task"
"""A catalog entry's key for its :class:`TaskSupport` (left out when the tool has none)."""


def task_entry(task: TaskSupport | None) -> dict[str, Any]:
    """A catalog entry's ``task`` key (nothing for a tool that never runs as a task)."""
    return {} if task is None else {TASK_KEY: task.entry()}


def task_from_entry(
    entry: Mapping[str, Any], where: str, problems: list[str]
) -> TaskSupport | None:
    """The :class:`TaskSupport` a catalog entry's ``task`` key states, checked (a problem is
    appended)."""
    if TASK_KEY not in entry:
        return None
    try:
        return TaskSupport.from_entry(entry[TASK_KEY])
    except (TypeError, ValueError) as exc:
        problems.append(f"{where}: 'task': {exc}")
        return None
