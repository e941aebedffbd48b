"""Design locations: every element keeps the design-file line of the call that declared it.

Lines are read from instruction offsets (a per-code-object line map), so a design module that
spells out thousands of tools evaluates in linear time; these tests pin that the lines are the
ones a reader of the file would point at, however the calls are written.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from tooldesign.dsl.recorder import frame_location
from tooldesign.eval.evaluate import evaluate

from tests.support.design import WriteDesign

TOOLS = 300

HEAD = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("set", "A toolset"):
"""

TOOL = """        with Tool({name!r}, "Tool {n}"):
            with Args():
                Attribute("query", String, "What to look for", max_length=20)
                Attribute(
                    "limit",
                    Int,
                    "Maximum",
                    minimum=1,
                )
            Return(String, "The answer")
"""

HELPERS = """
from tooldesign.dsl import *


def tool(name):
    with Tool(name, "A helper-made tool"):
        Args(String, "Text")
        Return(String, "Text")


with Service("svc", "A service"):
    with Toolset("set", "A toolset"):
        tool("first")
        for name in ["second", "third"]:
            tool(name)
        [tool(name) for name in ["fourth"]]
        with Tool("fifth",
                  "Declared over two lines"):
            Args(String, "Text")
            Return(String, "Text")
"""


def _line_of(text: str, pattern: str) -> int:
    """The 1-based line of the first match of ``pattern`` in ``text``."""
    match = re.search(pattern, text, re.MULTILINE)
    assert match is not None, pattern
    return text.count("\n", 0, match.start()) + 1


def test_every_element_of_a_long_module_has_its_own_line(
    write_design: WriteDesign,
) -> None:
    text = HEAD + "".join(TOOL.format(name=f"tool_{n:03d}", n=n) for n in range(TOOLS))
    design = evaluate([str(write_design(text, "long.py", imports=""))])

    tools = list(design.tools())
    assert len(tools) == TOOLS
    for tool in tools:
        tool_line = _line_of(text, rf"with Tool\({tool.name!r}")
        assert tool.location.line == tool_line, tool.name
        # The payload's fields: a one-line call, and a call spread over six lines (its first).
        fields = {f.name: f.location.line for f in _payload_fields(design, tool)}
        assert fields == {"query": tool_line + 2, "limit": tool_line + 3}, tool.name


def test_calls_made_in_helpers_loops_and_comprehensions(
    write_design: WriteDesign,
) -> None:
    path = write_design(HELPERS, "helpers.py", imports="")
    design = evaluate([str(path)])

    lines = {tool.name: tool.location.line for tool in design.tools()}
    helper_line = _line_of(HELPERS, r'with Tool\(name, "A helper-made tool"\)')
    assert lines == {
        "first": helper_line,
        "second": helper_line,
        "third": helper_line,
        "fourth": helper_line,
        "fifth": _line_of(HELPERS, r'with Tool\("fifth",'),
    }
    assert {tool.location.file for tool in design.tools()} == {str(path)}


def _payload_fields(design, tool):  # type: ignore[no-untyped-def]
    from tooldesign.ir.model import ObjectType

    payload = tool.payload.type
    assert isinstance(payload, ObjectType)
    return payload.shape.fields


class _FrameWithoutLineNumber:
    """A frame as ``frame_location`` reads it, whose ``f_lineno`` must not be read."""

    def __init__(self, frame: Any) -> None:
        self.f_code = frame.f_code
        self.f_lasti = frame.f_lasti

    @property
    def f_lineno(self) -> int:
        raise AssertionError("f_lineno scans the whole line table: evaluation turns quadratic")


def test_locations_come_from_the_instruction_offset_not_f_lineno() -> None:
    frame = sys._getframe()
    expected = frame.f_lineno + 1
    location = frame_location(_FrameWithoutLineNumber(sys._getframe()))  # type: ignore[arg-type]

    assert (location.file, location.line) == (__file__, expected)
