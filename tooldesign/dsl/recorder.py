"""The recording state behind the DSL: the open blocks and what has been recorded so far."""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from types import CodeType, FrameType, TracebackType
from typing import Any

from tooldesign.contract.location import Location
from tooldesign.dsl.records import (
    AttributeRecord,
    DesignRecord,
    MessageRecord,
    Record,
    RecordingIssue,
    ServerDataRecord,
    ShapeRecord,
    TypeRecord,
)

_DSL_DIR = str(Path(__file__).resolve().parent)


class Recorder:
    """Collects one design's records. DSL calls record into the current recorder."""

    def __init__(self) -> None:
        self.design = DesignRecord()
        self.stack: list[Record] = []
        self.line_maps: dict[int, tuple[CodeType, _LineMap]] = {}
        """Per code object of the design: instruction offsets → lines (see caller_location)."""
        self.unentered: Unentered | None = None
        """The last block that takes attributes (``Args()``, ``Type(...)``…), until another
        block is entered or left: where attributes called just after it, outside any block,
        were meant to go when its ``with`` was forgotten."""

    @property
    def top(self) -> Record | None:
        return self.stack[-1] if self.stack else None

    def child_path(self, segment: str) -> str:
        top = self.top
        return f"{top.path} › {segment}" if top is not None and top.path else segment

    def issue(self, message: str, location: Location, path: str) -> None:
        self.design.issues.append(RecordingIssue(message, location, path))


@dataclass(eq=False)
class Unentered:
    """A block that takes attributes, as its call made it: ``record``, inside ``parent``,
    spelled ``call`` (``Args()``) and, in its ``with``, ``named`` (`` as Note``); and whether
    its missing ``with`` was reported."""

    record: Record
    parent: Record | None
    call: str
    named: str = ""
    reported: bool = False


_current = Recorder()


def current() -> Recorder:
    return _current


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record into a fresh recorder for the duration of the block."""
    global _current
    previous, _current = _current, Recorder()
    try:
        yield _current
    finally:
        _current = previous


def caller_location() -> Location:
    """The design-file line that made the DSL call (the first frame outside ``tooldesign.dsl``)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_DSL_DIR):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return Location("<unknown>", 0)
    return frame_location(frame)


def frame_location(frame: FrameType) -> Location:
    """Where ``frame`` is, read from its instruction offset and a line map built once per code.

    Not ``frame.f_lineno``: CPython computes it by scanning the code's line table from its start
    on every read, which makes a design module that spells out N tools cost O(N²) to evaluate.
    """
    code = frame.f_code
    maps = _current.line_maps
    # Keyed by identity: hashing a code object reads all of it, which for a module that
    # spells out N tools would again cost O(N) per call. The map holds the code, so its id
    # stays its own.
    held = maps.get(id(code))
    if held is None:
        held = maps[id(code)] = (code, _LineMap(code))
    line = held[1].line_at(frame.f_lasti)
    return Location(code.co_filename, frame.f_lineno if line is None else line)


class _LineMap:
    """The source line of each instruction offset of one code object, found by bisection."""

    __slots__ = ("_ranges", "_starts")

    def __init__(self, code: CodeType) -> None:
        # (start, end, line) per range of offsets, in order, taken whole with no Python loop:
        # a module that spells out its tools has hundreds of thousands of them.
        self._ranges = list(code.co_lines())
        self._starts = list(map(_range_start, self._ranges))

    def line_at(self, offset: int) -> int | None:
        """The line of the instruction at ``offset``; ``None`` where the code has none."""
        i = bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        _, end, line = self._ranges[i]
        return line if offset < end else None


_range_start = itemgetter(0)


def shape_of(record: Record | None) -> ShapeRecord | None:
    """The object shape that ``Attribute``/``Required``/``Example`` record into, if any."""
    if isinstance(record, TypeRecord):
        return record.shape
    if isinstance(record, AttributeRecord | MessageRecord):
        return record.shape
    if isinstance(record, ServerDataRecord) and record.message is not None:
        return record.message.shape
    return None


class Block:
    """What a DSL block call returns: ``with`` it to record into the block."""

    __slots__ = ("_recorder", "record")

    def __init__(self, record: Record, recorder: Recorder) -> None:
        self.record = record
        self._recorder = recorder

    def __enter__(self) -> Any:
        record = self.record
        record.entered = True
        self._recorder.unentered = None
        if isinstance(record, AttributeRecord) and record.shape is None:
            record.shape = ShapeRecord(record.location, record.path)
        self._recorder.stack.append(record)
        return record

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._recorder.unentered = None
        stack = self._recorder.stack
        while stack:
            if stack.pop() is self.record:
                break

    # A block used where a type is expected (``Device = Type(...)`` without ``with``) is the type.
    def __repr__(self) -> str:
        return repr(self.record)
