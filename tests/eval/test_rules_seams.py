"""Rules across arguments where they meet JSON's values: a tested value JSON cannot write, two
``When``s testing one value that Python spells two ways, and an argument that takes null (which
JSON Schema's ``required`` counts as given, and the decoder as not given)."""

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
                Attribute("score", Float, "Score")
                Attribute("phone", String, "Phone")
                Attribute("email", String, "Email")
                {lines}
            Return(String, "Id")
"""


@pytest.mark.parametrize("value", ['float("nan")', 'float("inf")', '-float("inf")', "1e400"])
def test_a_tested_value_json_cannot_write_is_a_design_error(
    write_design: WriteDesign, value: str
) -> None:
    # Before, the generator crashed rendering the schema's const (a traceback, no line).
    path = write_design(
        _DESIGN.format(lines=f'When("score", equals={value}, requires=["phone"])  {ERROR}')
    )
    issue = single_issue(path)
    assert "is not a JSON number" in issue.message
    assert_at(issue, path)


def test_two_whens_testing_one_json_value_are_one_rule(write_design: WriteDesign) -> None:
    # 1 and 1.0 are one JSON value (the decoder's const compares them equal): two rules.
    lines = (
        'When("score", equals=1, requires=["phone"])\n                '
        f'When("score", equals=1.0, requires=["email"])  {ERROR}'
    )
    path = write_design(_DESIGN.format(lines=lines))
    issue = single_issue(path)
    assert "say it in one rule" in issue.message
    assert_at(issue, path)


@pytest.mark.parametrize(
    "kind",
    [
        "Any",
        'Any(schema={"type": ["string", "null"]})',
        'OneOf(String, Any(schema={"type": "null"}))',
    ],
)
def test_a_rule_over_an_argument_that_takes_null_is_a_design_error(
    write_design: WriteDesign, kind: str
) -> None:
    # Before: {"data": null} kept AtLeastOne("data", "email") for the schema (required counts
    # a key whatever its value) and broke it for the decoder (a null is "not given").
    lines = (
        f'Attribute("data", {kind}, "Data")\n                AtLeastOne("data", "email")  {ERROR}'
    )
    path = write_design(_DESIGN.format(lines=lines))
    issue = single_issue(path)
    assert "'data' is" in issue.message and "which takes null" in issue.message
    assert_at(issue, path)


def test_a_rule_over_an_any_argument_that_takes_no_null_is_kept(write_design: WriteDesign) -> None:
    lines = 'Attribute("data", Any(schema={"type": "string"}), "Data")\n                '
    lines += 'AtLeastOne("data", "email")'
    path = write_design(_DESIGN.format(lines=lines))
    (tool,) = evaluate([str(path)]).tools()
    assert isinstance(tool.payload.type, ObjectType)
    assert tool.payload.type.shape.rules == (ArgumentRule("at_least_one", ("data", "email")),)
