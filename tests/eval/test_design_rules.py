"""Rules across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``): read into the payload's
shape, and each mistake reported on the rule's own line."""

from __future__ import annotations

import pytest
from tooldesign.contract.rules import ArgumentRule
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.model import ObjectType

from tests.support.design import ERROR, WriteDesign, assert_at, single_issue

_DESIGN = """\
with Service("crm", "Contacts"):
    with Toolset("people", "People"):
        with Tool("add_contact", "Add a contact"):
            with Args():
                Attribute("name", String, "Full name")
                Attribute("contact_method", String, "How", enum=["phone", "email"])
                Attribute("phone", String, "Phone")
                Attribute("email", String, "Email")
                Attribute("fax", String, "Fax")
                Attribute("urgent", Boolean, "Urgent")
                Attribute("region", String, "Region", default="eu")
                Attribute("tags", ArrayOf(String), "Tags")
                Attribute("session", String, "Session")
                Required("name", "session")
                {line}
            Inject("session")
            with Return():
                Attribute("id", String, "Id")
                {return_line}
"""


def _design(line: str, return_line: str = "pass") -> str:
    return _DESIGN.format(line=line, return_line=return_line)


def test_the_rules_reach_the_payload_in_order(write_design: WriteDesign) -> None:
    path = write_design(
        _design(
            'AtLeastOne("phone", "email")\n                '
            'ExactlyOne("fax", "email")\n                '
            'When("contact_method", equals="phone", requires="phone", otherwise=["email"])'
        )
    )
    (tool,) = evaluate([str(path)]).tools()
    assert isinstance(tool.payload.type, ObjectType)
    assert tool.payload.type.shape.rules == (
        ArgumentRule("at_least_one", ("phone", "email")),
        ArgumentRule("exactly_one", ("fax", "email")),
        ArgumentRule("when", ("phone",), "contact_method", "phone", ("email",)),
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('AtLeastOne("phone", "emial")', "no argument 'emial' in this Args block"),
        ('AtLeastOne("phone", "emial")', "did you mean 'email'?"),
        ('AtLeastOne("phone")', "name at least two arguments"),
        ('AtLeastOne("phone", "phone")', "'phone' is named twice"),
        ('AtLeastOne("phone", "name")', "'name' is Required, so it is always given"),
        ('ExactlyOne("phone", "region")', "'region' has a default"),
        ('When("contact_method", equals="fax", requires=["phone"])', "equals='fax' is not one of"),
        ('When("contact_method", equals=1, requires=["phone"])', "is not a value of"),
        ('When("urgent", equals=1, requires=["phone"])', "is not a value of"),
        ('When("tags", equals="a", requires=["phone"])', "a rule can test a String, Int"),
        ('When("region", equals="eu", requires=["phone"])', "'region' defaults to 'eu'"),
        ('When("urgent", equals=True, requires=[])', "requires= names no argument"),
        (
            'When("urgent", equals=True, requires=["phone"], otherwise=["phone"])',
            "in both requires= and otherwise=",
        ),
        ('When("urgent", equals=True, requires=["urgent"])', "the argument the rule tests"),
        ('When("session", equals="s", requires=["phone"])', "which is injected"),
    ],
)
def test_a_bad_rule_is_reported_on_its_line(
    write_design: WriteDesign, line: str, says: str
) -> None:
    path = write_design(_design(f"{line}  {ERROR}"))
    issue = single_issue(path)
    assert says in issue.message
    if "injected" not in says:  # told of the Args block, where the injection is seen
        assert_at(issue, path)


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (
            ['AtLeastOne("phone", "email")', 'AtLeastOne("phone", "email")'],
            "repeats the rule on line",
        ),
        (
            [
                'When("urgent", equals=True, requires=["phone"])',
                'When("urgent", equals=True, requires=["fax"])',
            ],
            "say it in one rule",
        ),
        (
            [
                'ExactlyOne("phone", "fax")',
                'When("urgent", equals=True, requires=["phone", "fax"])',
            ],
            "allows only one of them",
        ),
    ],
)
def test_rules_that_clash_are_reported_on_the_second(
    write_design: WriteDesign, lines: list[str], says: str
) -> None:
    path = write_design(_design(f"{lines[0]}\n                {lines[1]}  {ERROR}"))
    issue = single_issue(path)
    assert says in issue.message
    assert_at(issue, path)


def test_a_rule_outside_a_tools_args_is_an_error(write_design: WriteDesign) -> None:
    path = write_design(_design("pass", f'AtLeastOne("id", "id")  {ERROR}'))
    issue = single_issue(path)
    assert "go in a tool's Args block" in issue.message
    assert_at(issue, path)


def test_a_bounded_tool_keeps_its_rules(write_design: WriteDesign) -> None:
    path = write_design(
        _design('AtLeastOne("phone", "email")').replace(
            '            Inject("session")',
            '            Inject("session")\n            BoundedResult(cursor="cursor", next_cursor="next")',
        )
    )
    (tool,) = evaluate([str(path)]).tools()
    assert isinstance(tool.payload.type, ObjectType)
    assert tool.payload.type.shape.field("cursor") is not None
    assert tool.payload.type.shape.rules == (ArgumentRule("at_least_one", ("phone", "email")),)
