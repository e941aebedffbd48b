"""Large results read back in pieces: the preview a model reads, and where the rest waits.

A tool whose design says ``Limits(result_overflow="spill")`` does not lose a result over its
budget: the model reads a *preview* shaped like the result — the scalar fields whole, the first
items of each list, long strings cut — with a notice saying what was left out, and a *handle*
the builtin ``read_result`` tool (:mod:`tooldesign.builtin.results`) reads the rest with, by a
path of the tool's result schema, an offset and a limit. ``result_overflow="cut"`` shows the
same preview without a handle.

The full result waits in a :class:`ResultStore`: in the runtime's memory by default
(:class:`MemoryResultStore`), or where an agent and its workers both read it (a store on Redis,
``tooldesign.runtime.transports``) when the toolset runs remotely. Handles are random, scoped to
the run that made them (a call of another run cannot read them) and expire.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from tooldesign.runtime.spec.limits import byte_size
from tooldesign.runtime.validation.sizes import text_bytes

DEFAULT_TTL = 15 * 60.0
"""How long a spilled result can be read back, in seconds."""

_LEAST_ITEMS = 1  # a preview shows at least this many items of a list when it can
_STRING_STEPS = (4096, 1024, 256, 64)  # long strings are cut to the first length that fits


@dataclass(frozen=True, slots=True)
class SpilledResult:
    """A result kept for ``read_result``: whose it is, and its JSON text."""

    handle: str
    tool: str
    """The tool's id (its result schema says which paths ``read_result`` may read)."""
    run_id: str | None
    value_json: str
    expires: float
    """When it can no longer be read (``time.time()`` seconds)."""


class ResultStore(Protocol):
    """Where spilled results wait to be read back."""

    async def put(self, entry: SpilledResult) -> None:
        """Keep ``entry`` until it expires (or until the store must make room)."""
        ...

    async def get(self, handle: str) -> SpilledResult | None:
        """The entry of ``handle``, or ``None`` when there is none (or it expired)."""
        ...


class MemoryResultStore:
    """Spilled results in this process's memory: the oldest go first past ``max_bytes``."""

    def __init__(self, *, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, SpilledResult] = OrderedDict()
        self._bytes = 0
        self._lock = asyncio.Lock()

    async def put(self, entry: SpilledResult) -> None:
        async with self._lock:
            self._entries[entry.handle] = entry
            self._bytes += len(entry.value_json)
            now = time.time()
            while self._entries and (
                self._bytes > self.max_bytes or next(iter(self._entries.values())).expires <= now
            ):
                _, old = self._entries.popitem(last=False)
                self._bytes -= len(old.value_json)

    async def get(self, handle: str) -> SpilledResult | None:
        entry = self._entries.get(handle)
        if entry is None or entry.expires <= time.time():
            return None
        return entry

    def __len__(self) -> int:
        return len(self._entries)


def new_handle() -> str:
    """A handle no model can guess."""
    return "res_" + secrets.token_urlsafe(12)


@dataclass(frozen=True, slots=True)
class Preview:
    """A preview of a value, and what it leaves out: ``lists`` maps each cut list's path to
    ``(shown, total)``; ``strings`` lists the paths of strings cut short."""

    value: Any
    text: str
    lists: Mapping[str, tuple[int, int]]
    strings: tuple[str, ...]


def preview(value: Any, room: int) -> Preview | None:
    """The most of ``value`` that fits ``room`` bytes as JSON, keeping its shape: every
    object's keys, each list's first items (as many as fit, the same count for every list),
    and, when not one item would fit, strings cut to a length that lets some. ``None`` when
    not even the shape fits."""
    longest = _longest_list(value)
    fallback = None
    for cut in (None, *_STRING_STEPS):
        best = _most_items(value, longest, cut, room)
        if best is None:
            continue
        if all(shown >= _LEAST_ITEMS for shown, _ in best.lists.values()):
            return best
        fallback = fallback or best
    return fallback


def _most_items(value: Any, longest: int, cut: int | None, room: int) -> Preview | None:
    """The preview with the most items per list that fits ``room``: counts double until one
    does not fit, then a binary search between (so no probe is much larger than the room)."""
    best = _shaped(value, 0, cut, "", {}, [])
    if text_bytes(best.text) > room:
        return None
    low, high = 0, 1
    while high <= longest:
        shown = _shaped(value, high, cut, "", {}, [])
        if text_bytes(shown.text) > room:
            break
        best, low, high = shown, high, high * 2
    else:
        return best
    high -= 1
    while low < high:  # low fits, high + 1 does not
        middle = (low + high + 1) // 2
        shown = _shaped(value, middle, cut, "", {}, [])
        if text_bytes(shown.text) <= room:
            best, low = shown, middle
        else:
            high = middle - 1
    return best


def _longest_list(value: Any) -> int:
    if isinstance(value, list):
        return max([len(value), *(_longest_list(v) for v in value[:64])])
    if isinstance(value, dict):
        return max([0, *(_longest_list(v) for v in value.values())])
    return 0


def _shaped(
    value: Any,
    items: int,
    cut: int | None,
    path: str,
    lists: dict[str, tuple[int, int]],
    strings: list[str],
) -> Preview:
    shaped = _shape(value, items, cut, path, lists, strings)
    text = json.dumps(shaped, ensure_ascii=False, separators=(",", ":"))
    return Preview(shaped, text, dict(lists), tuple(dict.fromkeys(strings)))


def _shape(
    value: Any,
    items: int,
    cut: int | None,
    path: str,
    lists: dict[str, tuple[int, int]],
    strings: list[str],
) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            # Scalars are kept as they are, without a path made for them.
            if isinstance(v, dict | list) or (cut is not None and isinstance(v, str)):
                v = _shape(v, items, cut, f"{path}.{k}" if path else str(k), lists, strings)
            out[k] = v
        return out
    if isinstance(value, list):
        kept = value[:items]
        if len(kept) < len(value):
            lists[path] = (len(kept), len(value))
        inner = f"{path}[]"
        return [
            _shape(v, items, cut, inner, lists, strings) if isinstance(v, dict | list | str) else v
            for v in kept
        ]
    if isinstance(value, str) and cut is not None and len(value) > cut:
        strings.append(path)
        return value[:cut]
    return value


def widest_notice(
    value: Any,
    size: int,
    budget: int,
    tool: str,
    handle: str | None,
    hint: str | None = None,
    tokens: int | None = None,
) -> int:
    """The bytes of the longest notice a preview of ``value`` is likely to need: every list
    cut, its count as long as its total (a preview that needs more is tried again)."""
    shape = _shaped(value, 1, None, "", {}, [])
    lists = {path: (total, total) for path, (_, total) in shape.lists.items()}
    widest = spill_notice(Preview(None, "", lists, ()), size, budget, tool, handle, hint, tokens)
    return text_bytes(widest)


def hint_text(hint: str) -> str:
    """How to ask for less, as a notice says it (cut short: a service's hint may be long)."""
    text = " ".join(hint.split())
    return text if len(text) <= _MAX_HINT else text[: _MAX_HINT - 1] + "…"


_MAX_HINT = 300


def spill_notice(
    shown: Preview,
    size: int,
    budget: int,
    tool: str,
    handle: str | None,
    hint: str | None = None,
    tokens: int | None = None,
) -> str:
    """What the model reads after a preview: what was left out, how to read it, and (``hint``)
    how to ask for less; the budget in ``tokens`` when a token budget chose its bytes."""
    most = f"{tokens:,} tokens" if tokens else f"{budget:,} bytes"
    parts = [f"the result is {byte_size(size)}, over the {most} {tool!r} returns at once"]
    if tokens:
        parts[0] += f" ({budget:,} bytes here)"
    for path, (count, total) in shown.lists.items():
        where = path or "the result"
        parts.append(f"{where}: {count:,} of {total:,} items shown")
    if shown.strings:
        parts.append("long text cut in " + ", ".join(p or "the result" for p in shown.strings[:5]))
    if handle is None:
        tail = (
            f"{hint_text(hint)} To see the rest, ask for less."
            if hint
            else "Ask for less to see the rest."
        )
    else:
        first = next(iter(shown.lists.items()), None)
        if first is not None:
            path, (count, _) = first
            how = f'read_result(handle="{handle}", path="{path.replace("[]", "")}", offset={count})'
        else:
            how = f'read_result(handle="{handle}", path="")'
        tail = f"Read the rest with {how}; the handle works in this run only."
        if hint:
            tail += f" Or {hint_text(hint)[0].lower()}{hint_text(hint)[1:]}"
    return "\n\n[Preview: " + "; ".join(parts) + ". " + tail + "]"


__all__ = [
    "DEFAULT_TTL",
    "MemoryResultStore",
    "Preview",
    "ResultStore",
    "SpilledResult",
    "hint_text",
    "new_handle",
    "preview",
    "spill_notice",
    "widest_notice",
]
