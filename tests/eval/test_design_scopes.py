"""``Scopes``: a toolset's scopes reach each of its tools, a tool adds its own, and a bad scope is
reported on its line, on its tool."""

from __future__ import annotations

import pytest
from tooldesign.eval.evaluate import evaluate

from tests.support.design import ERROR, WriteDesign, assert_at, single_issue

_DESIGN = """\
with Service("assistant", "Network operations assistant"):
    with Toolset("devices", "Inspect the devices of a site"):
        {toolset_line}
        with Tool("get_device", "Get one device"):
            Return(String, "The device")
        with Tool("restart_device", "Restart a device"):
            Return(String, "The job")
            {tool_line}
"""


def _design(toolset_line: str = "pass", tool_line: str = "pass") -> str:
    return _DESIGN.format(toolset_line=toolset_line, tool_line=tool_line)


def test_a_tool_needs_its_toolsets_scopes_and_its_own_sorted_without_repeats(
    write_design: WriteDesign,
) -> None:
    path = write_design(
        _design(
            'Scopes("devices:read")',
            'Scopes("devices:write", "devices:read")\n            Scopes("audit")',
        )
    )
    tools = {tool.name: tool for tool in evaluate([str(path)]).tools()}

    assert tools["get_device"].scopes == ("devices:read",)
    assert tools["restart_device"].scopes == ("audit", "devices:read", "devices:write")


def test_a_tool_without_scopes_needs_none(write_design: WriteDesign) -> None:
    path = write_design(_design())
    assert all(tool.scopes == () for tool in evaluate([str(path)]).tools())


@pytest.mark.parametrize(
    ("scope", "says"),
    [
        pytest.param('""', "a scope cannot be empty", id="empty"),
        pytest.param('"devices write"', "is not an OAuth scope token", id="space"),
        pytest.param('"caf\\u00e9"', "is not an OAuth scope token", id="not-ascii"),
        pytest.param("42", "a scope is a string, not int 42", id="not-a-string"),
    ],
)
def test_a_bad_scope_is_reported_on_its_line_naming_its_tool(
    write_design: WriteDesign, scope: str, says: str
) -> None:
    path = write_design(_design(tool_line=f"Scopes({scope})  {ERROR}"))
    issue = single_issue(path)

    assert says in issue.message
    assert issue.message.startswith("Scopes: ")
    assert 'tool "restart_device"' in str(issue)
    assert_at(issue, path)


def test_a_bad_toolset_scope_is_reported_once_on_the_toolset(write_design: WriteDesign) -> None:
    path = write_design(_design(toolset_line=f'Scopes("a b")  {ERROR}'))
    issue = single_issue(path)

    assert 'toolset "devices"' in str(issue)
    assert 'tool "' not in str(issue)
    assert_at(issue, path)


def test_scopes_with_none_given_is_an_error(write_design: WriteDesign) -> None:
    path = write_design(_design(tool_line=f"Scopes()  {ERROR}"))
    issue = single_issue(path)

    assert "Scopes needs at least one scope" in issue.message
    assert_at(issue, path)


def test_scopes_outside_a_toolset_or_tool_is_misplaced(write_design: WriteDesign) -> None:
    path = write_design(
        'with Service("assistant", "Network operations assistant"):\n'
        f'    Scopes("devices:read")  {ERROR}\n'
        '    with Toolset("devices", "Inspect"):\n'
        '        with Tool("get_device", "Get one device"):\n'
        '            Return(String, "The device")\n'
    )
    issue = single_issue(path)

    assert "Scopes" in issue.message
    assert "a Toolset or Tool block" in issue.message
    assert_at(issue, path)
