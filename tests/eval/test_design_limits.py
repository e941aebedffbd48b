"""Designs that used to get past evaluation and break later: names Python or a file system reads
differently from the design, text UTF-8 cannot encode, types nested past what the toolchain
handles, patterns whose own example makes a backtracking engine hang, and one tool name in two
services. Each is a design error at its line, or a name changed with a notice."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.generate import generate

from tests.eval.test_design_errors import (
    ERROR,
    FIRST,
    args_design,
    assert_at,
    assert_mentions,
    attribute_issue,
    design_issues,
    line_of,
    single_issue,
)
from tests.support import REPO, run_cli
from tests.support.design import WriteDesign
from tests.support.generated import Generated

# ── names matched whole ─────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("service", "toolset", "tool", "kind"),
    [
        ("svc\n", "ts", "ping", "service"),
        ("svc", "ts\n", "ping", "toolset"),
        ("svc", "ts", "ping\n", "tool"),
    ],
)
def test_a_name_ending_in_a_newline_is_refused(
    write_design: WriteDesign, service: str, toolset: str, tool: str, kind: str
) -> None:
    path = write_design(
        f"""\
        with Service({service!r}, "A service"):  {ERROR if kind == "service" else ""}
            with Toolset({toolset!r}, "A toolset"):  {ERROR if kind == "toolset" else ""}
                with Tool({tool!r}, "A tool"):  {ERROR if kind == "tool" else ""}
                    pass
        """,
    )
    issue = single_issue(path)
    name = {"service": service, "toolset": toolset, "tool": tool}[kind]
    assert_mentions(issue, f"{kind} name {name!r}", "must match ^[A-Za-z0-9_-]{1,64}$")
    assert_at(issue, path)
    assert "\n" not in str(issue), "the element's name is shown escaped, on one line"


# ── names a case-insensitive file system would merge ────────────────────────────────────────


def test_services_differing_only_in_case_are_refused(write_design: WriteDesign) -> None:
    path = write_design(
        f"""\
        with Service("svc", "A service"):  {FIRST}
            pass
        with Service("Svc", "Another"):  {ERROR}
            pass
        """,
    )
    issue = single_issue(path)
    assert_mentions(
        issue,
        "service name 'Svc' differs from 'svc'",
        f"design.py:{line_of(path, FIRST)}",
        "only in case",
        "Svc/ and svc/",
    )
    assert_at(issue, path)


def test_toolsets_differing_only_in_case_once_sanitised_are_refused(
    write_design: WriteDesign,
) -> None:
    path = write_design(
        f"""\
        with Service("svc", "A service"):
            with Toolset("my-tools", "A toolset"):  {FIRST}
                with Tool("a", "A tool"):
                    pass
            with Toolset("My_Tools", "Another"):  {ERROR}
                with Tool("b", "A tool"):
                    pass
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "toolset name 'My_Tools' differs from 'my-tools'", "only in case")
    assert_at(issue, path)


# ── names Python reads in NFKC form ─────────────────────────────────────────────────────────

NORMALISED = {
    "ℌello": "Hello",  # a letterlike symbol
    "ﬁelds": "fields",  # a ligature
    "𝐦𝐨𝐝𝐞𝐥_𝐜𝐨𝐧𝐟𝐢𝐠": "field_model_config",  # mathematical bold: pydantic's model_config
    "ＢaseModel": "BaseModel_",  # fullwidth: the name types.py imports pydantic's class as
}


def test_attribute_names_python_normalises_keep_their_wire_names(
    gen_design: Callable[[str], Generated],
) -> None:
    attributes = "\n".join(
        f"                Attribute({name!r}, String, 'A value')" for name in NORMALISED
    )
    generated = gen_design(
        f"""
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("echo", "Echo"):
            with Args():
{attributes}
            Return(String, "The greeting")
"""
    )
    codecs = generated.module("svc.toolsets.ts.codecs")
    wire = {name: f"value of {name}" for name in NORMALISED}
    payload = codecs.decode_echo_payload(json.dumps(wire))
    assert {name: getattr(payload, ident) for name, ident in NORMALISED.items()} == wire
    assert payload.model_dump(by_alias=True) == wire
    spec = generated.module("svc.toolsets.ts.specs").ECHO_SPEC
    assert list(spec.payload.schema["properties"]) == list(NORMALISED)


def test_attribute_names_equal_once_normalised_collide(write_design: WriteDesign) -> None:
    path = write_design(
        args_design(
            f"""\
            Attribute("Hello", String, "A value")
            Attribute("ℌello", String, "Another")  {ERROR}
            """
        ),
    )
    issue = single_issue(path)
    assert_mentions(issue, "attribute name 'ℌello' collides with 'Hello'", "both become 'Hello'")
    assert_at(issue, path)


# ── service packages that would shadow a module ─────────────────────────────────────────────

SHADOWING = """
from tooldesign.dsl import *

for name in ("typing", "os", "pydantic", "typing_extensions", "tooldesign", "cgi"):
    with Service(name, "A service named like a module"):
        with Toolset("ts", "A toolset"):
            with Tool(f"ping_{name}", "Ping"):
                Return(String, "Pong")
"""


@pytest.mark.slow
def test_a_service_named_like_a_module_is_renamed_with_a_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "design.py"
    design.write_text(SHADOWING)
    out = tmp_path / "out"
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    names = ("typing", "os", "pydantic", "typing_extensions", "tooldesign", "cgi")
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(f"{n}_" for n in names)
    for name in names:
        assert (
            f"'{name}' is also the name of a module (of Python's standard library, or one "
            f"generated code imports), which its package would shadow: it is generated as "
            f"'{name}_', in {name}_/"
        ) in err
    # With the output folder importable, the modules are still the real ones.
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import typing, pydantic, os_.toolsets.ts.codecs as c; "
                "assert typing.__file__.endswith('typing.py'); "
                "print(c.encode_ping_os_result(c.specs.PING_OS_SPEC.result.model('x')))"
            ),
        ],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0 and check.stdout == '"x"\n', check.stderr


def test_a_service_named_like_a_bound_application_package_is_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "handlers.py").write_text("def ping() -> str:\n    return 'pong'\n")
    design = tmp_path / "design.py"
    design.write_text(
        textwrap.dedent(
            """
            from tooldesign.dsl import *

            with Service("shop", "Named like the application's package"):
                with Toolset("ts", "A toolset"):
                    with Tool("ping", "Ping"):
                        Return(String, "Pong")
                        BindTo("shop.handlers:ping")
            """
        )
    )
    code, err = run_cli(["gen", str(design), "--out", str(tmp_path / "out"), "--check"], capsys)
    assert code == 1, err
    assert "'shop' is also the name of a module" in err and "in shop_/" in err


# ── one tool name in two services ───────────────────────────────────────────────────────────


def test_a_tool_name_in_two_services_is_refused_with_both_lines(write_design: WriteDesign) -> None:
    path = write_design(
        f"""\
        with Service("billing", "Invoices"):
            with Toolset("invoices", "Invoices"):
                with Tool("lookup", "Find an invoice"):  {FIRST}
                    pass
        with Service("support", "Tickets"):
            with Toolset("tickets", "Tickets"):
                with Tool("lookup", "Find a ticket"):  {ERROR}
                    pass
        """,
    )
    issue = single_issue(path)
    assert_mentions(
        issue,
        "tool name 'lookup' is also used in service 'billing'",
        f"design.py:{line_of(path, FIRST)}",
        "unique across services",
    )
    assert_at(issue, path)


# ── text UTF-8 cannot encode ────────────────────────────────────────────────────────────────


def test_lone_surrogates_in_a_description_and_a_default_are_design_errors(
    tmp_path: Path, write_design: WriteDesign, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_design(
        args_design(f'Attribute("name", String, "Who \\ud800", default="x\\udfff")  {ERROR}'),
    )
    code, err = run_cli(["gen", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    line = f"design.py:{line_of(path, ERROR)}"
    assert (
        f"{line}: {TOOL_ARGS} › \"name\": description holds '\\ud800', a lone surrogate that "
        "UTF-8 cannot encode; text in a design must be valid Unicode"
    ) in err
    assert f"{line}: {TOOL_ARGS} › \"name\": default holds '\\udfff'" in err
    assert not (tmp_path / "out").exists()


TOOL_ARGS = 'service "assistant" › toolset "devices" › tool "list_devices" › args'


@pytest.mark.parametrize(
    ("attribute", "what"),
    [
        ('Attribute("n\\ud800", String, "A value")', "name"),
        ('Attribute("n", String, "A value", enum=["a", "\\ud800"])', "enum"),
        ('Attribute("n", String, "A value", example={"k\\ud800": 1})', "example"),
        ('Attribute("n", String, "A value", pattern="\\ud800")', "pattern"),
        ('Attribute("n", Any(schema={"description": "\\ud800"}), "A value")', "the type"),
        ('Attribute("n", ArrayOf("T\\ud800"), "A value")', "the type"),
    ],
)
def test_lone_surrogates_anywhere_are_reported_where_given(
    write_design: WriteDesign, attribute: str, what: str
) -> None:
    path = write_design(args_design(f"{attribute}  {ERROR}"))
    issues = [i for i in design_issues(path) if "lone surrogate" in i.message]
    assert len(issues) == 1, issues
    assert_mentions(issues[0], f"{what} holds '\\ud800', a lone surrogate")
    assert_at(issues[0], path)


# ── nesting ─────────────────────────────────────────────────────────────────────────────────

NESTED_OBJECTS = """
from tooldesign.dsl import *

def nest(n):
    if n == 0:
        Attribute("leaf", String, "The leaf")
        return
    with Attribute(f"a{n}", Object, "One level"):  # <-- error
        nest(n - 1)

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("deep", "Deep arguments"):
            with Args():
                nest(LEVELS)
            Return(String, "A greeting")
"""

NESTED_CONTAINERS = """
from tooldesign.dsl import *

kinds = [ArrayOf, lambda t: MapOf(String, t), lambda t: OneOf(t, Int)]
t = String
for i in range(LEVELS):
    t = kinds[i % 3](t)

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("deep", "Deep arguments"):
            with Args():
                Attribute("x", t, "Deep")  # <-- error
            Return(String, "A greeting")
"""


@pytest.mark.parametrize(
    ("source", "levels"),
    [
        pytest.param(NESTED_OBJECTS, 33, id="objects-33"),
        pytest.param(NESTED_OBJECTS, 120, id="objects-120"),
        pytest.param(NESTED_CONTAINERS, 33, id="mixed-33"),
        pytest.param(NESTED_CONTAINERS, 120, id="mixed-120"),
        pytest.param(NESTED_CONTAINERS, 3000, id="mixed-3000"),
    ],
)
def test_types_nested_too_deep_are_a_design_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, levels: int
) -> None:
    path = tmp_path / "design.py"
    path.write_text(source.replace("LEVELS", str(levels)))
    code, err = run_cli(["gen", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert err.count("types nest more than 32 levels deep here") == 1, err
    assert f"design.py:{line_of(path, ERROR)}: " in err


@pytest.mark.slow
@pytest.mark.parametrize("source", [NESTED_OBJECTS, NESTED_CONTAINERS], ids=["objects", "mixed"])
def test_types_nested_32_levels_generate_and_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    path = tmp_path / "design.py"
    path.write_text(source.replace("LEVELS", "32" if source is NESTED_OBJECTS else "31"))
    out = tmp_path / "out"
    code, err = run_cli(["gen", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    value: object = "leaf"
    if source is NESTED_OBJECTS:
        value = {"leaf": "x"}
        for level in range(1, 33):
            value = {f"a{level}": value}
    else:
        for i in range(31):
            value = [value] if i % 3 == 0 else {"k": value} if i % 3 == 1 else value
        value = {"x": value}
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import sys, svc.toolsets.ts.codecs as c; "
                "print(c.decode_deep_payload(sys.stdin.read()).model_dump_json(by_alias=True))"
            ),
        ],
        input=json.dumps(value),
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout) == value


NAMED_CHAIN = """
from tooldesign.dsl import *

previous = String
for level in range(LEVELS, 0, -1):
    with Type(f"Level{level}", f"Level {level}") as previous_type:  # <-- error
        Attribute("next", previous, "The next level")
    previous = previous_type

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("deep", "Deep arguments"):  # <-- tool
            with Args():
                Attribute("levels", ArrayOf(previous), "Deep arguments")
            Return(String, "A greeting")
"""


@pytest.mark.parametrize("levels", [65, 200, 3000])
def test_named_types_nested_too_deep_are_a_design_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], levels: int
) -> None:
    """Each Type holding the next: no inline expression is deep, the chain is. It is refused
    by name, never a RecursionError while the schemas are written."""
    path = tmp_path / "design.py"
    path.write_text(NAMED_CHAIN.replace("LEVELS", str(levels)))
    code, err = run_cli(["gen", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2, err
    # Reported once, where the chain gets too deep (the types it holds are within the limit).
    assert err.count("nests more than 64 levels deep") == 1, err
    where = levels - 64
    assert f"type 'Level{where}' nests more than 64 levels deep (Level{where} › " in err
    assert f"design.py:{line_of(path, ERROR)}: " in err


def test_arguments_that_nest_too_deep_on_named_types_are_a_design_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each type within the limit, the tool's arguments past it (an object holding a list of
    them): the tool is named."""
    path = tmp_path / "design.py"
    path.write_text(NAMED_CHAIN.replace("LEVELS", "64"))
    code, err = run_cli(["gen", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2, err
    assert "its arguments nest more than 64 levels deep (DeepPayload › [] › Level1 › …" in err
    assert f"design.py:{line_of(path, '# <-- tool')}: " in err


def test_named_types_nested_62_levels_generate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "design.py"
    path.write_text(NAMED_CHAIN.replace("LEVELS", "62"))
    code, err = run_cli(["gen", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err


def test_a_value_nested_too_deep_is_a_design_error(write_design: WriteDesign) -> None:
    attribute_issue(
        write_design,
        'Attribute("v", Any, "A value", example=__import__("functools").reduce('
        "lambda v, _: [v], range(5000), 1))",
        "example= must be JSON data",
        "lists and objects nest more than 32 levels deep",
    )


# ── patterns ────────────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
def test_a_pattern_its_own_example_defeats_is_checked_in_linear_time(
    tmp_path: Path, write_design: WriteDesign
) -> None:
    path = write_design(
        args_design(
            "Attribute('name', String, 'Who', pattern='(a+)+$', "
            f"example='aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')  {ERROR}"
        ),
    )
    # In a subprocess with a deadline: Python's re takes hours on this example.
    ran = subprocess.run(
        [sys.executable, "-m", "tooldesign.cli", "gen", str(path), "--out", str(tmp_path / "out")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 2
    assert f"design.py:{line_of(path, ERROR)}: " in ran.stderr
    assert "does not match '(a+)+$'" in ran.stderr


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(a)\1", "\\1 at 3 (a back-reference)"),
        (r"(?=a)a", "look-around at 0"),
        (r"(?<!a)b", "look-around at 0"),
        (r"\p{L}+", "\\p at 0 (a Unicode property, which each engine names differently)"),
        ("([", "unclosed character class"),  # not a regular expression: the engine says why
    ],
)
def test_a_pattern_the_linear_engine_or_python_cannot_read_is_refused(
    write_design: WriteDesign, pattern: str, problem: str
) -> None:
    attribute_issue(
        write_design,
        f"Attribute('name', String, 'Who', pattern={pattern!r})",
        f"pattern {pattern!r} cannot be used: {problem}",
        "a pattern is an ECMA-262 regular expression",
    )


def test_a_verbatim_schema_pattern_the_linear_engine_cannot_read_is_refused(
    write_design: WriteDesign,
) -> None:
    attribute_issue(
        write_design,
        "Attribute('v', Any(schema={'type': 'object', 'patternProperties': {'(?<=a)b': {}}}))",
        "Any(schema=...) has the pattern '(?<=a)b', which cannot be used: look-around",
    )


def test_design_values_are_matched_as_generated_models_match_them(
    tmp_path: Path, write_design: WriteDesign
) -> None:
    """``$`` ends the text for the Rust engine (and JSON Schema); Python's re also lets it match
    before a final newline, which would pass an example the model then refuses."""
    attribute_issue(
        write_design,
        "Attribute('code', String, 'A code', pattern='^[a-z]+$', example='abc\\n')",
        "example 'abc\\n' does not satisfy",
        "does not match '^[a-z]+$'",
    )
    design = write_design(
        args_design("Attribute('code', String, 'A code', pattern='^[a-z]+$', example='abc')"),
        name="fine.py",
    )
    generate([str(design)], tmp_path / "out")


def test_a_result_overflow_that_is_no_policy_is_refused_at_its_line(
    write_design: WriteDesign,
) -> None:
    path = write_design(
        f"""\
        with Service("svc", "A service"):
            with Toolset("ts", "A toolset"):
                with Tool("ping", "A tool"):
                    Return(String, "Pong")
                    Limits(result_overflow="truncate")  {ERROR}
        """,
    )
    issue = single_issue(path)
    assert_mentions(issue, "result_overflow", "'cut', 'refuse', 'spill'", "'truncate'")
    assert_at(issue, path)


def test_a_result_token_budget_reaches_the_tool(write_design: WriteDesign) -> None:
    from tooldesign.eval.evaluate import evaluate

    path = write_design(
        """\
        with Service("svc", "A service"):
            with Toolset("ts", "A toolset"):
                with Tool("ping", "A tool"):
                    Return(String, "Pong")
                    Limits(result_tokens=300, result_overflow="spill")
        """,
    )
    [tool] = [t for s in evaluate([str(path)]).services for ts in s.toolsets for t in ts.tools]
    assert tool.limits.given() == {"result_overflow": "spill", "result_tokens": 300}
