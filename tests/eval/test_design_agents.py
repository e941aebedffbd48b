"""``ImplementedByAgent``: the design rules of a tool implemented by an agent, each reported at
its line, and what a valid one evaluates to."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldesign.contract.agents import AgentContract
from tooldesign.eval.evaluate import evaluate

from tests.support.design import ERROR, WriteDesign, assert_at, single_issue

_DESIGN = """\
def helper() -> None:
    pass

with Service("svc", "A service"):
    with Toolset("devices", "Devices"):
        with Tool("list_devices", "List devices"):
            with Args():
                Attribute("site_id", String)
    with Toolset("ops", "Operations"):
        with Tool("diagnose", "Diagnose a site"):
            with Args():
                Attribute("site_id", String)
            with Return():
                Attribute("summary", String)
{extra}
            ImplementedByAgent({agent})  {agent_marker}
"""


def _design(agent: str, *, extra: str = "", on_tool: bool = False) -> str:
    return _DESIGN.format(agent=agent, extra=extra, agent_marker="" if on_tool else ERROR)


@pytest.mark.parametrize(
    ("agent", "fragments"),
    [
        ('uses=["inventory"]', ["uses='inventory'", "no such toolset", "toolsets: devices"]),
        ('uses=["ops"]', ["uses='ops'", "its own tool"]),
        ('uses="devices"', ["uses= must be a list of names"]),
        ("max_turns=0", ["max_turns=", "positive integer"]),
        ("max_tool_calls=True", ["max_tool_calls=", "positive integer"]),
        ("timeout=-1", ["timeout=", "positive number of seconds"]),
        ("output_retries=-1", ["output_retries=", "0 or more"]),
        ('forward=[""]', ["forward= lists ''"]),
    ],
)
def test_a_bad_agent_declaration_is_reported_at_its_line(
    write_design: WriteDesign, agent: str, fragments: list[str]
) -> None:
    path = write_design(_design(agent))
    issue = single_issue(path)
    for fragment in fragments:
        assert fragment in issue.message, issue.message
    if "uses=" in agent and "list" not in fragments[0]:
        return  # a service-level rule: reported at the tool
    assert_at(issue, path)


def test_an_agent_and_a_bind_to_both_implementing_a_tool_are_refused(
    write_design: WriteDesign,
) -> None:
    path = write_design(_design('uses=["devices"]', extra="            BindTo(helper)"))
    issue = single_issue(path)
    assert "ImplementedByAgent and BindTo both implement the tool" in issue.message


def test_a_second_declaration_is_a_duplicate(write_design: WriteDesign) -> None:
    path = write_design(
        _design('uses=["devices"]', extra='            ImplementedByAgent(uses=["devices"])')
    )
    assert "ImplementedByAgent is declared more than once" in single_issue(path).message


def test_a_valid_declaration_is_carried_into_the_ir(
    write_design: WriteDesign, tmp_path: Path
) -> None:
    path = write_design(
        _design('uses=["devices"], forward=["session_id"], max_tool_calls=3, timeout=2.5')
    )
    design = evaluate([str(path)])
    tool = design.services[0].toolsets[1].tools[0]
    assert tool.agent == AgentContract(
        uses=("devices",), forward=("session_id",), max_tool_calls=3, timeout=2.5
    )
    assert tool.agent.given() == {
        "uses": ("devices",),
        "forward": ("session_id",),
        "max_tool_calls": 3,
        "timeout": 2.5,
    }
