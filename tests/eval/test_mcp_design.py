"""``MCPToolset``, ``MCPServer`` and ``Any(schema=...)`` in designs: what they declare, and
the design errors they give, each at its line and element."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.runtime import ToolValidationError

from tests.support.design import WriteDesign, assert_at, single_issue
from tests.support.generated import Generated

TOOLSET = 'service "svc" › toolset "remote"'


def mcp_design(
    server: str, tool_body: str = 'Return(String, "The answer")', toolset: str = "MCPToolset"
) -> str:
    return f"""\
with Service("svc", "A service"):
    with {toolset}("remote", "Remote tools", server={server}):  # <-- error
        with Tool("ask", "Ask something"):
            {tool_body}
"""


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        ('"python -m weather"', {"command": ("python", "-m", "weather")}),
        ('["node", "srv.js", "--port=0"]', {"command": ("node", "srv.js", "--port=0")}),
        ('"https://mcp.example/mcp"', {"url": "https://mcp.example/mcp"}),
        (
            'MCPServer("uvx weather", env={"KEY": "v"}, cwd="/srv", timeout=5)',
            {"command": ("uvx", "weather"), "env": (("KEY", "v"),), "cwd": "/srv", "timeout": 5.0},
        ),
        (
            'MCPServer(url="http://localhost:9/mcp", headers={"Authorization": "Bearer t"})',
            {"url": "http://localhost:9/mcp", "headers": (("Authorization", "Bearer t"),)},
        ),
    ],
)
def test_the_server_is_a_command_a_url_or_mcp_server(
    write_design: WriteDesign, server: str, expected: dict[str, object]
) -> None:
    path = write_design(mcp_design(server))
    [service] = evaluate([str(path)]).services
    spec = service.toolsets[0].mcp
    assert spec is not None
    for key, value in expected.items():
        assert getattr(spec, key) == value


@pytest.mark.parametrize(
    ("server", "fragment"),
    [
        ("42", "server= must be a streamable-HTTP URL, a command line"),
        ('""', "server= must be a streamable-HTTP URL"),
        ("'python \"unclosed'", "server= must be a streamable-HTTP URL"),
        ('MCPServer("a", url="http://x")', "MCPServer needs a command (a stdio server) or url="),
        ('MCPServer(url="ftp://x")', "the MCP server URL must be http(s)://"),
        (
            'MCPServer(url="http://x/mcp", env={"A": "b"})',
            "MCPServer env= is a stdio server's only",
        ),
        (
            'MCPServer("srv", headers={"A": "b"})',
            "MCPServer headers= is a streamable-HTTP server's only",
        ),
        ('MCPServer("srv", timeout=0)', "MCPServer timeout= must be a positive number"),
        ('MCPServer("srv", env={"A": 1})', "MCPServer env= must map strings to strings"),
    ],
)
def test_a_server_that_cannot_work_is_a_design_error(
    write_design: WriteDesign, server: str, fragment: str
) -> None:
    path = write_design(mcp_design(server))
    issue = single_issue(path)
    assert fragment in issue.message, issue.message
    assert issue.path == TOOLSET
    assert_at(issue, path)


@pytest.mark.parametrize(
    ("body", "fragment", "element"),
    [
        ('BindTo("os:getcwd")  # <-- error', "BindTo has no place in an MCPToolset", "bind"),
        (
            'ServerData("x", String, "X")  # <-- error',
            "ServerData is not available for tools of an MCPToolset",
            'server_data "x"',
        ),
    ],
)
def test_what_a_remote_tool_cannot_do(
    write_design: WriteDesign, body: str, fragment: str, element: str
) -> None:
    path = write_design(
        mcp_design('"srv"', body).replace(
            "  # <-- error\n        with Tool", "\n        with Tool", 1
        ),
    )
    issue = single_issue(path)
    assert fragment in issue.message
    assert issue.path == f'{TOOLSET} › tool "ask" › {element}'
    assert_at(issue, path)


def test_remote_name_belongs_to_mcp_toolsets(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("svc", "A service"):
            with Toolset("local", "Local tools"):
                with Tool("ask", "Ask", remote_name="ask.v2"):  # <-- error
                    Return(String, "The answer")
        """,
    )
    issue = single_issue(path)
    assert "remote_name= applies to tools of an MCPToolset only" in issue.message
    assert_at(issue, path)


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ('{"type": "strng"}', "Any(schema=...) is not a valid JSON Schema 2020-12 (at type)"),
        ('{"$ref": "#/$defs/Thing"}', "Any(schema=...) must be self-contained: a $ref"),
        ('{"items": [{"$ref": "#"}]}', "Any(schema=...) is not a valid JSON Schema"),
        ('"text"', "Any(schema=...) takes a JSON Schema (an object)"),
        ('{"x": float("nan")}', "Any(schema=...) must be JSON data"),
    ],
)
def test_a_verbatim_schema_must_be_valid_and_self_contained(
    write_design: WriteDesign, schema: str, fragment: str
) -> None:
    path = write_design(
        f"""\
        with Service("svc", "A service"):
            with Toolset("local", "Local tools"):
                with Tool("ask", "Ask"):
                    with Args():
                        Attribute("q", Any(schema={schema}), "Q")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert fragment in issue.message, issue.message
    assert_at(issue, path)


def test_only_any_takes_a_schema(write_design: WriteDesign) -> None:
    path = write_design(
        """\
        with Service("svc", "A service"):
            with Toolset("local", "Local tools"):
                with Tool("ask", "Ask"):
                    with Args():
                        Attribute("q", String(schema={}), "Q")  # <-- error
        """,
    )
    issue = single_issue(path)
    assert "String takes no schema; only Any(schema=...) does" in issue.message
    assert_at(issue, path)


VERBATIM = """\
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("tags", "Tags"):
        with Tool("label", "Label things"):
            with Args():
                Attribute("target", String, "What to label")
                Attribute(
                    "labels",
                    Any(schema={"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer", "minimum": 0}}, "additionalProperties": False}),
                    "Labels by name",
                )
                Required("target", "labels")
                Example({"target": "t", "labels": {"a": 1}})
            Return(Any(schema={"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}), "A pair")
"""


def test_verbatim_parts_are_shown_as_they_are_and_checked_on_decode(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(VERBATIM)
    spec = generated.module("svc.toolsets.tags.specs").LABEL_SPEC
    labels = spec.payload.schema["properties"]["labels"]
    assert labels["patternProperties"] == {"^[a-z]+$": {"type": "integer", "minimum": 0}}
    assert labels["description"] == "Labels by name"
    codecs = generated.module("svc.toolsets.tags.codecs")
    codecs.decode_label_payload({"target": "t", "labels": {"ok": 2}})
    with pytest.raises(ToolValidationError) as caught:
        codecs.decode_label_payload('{"target": "t", "labels": {"ok": -1, "BAD": 1}}')
    issues = {(i.field, i.constraint) for i in caught.value.issues}
    assert issues == {("labels.ok", "invalid_range"), ("labels.BAD", "unknown_field")}
    assert codecs.LABEL_RESULT.coerce(["a", 1]).root == ["a", 1]
    with pytest.raises(ToolValidationError) as result_error:
        codecs.LABEL_RESULT.coerce(["a", "b"])
    assert result_error.value.kind == "result"


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        (
            (
                'MCPServer("uvx weather --units=\'metric\'", env={"API_KEY": "k\\"ey", "MODE": "ünï"}, '
                'cwd="/srv", timeout=7.5)'
            ),
            {
                "command": ("uvx", "weather", "--units=metric"),
                "env": {"API_KEY": 'k"ey', "MODE": "ünï"},
                "cwd": "/srv",
                "timeout": 7.5,
                "headers": {},
            },
        ),
        (
            (
                'MCPServer(url="https://mcp.example/mcp", headers={"Authorization": "Bearer t", '
                '"X-Tenant": "{{a}}"})'
            ),
            {
                "url": "https://mcp.example/mcp",
                "headers": {"Authorization": "Bearer t", "X-Tenant": "{{a}}"},
                "env": {},
            },
        ),
    ],
)
def test_generated_server_params_carry_env_and_headers(
    gen_design: Callable[[str], Generated], server: str, expected: dict[str, object]
) -> None:
    generated = gen_design("from tooldesign.dsl import *\n\n" + mcp_design(server))
    params = generated.module("svc.toolsets.remote.specs").MCP_SERVER
    for key, value in expected.items():
        assert getattr(params, key) == value, key
    executor = generated.module("svc.toolsets.remote.executor")
    assert executor.new_registration().toolset == "remote"


# ── header=: a tool argument mirrored in an Mcp-Param-* header ─────────────────────────────


def header_design(attributes: str, extra: str = "") -> str:
    return f"""\
{extra}
with Service("svc", "A service"):
    with Toolset("routes", "Routes"):
        with Tool("route", "Route a request"):
            with Args():
{attributes}
            Return(String, "Where it went")
"""


def test_a_header_is_kept_in_the_ir_and_the_input_schema(write_design: WriteDesign) -> None:
    path = write_design(
        header_design('                Attribute("region", String, "Where", header="Region")')
    )
    [tool] = list(evaluate([str(path)]).tools())
    [region] = tool.payload.type.shape.fields  # type: ignore[union-attr]
    assert region.header == "Region"


@pytest.mark.parametrize(
    ("attributes", "extra", "fragment"),
    [
        (
            'Attribute("ratio", Float, "A ratio", header="Ratio")  # <-- error',
            "",
            "header= mirrors a string, an integer or a boolean in an HTTP header; 'ratio' is Float",
        ),
        (
            'Attribute("tags", ArrayOf(String), "Tags", header="Tags")  # <-- error',
            "",
            "'tags' is ArrayOf(String)",
        ),
        (
            'Attribute("region", String, "Where", header="the region")  # <-- error',
            "",
            "header='the region' is no HTTP header name",
        ),
        (
            'Attribute("region", String, "Where", header=7)  # <-- error',
            "",
            "header= must be a string, got 7",
        ),
        (
            (
                'Attribute("a", String, "A", header="Region")\n'
                '                Attribute("b", String, "B", header="region")  # <-- error'
            ),
            "",
            "header='region' is already the header of 'a'",
        ),
        (
            (
                'with Attribute("where", Object, "Where"):\n'
                '                    Attribute("region", String, "R", header="Region")  # <-- error'
            ),
            "",
            "header= applies only to a tool's own arguments (the attributes of its Args block)",
        ),
        (
            'Attribute("place", Place, "Where")',
            (
                'with Type("Place", "A place") as Place:\n'
                '    Attribute("region", String, "R", header="Region")  # <-- error'
            ),
            "header= applies only to a tool's own arguments",
        ),
    ],
)
def test_a_header_the_extension_does_not_allow_is_a_design_error(
    write_design: WriteDesign, attributes: str, extra: str, fragment: str
) -> None:
    path = write_design(header_design(f"                {attributes}", extra))
    issue = single_issue(path)
    assert fragment in issue.message
    assert_at(issue, path)


def test_an_injected_argument_has_no_header(write_design: WriteDesign) -> None:
    path = write_design(
        """\
with Service("svc", "A service"):
    with Toolset("routes", "Routes"):
        with Tool("route", "Route a request"):
            with Args():
                Attribute("session_id", String, "The session", header="Session")  # <-- error
                Required("session_id")
            Return(String, "Where it went")
            Inject("session_id")
"""
    )
    issue = single_issue(path)
    assert "header= cannot mirror 'session_id': it is injected" in issue.message
    assert_at(issue, path)
