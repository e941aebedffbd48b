"""Design errors: each is reported with a clear message, at the offending line, on its element.

Every test writes a small design file into ``tmp_path``, evaluates it and checks the issue it
produces. Expected lines are found by searching the design text for a marker comment, so the
designs can be edited freely.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.eval.load import UsageError
from tooldesign.ir.errors import DesignError, DesignIssue
from tooldesign.ir.model import ObjectType

from tests.support.design import (
    ERROR,
    WriteDesign,
    assert_at,
    design_issues,
    line_of,
    single_issue,
)

FIRST = "# <-- first"

SERVICE = 'service "assistant"'
TOOLSET = f'{SERVICE} › toolset "devices"'
TOOL = f'{TOOLSET} › tool "list_devices"'
ARGS = f"{TOOL} › args"
RESULT = f"{TOOL} › result"

# One tool whose Args block holds the lines given to ``args_design``.
_ARGS_TEMPLATE = """\
with Service("assistant", "Network operations assistant"):
    with Toolset("devices", "Inspect the devices of a site"):
        with Tool("list_devices", "List devices on a site"):
            with Args():
{attributes}
"""


# ── helpers ───────────────────────────────────────────────────────────────────────────────


def args_design(attributes: str) -> str:
    """A design with one tool whose Args block declares ``attributes`` (DSL lines)."""
    body = textwrap.indent(textwrap.dedent(attributes).strip("\n"), " " * 16)
    return _ARGS_TEMPLATE.format(attributes=body)


def assert_mentions(issue: DesignIssue, *fragments: str) -> None:
    for fragment in fragments:
        assert fragment in issue.message, f"{fragment!r} not in {issue.message!r}"


def attribute_issue(write_design: WriteDesign, attribute: str, *fragments: str) -> DesignIssue:
    """The one issue of a design whose Args declare ``attribute`` (a DSL line): it mentions each
    of ``fragments`` and is reported on that line."""
    path = write_design(args_design(f"{attribute}  {ERROR}"))
    issue = single_issue(path)
    assert_mentions(issue, *fragments)
    assert_at(issue, path)
    return issue


# ── 1. DSL calls outside their block ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("source", "call", "where", "element"),
    [
        pytest.param(
            """\
            Attribute("site_id", String, "Site identifier")  # <-- error
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list_devices", "List devices on a site"):
                        pass
            """,
            "Attribute",
            "Args, Return, Type, ServerData or an Object attribute block",
            '"site_id"',
            id="attribute-at-top-level",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Tool("list_devices", "List devices on a site"):  # <-- error
                    pass
            """,
            "Tool",
            "a Toolset block",
            f'{SERVICE} › tool "list_devices"',
            id="tool-outside-toolset",
        ),
        pytest.param(
            """\
            with Toolset("devices", "Inspect the devices of a site"):  # <-- error
                pass
            with Service("assistant", "Network operations assistant"):
                pass
            """,
            "Toolset",
            "a Service block",
            'toolset "devices"',
            id="toolset-outside-service",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Args():  # <-- error
                        Attribute("site_id", String, "Site identifier")
            """,
            "Args",
            "a Tool block",
            f"{TOOLSET} › Args",
            id="args-outside-tool",
        ),
        pytest.param(
            """\
            Required("site_id")  # <-- error
            with Service("assistant", "Network operations assistant"):
                pass
            """,
            "Required",
            "Args, Return, Type, ServerData or an Object attribute block",
            "Required",
            id="required-at-top-level",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list_devices", "List devices on a site"):
                        with Args():
                            Attribute("site_id", String, "Site identifier")
                        Required("site_id")  # <-- error
            """,
            "Required",
            "Args, Return, Type, ServerData or an Object attribute block",
            f"{TOOL} › Required",
            id="required-in-tool-not-in-args",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    Inject("user_id")  # <-- error
            """,
            "Inject",
            "a Tool block",
            f"{TOOLSET} › Inject",
            id="inject-outside-tool",
        ),
        pytest.param(
            """\
            Tags("network")  # <-- error
            with Service("assistant", "Network operations assistant"):
                pass
            """,
            "Tags",
            "a Toolset or Tool block",
            "Tags",
            id="tags-at-top-level",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Service("inner", "A service inside another"):  # <-- error
                    pass
            """,
            "Service",
            "top level of a design file",
            'service "inner"',
            id="service-inside-service",
        ),
    ],
)
def test_dsl_call_outside_its_block(
    write_design: WriteDesign, source: str, call: str, where: str, element: str
) -> None:
    path = write_design(source)
    issue = single_issue(path)
    assert_mentions(issue, call, where)
    assert_at(issue, path)
    assert issue.path == element


# ── 2. duplicate names ────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("source", "message", "element"),
    [
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):  # <-- first
                pass
            with Service("assistant", "The same name again"):  # <-- error
                pass
            """,
            "duplicate service name 'assistant'",
            SERVICE,
            id="service",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):  # <-- first
                    pass
                with Toolset("devices", "The same name again"):  # <-- error
                    pass
            """,
            "duplicate toolset name 'devices'",
            TOOLSET,
            id="toolset-in-one-service",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list_devices", "List devices on a site"):  # <-- first
                        pass
                    with Tool("list_devices", "The same name again"):  # <-- error
                        pass
            """,
            "duplicate tool name 'list_devices'",
            TOOL,
            id="tool-in-one-toolset",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list_devices", "List devices on a site"):  # <-- first
                        pass
                with Toolset("inventory", "The site inventory"):
                    with Tool("list_devices", "The same name again"):  # <-- error
                        pass
            """,
            "duplicate tool name 'list_devices' in service 'assistant'",
            f'{SERVICE} › toolset "inventory" › tool "list_devices"',
            id="tool-across-toolsets-of-one-service",
        ),
        pytest.param(
            """\
            with Type("Device", "A network device"):  # <-- first
                Attribute("id", String, "Device identifier")
            with Type("Device", "The same name again"):  # <-- error
                Attribute("id", String, "Device identifier")
            with Service("assistant", "Network operations assistant"):
                pass
            """,
            "duplicate type name 'Device'",
            'type "Device"',
            id="type",
        ),
        pytest.param(
            args_design(
                """\
                Attribute("site_id", String, "Site identifier")  # <-- first
                Attribute("site_id", String, "The same name again")  # <-- error
                """
            ),
            "duplicate attribute name 'site_id'",
            f'{ARGS} › "site_id"',
            id="attribute",
        ),
    ],
)
def test_duplicate_name(
    tmp_path: Path,
    write_design: WriteDesign,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    message: str,
    element: str,
) -> None:
    # Run from the design's folder: the error and its "first declared at" name the file alike.
    monkeypatch.chdir(tmp_path)
    path = write_design(source)
    issue = single_issue(path)
    first = line_of(path, FIRST)
    assert_mentions(issue, message, f"first declared at design.py:{first}")
    assert str(issue).startswith(f"design.py:{line_of(path, ERROR)}: ")
    assert_at(issue, path)
    assert issue.path == element


def test_locations_outside_the_current_folder_are_absolute(write_design: WriteDesign) -> None:
    path = write_design(
        """        with Type("Device", "A network device"):  # <-- first
            Attribute("id", String, "Device identifier")
        with Type("Device", "The same name again"):  # <-- error
            Attribute("id", String, "Device identifier")
        """,
        "elsewhere/design.py",
    )
    issue = single_issue(path)
    assert_mentions(issue, f"first declared at {path}:{line_of(path, FIRST)}")
    assert str(issue).startswith(f"{path}:{line_of(path, ERROR)}: ")


# ── 3. names invalid or colliding after sanitising ────────────────────────────────────────


@pytest.mark.parametrize("name", ["???", ""])
def test_attribute_name_invalid_after_sanitising(write_design: WriteDesign, name: str) -> None:
    path = write_design(
        args_design(
            f"""\
            Attribute("site_id", String, "Site identifier")
            Attribute({name!r}, String, "No usable name")  # <-- error
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, f"attribute name {name!r}", "is not a valid identifier after sanitising")
    assert_at(issue, path)
    assert issue.path == f'{ARGS} › "{name}"'


@pytest.mark.parametrize(
    ("source", "fragments", "element"),
    [
        pytest.param(
            args_design(
                """\
                Attribute("site-id", String, "Site identifier")
                Attribute("site_id", String, "Site identifier again")  # <-- error
                """
            ),
            ("attribute name 'site_id' collides with 'site-id'", "both become 'site_id'"),
            f'{ARGS} › "site_id"',
            id="attributes",
        ),
        pytest.param(
            """\
            with Type("device", "A network device"):
                Attribute("id", String, "Device identifier")
            with Type("Device", "A network device again"):  # <-- error
                Attribute("id", String, "Device identifier")
            with Service("assistant", "Network operations assistant"):
                pass
            """,
            ("type name 'Device' collides with 'device'", "both become 'Device'"),
            'type "Device"',
            id="types",
        ),
        pytest.param(
            """\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list-devices", "List devices on a site"):
                        pass
                    with Tool("list_devices", "List devices on a site again"):  # <-- error
                        pass
            """,
            ("tool name 'list_devices' collides with 'list-devices'", "both become 'list_devices'"),
            TOOL,
            id="tools-in-one-toolset",
        ),
    ],
)
def test_names_colliding_after_sanitising(
    write_design: WriteDesign, source: str, fragments: tuple[str, ...], element: str
) -> None:
    path = write_design(source)
    issue = single_issue(path)
    assert_mentions(issue, *fragments)
    assert_at(issue, path)
    assert issue.path == element


# ── 4. Required of an unknown attribute ───────────────────────────────────────────────────


def test_required_names_unknown_attribute(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            """\
            Attribute("site_id", String, "Site identifier")
            Attribute("limit", Int, "Maximum number of devices")
            Required("site")  # <-- error
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "Required names unknown attribute 'site'", "site_id, limit")
    assert_at(issue, path)
    assert issue.path == ARGS


def test_a_near_miss_is_named(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", String, "Site", max_lenght=9)  # <-- option
                        Attribute("when", String, "When", format="datetime")  # <-- format
                        Attribute("session_id", String, "Caller session")
                        Required("site", "session_id")  # <-- required
                    Inject("sesion_id")  # <-- inject
                    Annotations(read_onyl=True)  # <-- annotation
                    Tool("other", "Another", titel="Other")  # <-- keyword
        """,
    )
    issues = {issue.location.line: issue.message for issue in design_issues(path) if issue.location}
    expected = {
        "option": "unknown Attribute option max_lenght= (did you mean max_length=?); allowed: "
        "enum, default, minimum, maximum, exclusive_minimum, exclusive_maximum, min_length, "
        "max_length, pattern, format, min_items, max_items, example, repair",
        "format": "; did you mean 'date-time'?",
        "required": "Required names unknown attribute 'site' (attributes: site_id, when, "
        "session_id); did you mean 'site_id'?",
        "inject": "(fields: site_id, when, session_id); did you mean 'session_id'?",
        "annotation": "unknown annotation read_onyl= (did you mean read_only=?)",
        "keyword": "got an unexpected keyword argument 'titel'; did you mean title=?",
    }
    for marker, fragment in expected.items():
        assert fragment in issues[line_of(path, f"# <-- {marker}")]


def test_a_forgotten_with_is_one_error_at_its_own_line(write_design: WriteDesign) -> None:
    # Without "with", the Args block is empty and every call after it stands outside any block:
    # one error, at the line to fix, rather than one per call after it (and an Inject of a
    # field that seems not to exist).
    path = write_design(
        """\
        with Type("Site", "A site") as Site:
            Attribute("id", String, "Site identifier")
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    Args()  # <-- error
                    Attribute("site_id", String, "Site identifier")
                    Attribute("session_id", String, "Caller session")
                    Required("site_id", "session_id")
                    Example({"site_id": "hq"})
                    Return(Site, "The site")
                    Inject("session_id")
        """,
    )
    issue = single_issue(path)
    assert issue.message == (
        'Args() is called without "with", so the Attribute on line '
        f'{line_of(path, ERROR) + 1} and the calls after it are outside it: write "with Args():"'
    )
    assert_at(issue, path)
    assert issue.path == ARGS


_TOOL_WITH = """\
with Service("assistant", "Network operations assistant"):
    with Toolset("devices", "Inspect the devices of a site"):
        with Tool("list_devices", "List devices on a site"):
            {block}  # <-- error
            Attribute("id", String, "Identifier")
"""


@pytest.mark.parametrize(
    ("source", "fix"),
    [
        (
            'Device = Type("Device", "A device")  # <-- error\nAttribute("id", String, "Id")\n',
            'with Type("Device", …) as Device:',
        ),
        (_TOOL_WITH.format(block="Return()"), "with Return():"),
        (_TOOL_WITH.format(block='ServerData("chart")'), 'with ServerData("chart", …):'),
    ],
)
def test_each_block_that_takes_attributes_says_its_with(
    write_design: WriteDesign, source: str, fix: str
) -> None:
    path = write_design(source)
    issue = single_issue(path)
    assert issue.message.endswith(f'write "{fix}"'), issue.message
    assert_at(issue, path)


def test_attributes_after_an_entered_block_are_still_misplaced(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", String, "Site identifier")
                    Attribute("stray", String, "Outside any block")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "Attribute must be called inside Args, Return")
    assert issue.path == f'{TOOL} › "stray"'
    assert_at(issue, path)


# ── 5. defaults that break their attribute ────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragments"),
    [
        pytest.param(
            'Attribute("limit", Int, "Maximum number of devices", default="x")',
            ("default 'x'", "'x' is not of type 'integer'"),
            id="wrong-type",
        ),
        pytest.param(
            'Attribute("limit", String, "Device state", enum=["up", "down"], default="gone")',
            ("default 'gone'", "'gone' is not one of ['up', 'down']"),
            id="not-in-enum",
        ),
        pytest.param(
            'Attribute("limit", Int, "Maximum number of devices", maximum=100, default=500)',
            ("default 500", "500 is greater than the maximum of 100"),
            id="above-maximum",
        ),
    ],
)
def test_default_breaks_its_attribute(
    write_design: WriteDesign, attribute: str, fragments: tuple[str, ...]
) -> None:
    issue = attribute_issue(
        write_design,
        attribute,
        *fragments,
        "does not satisfy the attribute's own type or constraints",
    )
    assert issue.path == f'{ARGS} › "limit"'


def test_default_on_required_attribute(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            """\
            Attribute("limit", Int, "Maximum number of devices", default=10)  # <-- error
            Required("limit")
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "has a default (10) but is Required")
    assert_at(issue, path)
    assert issue.path == f'{ARGS} › "limit"'


# ── 6. enum values of the wrong type ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        pytest.param(
            'Attribute("state", String, "Device state", enum=[1, 2])',
            "enum values 1, 2 are not String values",
            id="ints-on-string",
        ),
        pytest.param(
            'Attribute("state", Int, "Device state", enum=[True])',
            "enum values True are not Int values",
            id="bool-on-int",
        ),
    ],
)
def test_enum_values_of_wrong_type(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    issue = attribute_issue(write_design, attribute, fragment)
    assert issue.path == f'{ARGS} › "state"'


# ── 7. lower bound above upper bound ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        pytest.param(
            'Attribute("value", Int, "A number", minimum=10, maximum=1)',
            "minimum=10 is greater than maximum=1",
            id="minimum-maximum",
        ),
        pytest.param(
            'Attribute("value", String, "A text", min_length=10, max_length=1)',
            "min_length=10 is greater than max_length=1",
            id="min_length-max_length",
        ),
        pytest.param(
            'Attribute("value", ArrayOf(String, min_items=5, max_items=1), "A list")',
            "min_items=5 is greater than max_items=1",
            id="min_items-max_items-on-ArrayOf",
        ),
        pytest.param(
            'Attribute("value", ArrayOf(String), "A list", min_items=5, max_items=1)',
            "min_items=5 is greater than max_items=1",
            id="min_items-max_items-as-attribute-options",
        ),
    ],
)
def test_lower_bound_above_upper_bound(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    issue = attribute_issue(write_design, attribute, fragment)
    assert issue.path == f'{ARGS} › "value"'


# ── 8. invalid regular expression ─────────────────────────────────────────────────────────


def test_pattern_is_not_a_valid_regex(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(f'Attribute("site_id", String, "Site identifier", pattern="([")  {ERROR}'),
    )
    issue = single_issue(path)
    assert_mentions(issue, "pattern '(['", "cannot be used: unclosed character class")
    assert_at(issue, path)
    assert issue.path == f'{ARGS} › "site_id"'


# ── 9. unknown type name ──────────────────────────────────────────────────────────────────


def test_unknown_type_name_suggests_close_match(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Type("Node", "A node of the topology"):
            Attribute("id", String, "Node identifier")
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Return():
                        Attribute("nodes", ArrayOf("Nod"), "Matching nodes")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "unknown type 'Nod'", "did you mean 'Node'?")
    assert_at(issue, path)
    assert issue.path == f'{RESULT} › "nodes"'


# ── 10. Inject of a missing or optional field ─────────────────────────────────────────────


def test_inject_of_missing_field(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", String, "Site identifier")
                        Required("site_id")
                    Inject("user_id")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "Inject names unknown payload field 'user_id'", "site_id")
    assert issue.path == TOOL
    assert_at(issue, path)


def test_inject_of_optional_field(write_design: WriteDesign) -> None:
    # Reported at the Inject call (it is what needs the field required), naming the attribute's line.
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", String, "Site identifier")
                        Attribute("user_id", String, "The calling user")  # <-- declared
                        Required("site_id")
                    Inject("user_id")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(
        issue,
        "injected field 'user_id'",
        "must be Required",
        f"design.py:{line_of(path, '# <-- declared')}",
    )
    assert_at(issue, path)
    assert issue.path == TOOL


# ── 11. ServerData kind repeated ──────────────────────────────────────────────────────────


def test_server_data_kind_repeated_in_one_tool(
    tmp_path: Path, write_design: WriteDesign, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    ServerData("timings", MapOf(String, Float), "Query timings")  # <-- first
                    ServerData("timings", MapOf(String, Float), "Timings again")  # <-- error
        """,
    )
    issue = single_issue(path)
    first = line_of(path, FIRST)
    assert_mentions(
        issue,
        "server data kind 'timings' is declared twice",
        f"(first declared at design.py:{first})",
    )
    assert_at(issue, path)
    assert issue.path == f'{TOOL} › server_data "timings"'


# ── 12. BoundedResult over an incompatible field ──────────────────────────────────────────


def test_bounded_result_with_returned_of_wrong_type(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Return():
                        Attribute("devices", ArrayOf(String), "Matching device ids")
                        Attribute("returned", String, "How many were returned")  # <-- error
                    BoundedResult()
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "BoundedResult needs field 'returned' to be Int", "declared as String")
    assert_at(issue, path)
    assert issue.path == f'{RESULT} › "returned"'


# ── 13. BindTo of something not importable or not callable ────────────────────────────────


@pytest.mark.parametrize(
    ("prelude", "target", "fragments"),
    [
        pytest.param(
            "",
            '"nosuchmodule:func"',
            ("nosuchmodule:func", "is not importable", "No module named 'nosuchmodule'"),
            id="missing-module",
        ),
        pytest.param(
            "",
            "lambda payload: payload",
            ("<lambda>", "is not importable", "module-level function"),
            id="lambda",
        ),
        pytest.param(
            """\
            def make_handler():
                def handler(payload):
                    return payload
                return handler
            """,
            "make_handler()",
            ("make_handler.<locals>.handler", "is not importable", "module-level function"),
            id="function-inside-function",
        ),
    ],
)
def test_bind_to_not_importable(
    write_design: WriteDesign, prelude: str, target: str, fragments: tuple[str, ...]
) -> None:
    path = write_design(
        textwrap.dedent(prelude)
        + textwrap.dedent(
            f"""\
            with Service("assistant", "Network operations assistant"):
                with Toolset("devices", "Inspect the devices of a site"):
                    with Tool("list_devices", "List devices on a site"):
                        BindTo({target})  {ERROR}
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "BindTo target", *fragments)
    assert_at(issue, path)
    assert issue.path == f"{TOOL} › bind"


_HELPERS = """\
MAX_DEVICES = 100


def list_devices() -> None:
    return None
"""


def test_bind_to_not_callable(tmp_path: Path, write_design: WriteDesign) -> None:
    (tmp_path / "helpers.py").write_text(_HELPERS)
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    BindTo("helpers:MAX_DEVICES")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "BindTo target helpers:MAX_DEVICES is not callable")
    assert_at(issue, path)
    assert issue.path == f"{TOOL} › bind"


def test_bind_to_function_next_to_design_is_accepted(
    tmp_path: Path, write_design: WriteDesign
) -> None:
    # The control for test_bind_to_not_callable: the same helper module, a callable target.
    (tmp_path / "helpers.py").write_text(_HELPERS)
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    BindTo("helpers:list_devices")
        """,
    )
    (tool,) = evaluate([str(path)]).tools()
    assert tool.binding is not None
    assert tool.binding.target == "helpers:list_devices"


# ── 14. tool names models cannot use ──────────────────────────────────────────────────────


@pytest.mark.parametrize("name", ["list.devices", "d" * 65], ids=["dot", "65-characters"])
def test_tool_name_not_matching_pattern(write_design: WriteDesign, name: str) -> None:
    path = write_design(
        f"""\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool({name!r}, "List devices on a site"):  {ERROR}
                    pass
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, f"tool name {name!r}", "must match ^[A-Za-z0-9_-]{1,64}$")
    assert_at(issue, path)
    assert issue.path == f'{TOOLSET} › tool "{name}"'


# ── 15. constraints that do not apply to the type ─────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        pytest.param(
            'Attribute("value", Int, "A number", max_length=5)',
            "max_length cannot apply to Int",
            id="max_length-on-Int",
        ),
        pytest.param(
            'Attribute("value", String, "A text", minimum=1)',
            "minimum cannot apply to String",
            id="minimum-on-String",
        ),
    ],
)
def test_constraint_not_applicable_to_type(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    issue = attribute_issue(write_design, attribute, fragment)
    assert issue.path == f'{ARGS} › "value"'


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        (
            'Attribute("since", String, "Since", format="date", default="yesterday")',
            "is not a 'date'",
        ),
        (
            'Attribute("at", String, "At", format="date-time", example="2026-01-31 09:30:00Z")',
            "is not a 'date-time'",
        ),
        (
            'Attribute("at", String, "At", format="date-time", default="1700000000")',
            "is not a 'date-time'",
        ),
        ('Attribute("home", String, "Home", format="uri", default="no url")', "is not a 'uri'"),
        ('Attribute("id", String, "Id", format="uuid", default="12-34")', "is not a 'uuid'"),
        (
            'Attribute("every", String, "Every", format="duration", default="1h")',
            "is not a 'duration'",
        ),
    ],
)
def test_a_design_value_its_format_type_refuses(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    # Checked as the generated model reads the format, whatever optional packages jsonschema has.
    attribute_issue(
        write_design,
        attribute,
        "does not satisfy the attribute's own type or constraints",
        fragment,
    )


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        (
            'Attribute("code", String, "Code", enum=["ab", "xb"], pattern="^a")',
            "enum value 'xb' does not satisfy the attribute's own constraints: 'xb' does not match '^a'",
        ),
        (
            'Attribute("size", Int, "Size", enum=[1, 5], maximum=3)',
            "enum value 5 does not satisfy the attribute's own constraints: 5 is greater than the maximum of 3",
        ),
        (
            'Attribute("day", String, "Day", format="date", enum=["2026-01-31", "someday"])',
            "enum value 'someday' does not satisfy the attribute's own constraints: 'someday' is not a 'date'",
        ),
    ],
)
def test_an_enum_value_outside_the_attributes_constraints(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    # The generated model holds an enum as a Literal: the values themselves must be valid.
    attribute_issue(write_design, attribute, fragment)


# ── 16. Example that does not match the Args ──────────────────────────────────────────────


def test_example_not_matching_args(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            """\
            Attribute("site_id", String, "Site identifier")
            Attribute("limit", Int, "Maximum number of devices")
            Example({"site_id": "s1", "limit": "ten"})  # <-- error
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "Example", "'ten'", "['limit']", "is not of type 'integer'")
    assert issue.path == ARGS
    assert_at(issue, path)


def test_example_reports_every_mismatch(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            """\
            Attribute("site_id", String, "Site identifier", min_length=2)
            Attribute("limit", Int, "Maximum number of devices", minimum=1)
            Attribute("status", String, "Status", enum=["online", "offline"])
            Attribute("where", OneOf(Int, ArrayOf(String)), "A number or names")
            Required("site_id", "status")
            Example({"site_id": "s", "limit": 0, "where": [1], "colour": "red"})  # <-- error
            """
        ),
    )
    issues = design_issues(path)
    messages = [issue.message for issue in issues]
    expected = [
        "'status' is a required property",
        "Additional properties are not allowed ('colour' was unexpected)",
        "['limit'] 0 is less than the minimum of 1",
        "['site_id'] 's' is too short",
        "['where'][0] 1 is not of type 'string'",
    ]
    assert len(issues) == len(expected), "\n".join(messages)
    for fragment in expected:
        assert any(fragment in m for m in messages), (fragment, messages)
    for issue in issues:
        assert issue.message.startswith("Example {'site_id': 's', ")
        assert issue.path == ARGS
        assert_at(issue, path)


# ── 17. discriminated OneOf whose variant lacks the discriminator ─────────────────────────


def test_discriminated_one_of_variant_without_discriminator(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Type("Router", "A router") as Router:
            Attribute("kind", String, "Variant tag", enum=["router"])
            Attribute("asn", Int, "Autonomous system number")
            Required("kind")
        with Type("Switch", "A switch") as Switch:
            Attribute("ports", Int, "Number of ports")
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Return():
                        Attribute("device", OneOf(Router, Switch, discriminator="kind"), "A device")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "discriminator='kind'", "variant Switch has no attribute 'kind'")
    assert_at(issue, path)
    assert issue.path == f'{RESULT} › "device"'


# ── 18. tool without a description ────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "call", ['Tool("list_devices")', 'Tool("list_devices", "")'], ids=["none", "empty"]
)
def test_tool_without_description(write_design: WriteDesign, call: str) -> None:
    path = write_design(
        f"""\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with {call}:  {ERROR}
                    pass
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "tool needs a description")
    assert_at(issue, path)
    assert issue.path == TOOL


# ── 19. exceptions raised by the design itself ────────────────────────────────────────────


def test_exception_in_design_reported_at_its_line(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", Strng, "Site identifier")  # <-- error
        """,
    )
    with pytest.raises(DesignError) as excinfo:
        evaluate([str(path)])
    (issue,) = excinfo.value.issues
    assert_mentions(issue, "NameError", "'Strng'")
    assert_at(issue, path)
    assert "Traceback" not in str(excinfo.value)


def test_syntax_error_in_design_reported_at_its_line(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site")  # <-- error
                pass
        """,
    )
    with pytest.raises(DesignError) as excinfo:
        evaluate([str(path)])
    (issue,) = excinfo.value.issues
    assert_mentions(issue, "SyntaxError", "expected ':'")
    assert_at(issue, path)
    assert "Traceback" not in str(excinfo.value)


# ── 20. sources that are not designs ──────────────────────────────────────────────────────


def test_design_without_service_is_usage_error(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Type("Device", "A network device"):
            Attribute("id", String, "Device identifier")
        """,
    )
    with pytest.raises(UsageError, match="not a design: no Service is declared"):
        evaluate([str(path)])


def test_missing_path_is_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.py"
    with pytest.raises(UsageError) as excinfo:
        evaluate([str(missing)])
    assert str(excinfo.value) == f"{missing}: no such file or folder"


# ── all errors at once; a valid design ────────────────────────────────────────────────────


def test_all_errors_reported_together(write_design: WriteDesign) -> None:
    # One error from each phase: recording (misplaced call), build (duplicate tool, unknown
    # type) and validation (bad pattern, bounds).
    path = write_design(
        """\
        Attribute("stray", String, "Outside any block")  # <-- misplaced
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                with Tool("list_devices", "List devices on a site"):
                    with Args():
                        Attribute("site_id", String, "Site", pattern="([")  # <-- pattern
                        Attribute("limit", Int, "Maximum", minimum=9, maximum=1)  # <-- bounds
                    with Return():
                        Attribute("devices", ArrayOf("Devic"), "Matches")  # <-- unknown type
                with Tool("list_devices", "The same name again"):  # <-- duplicate
                    pass
        """,
    )
    issues = design_issues(path)
    expected = {
        "misplaced": "Attribute must be called inside",
        "pattern": "pattern '(['",
        "bounds": "minimum=9 is greater than maximum=1",
        "unknown type": "unknown type 'Devic'",
        "duplicate": "duplicate tool name 'list_devices'",
    }
    found = {(issue.location.line if issue.location else None, issue.message) for issue in issues}
    assert len(issues) == len(expected), "\n".join(map(str, issues))
    for marker, fragment in expected.items():
        line = line_of(path, f"# <-- {marker}")
        assert any(at == line and fragment in message for at, message in found), (
            f"no issue {fragment!r} at line {line}:\n" + "\n".join(map(str, issues))
        )


def test_valid_design_evaluates(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Type("Device", "A network device") as Device:
            Attribute("id", String, "Device identifier", pattern="^[a-z0-9-]+$")
            Attribute("kind", String, "Device kind", enum=["router", "switch"])
            Attribute("ports", Int, "Number of ports", minimum=0, default=0)
            Required("id", "kind")

        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Inspect the devices of a site"):
                Tags("network")
                with Tool("list_devices", "List devices on a site", title="List devices"):
                    Tags("read")
                    Annotations(read_only=True, idempotent=True)
                    with Args():
                        Attribute("site_id", String, "Site identifier", min_length=1)
                        Attribute("user_id", String, "The calling user")
                        Attribute("limit", Int, "Maximum", minimum=1, maximum=100, default=20)
                        with Attribute("filter", Object, "Filters"):
                            Attribute("state", String, "Device state", enum=["up", "down"])
                        Required("site_id", "user_id")
                        Example({"site_id": "s1", "limit": 5})
                    with Return():
                        Attribute("devices", ArrayOf(Device, max_items=100), "Matching devices")
                        Required("devices")
                    Inject("user_id")
                    BoundedResult()
                    ServerData("timings", MapOf(String, Float), "Query timings", default="off")
        """,
    )
    design = evaluate([str(path)])
    assert [s.name for s in design.services] == ["assistant"]
    assert list(design.types) == ["Device"]
    (tool,) = design.tools()
    assert tool.id == "assistant.devices.list_devices"
    assert tool.tags == ("network", "read")
    assert tool.injected == ("user_id",)
    assert tool.binding is None
    assert [sd.kind for sd in tool.server_data] == ["timings"]
    payload, result = tool.payload.type, tool.result.type
    assert isinstance(payload, ObjectType) and isinstance(result, ObjectType)
    assert [f.name for f in payload.shape.fields] == ["site_id", "user_id", "limit", "filter"]
    result_fields = {f.name for f in result.shape.fields}
    assert {"devices", "returned", "truncated"} <= result_fields


# ── values that are not JSON data ─────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        pytest.param(
            'Attribute("v", Float, "A number", default=float("nan"))',
            "default= must be JSON data: nan is not a finite number",
            id="nan-default",
        ),
        pytest.param(
            'Attribute("v", Float, "A number", example=float("-inf"))',
            "example= must be JSON data: -inf is not a finite number",
            id="infinite-example",
        ),
        pytest.param(
            'Attribute("v", Float, "A number", enum=[1.5, float("nan")])',
            "enum= values must be JSON data: nan is not a finite number",
            id="nan-in-enum",
        ),
        pytest.param(
            'Attribute("v", Float, "A number", maximum=float("inf"))',
            "maximum= must be a finite number, got inf",
            id="infinite-maximum",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", default=object())',
            "default= must be JSON data: object <object object at",
            id="object-default",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", example={1, 2})',
            "example= must be JSON data: set {1, 2} is not a JSON value",
            id="set-example",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", default=b"raw")',
            "default= must be JSON data: bytes b'raw' is not a JSON value",
            id="bytes-default",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", default=1j)',
            "default= must be JSON data: complex 1j is not a JSON value",
            id="complex-default",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", default={1: 2})',
            "default= must be JSON data: object keys must be strings, got 1",
            id="int-key",
        ),
        pytest.param(
            'Attribute("v", Any, "Anything", default={"k": [1, float("inf")]})',
            "default= must be JSON data: at ['k'][1]: inf is not a finite number",
            id="nested-infinity",
        ),
    ],
)
def test_values_that_are_not_json_data(
    write_design: WriteDesign, attribute: str, fragment: str
) -> None:
    issue = attribute_issue(write_design, attribute, fragment)
    assert issue.path == f'{ARGS} › "v"'


def test_an_example_that_is_not_json_data(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            f"""\
            Attribute("v", Float, "A number")
            Example({{"v": float("nan")}})  {ERROR}
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "Example must be JSON data: at ['v']: nan is not a finite number")
    assert_at(issue, path)


def test_non_json_values_are_exit_2_not_a_traceback(
    tmp_path: Path, write_design: WriteDesign, capsys: pytest.CaptureFixture[str]
) -> None:
    from tooldesign.cli import main

    path = write_design(
        args_design(
            """\
            Attribute("a", Float, "A number", default=float("nan"))
            Attribute("b", Any, "Anything", default={1: 2})
            Attribute("c", Any, "Anything", example=object())
            """
        ),
    )
    assert main(["gen", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "the design has 3 errors" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_tuples_are_json_arrays(write_design: WriteDesign) -> None:
    path = write_design(
        args_design('Attribute("v", ArrayOf(Int), "Numbers", default=(1, 2), example=(3,))'),
    )
    (tool,) = evaluate([str(path)]).tools()
    assert isinstance(tool.payload.type, ObjectType)
    (field,) = tool.payload.type.shape.fields
    assert (field.default, field.example) == ([1, 2], [3])


# ── ranges no value can satisfy ───────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("attribute", "fragment"),
    [
        pytest.param(
            'Attribute("value", Float, "A number", exclusive_minimum=5, exclusive_maximum=5)',
            "no number satisfies exclusive_minimum=5 and exclusive_maximum=5",
            id="equal-exclusive-bounds",
        ),
        pytest.param(
            'Attribute("value", Float, "A number", minimum=5, exclusive_maximum=5)',
            "no number satisfies minimum=5 and exclusive_maximum=5",
            id="minimum-at-exclusive-maximum",
        ),
        pytest.param(
            'Attribute("value", Int, "A count", exclusive_minimum=4, exclusive_maximum=5)',
            "no integer satisfies exclusive_minimum=4 and exclusive_maximum=5",
            id="no-integer-between",
        ),
        pytest.param(
            'Attribute("value", Int, "A count", minimum=1.5, maximum=1.9)',
            "no integer satisfies minimum=1.5 and maximum=1.9",
            id="no-integer-within",
        ),
        pytest.param(
            'Attribute("value", Float, "A number", exclusive_minimum=6, exclusive_maximum=5)',
            "exclusive_minimum=6 is greater than exclusive_maximum=5",
            id="exclusive-bounds-reversed",
        ),
    ],
)
def test_empty_ranges(write_design: WriteDesign, attribute: str, fragment: str) -> None:
    attribute_issue(write_design, attribute, fragment)


@pytest.mark.parametrize(
    "attribute",
    [
        'Attribute("value", Float, "A number", exclusive_minimum=4, exclusive_maximum=5)',
        'Attribute("value", Float, "A number", minimum=5, maximum=5)',
        'Attribute("value", Int, "A count", exclusive_minimum=3, exclusive_maximum=5)',
    ],
)
def test_ranges_with_room_are_fine(write_design: WriteDesign, attribute: str) -> None:
    evaluate([str(write_design(args_design(attribute)))])


# ── errors inside elements whose names are rejected are reported too ─────────────────────


def _issue_lines(path: Path) -> list[tuple[int, str]]:
    return [
        (issue.location.line if issue.location else 0, issue.message)
        for issue in design_issues(path)
    ]


def _assert_issues_at(path: Path, expected: list[tuple[str, str]]) -> None:
    """The design at ``path`` reports one issue per ``(marker, fragment)`` of ``expected``, in
    order: on the line marked ``# <-- marker``, mentioning ``fragment``."""
    lines = _issue_lines(path)
    assert len(lines) == len(expected), lines
    for (line, message), (marker, fragment) in zip(lines, expected, strict=True):
        assert line == line_of(path, f"# <-- {marker}") and fragment in message, lines


def test_errors_inside_a_badly_named_toolset_are_reported(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("bad name!", "Spaces are not allowed"):  # <-- group name
                with Tool("bad tool!", "Neither here"):  # <-- tool name
                    with Args():
                        Attribute("limit", Int, "Maximum", minimum=9, maximum=1)  # <-- bounds
                        Attribute("kind", "Nope", "Unknown type")  # <-- type
                        Required("nope")  # <-- required
        """,
    )
    _assert_issues_at(
        path,
        [
            ("group name", "toolset name 'bad name!' must match"),
            ("tool name", "tool name 'bad tool!'"),
            ("bounds", "minimum=9 is greater than maximum=1"),
            ("type", "unknown type 'Nope'"),
            ("required", "Required names unknown attribute 'nope'"),
        ],
    )


def test_errors_inside_a_repeated_service_and_toolset_are_reported(
    write_design: WriteDesign,
) -> None:
    path = write_design(
        """\
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Devices"):
                with Tool("ping", "Ping"):
                    pass
            with Toolset("devices", "Devices again"):  # <-- repeated
                with Tool("pong", "Pong"):
                    with Args():
                        Attribute("n", Int, "A number", minimum=2, maximum=1)  # <-- inner
        with Service("assistant", "Again"):  # <-- service
            with Toolset("sites", "Sites"):
                with Tool("pang", "Pang"):
                    with Args():
                        Attribute("s", String, "Text", min_length=3, max_length=1)  # <-- deep
        """,
    )
    lines = _issue_lines(path)
    markers = ["repeated", "inner", "service", "deep"]
    assert [line for line, _ in lines] == [line_of(path, f"# <-- {m}") for m in markers], lines


def test_errors_inside_a_repeated_type_and_attribute_are_reported(
    write_design: WriteDesign,
) -> None:
    path = write_design(
        """\
        with Type("T", "A type"):
            Attribute("x", String, "X")
        with Type("T", "The same name again"):  # <-- type
            Attribute("y", String, "Y")
            Attribute("y", Int, "Y again", minimum=3, maximum=1)  # <-- attribute
            with Attribute("z", Object, "An object"):
                Attribute("w", "Unknown", "W")  # <-- inner
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Devices"):
                with Tool("ping", "Ping"):
                    with Args():
                        Attribute("a", String, "A")
                        Attribute("a", ArrayOf(String, min_items=3, max_items=1), "A")  # <-- dup
                        Attribute(7, Float, "A number", minimum=2, maximum=1)  # <-- name
        """,
    )
    _assert_issues_at(
        path,
        [
            ("type", "duplicate type name 'T'"),
            ("attribute", "duplicate attribute name 'y'"),
            ("attribute", "minimum=3 is greater than maximum=1"),
            ("inner", "unknown type 'Unknown'"),
            ("dup", "duplicate attribute name 'a'"),
            ("dup", "min_items=3 is greater than max_items=1"),
            ("name", "attribute name must be a string, got 7"),
            ("name", "minimum=2 is greater than maximum=1"),
        ],
    )


def test_errors_are_listed_in_design_line_order(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Type("Device", "A device"):
            Attribute("id", String, "Id", pattern="([")
            Attribute("kind", "Knd", "Kind")
        with Service("assistant", "Network operations assistant"):
            with Toolset("devices", "Devices"):
                with Tool("ping", "Ping"):
                    with Args():
                        Attribute("n", Int, "N", minimum=3, maximum=1)
                        Attribute("m", "Mystery", "M")
                        Required("gone")
        Attribute("stray", String, "Outside any block")
        """,
    )
    lines = [line for line, _ in _issue_lines(path)]
    assert len(lines) == 6 and lines == sorted(lines)
