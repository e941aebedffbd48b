"""``Prompt``, ``Resource``, ``ResourceTemplate`` and ``Completes`` in designs: what the IR
keeps of them, and the design errors they give, each at its line and naming the element."""

from __future__ import annotations

import pytest
from tooldesign.eval.evaluate import evaluate

from tests.support.design import WriteDesign, assert_at, single_issue


def design(content: str) -> str:
    body = "\n".join("        " + line for line in content.strip("\n").splitlines())
    return f"""\
with Service("svc", "A service"):
    with Toolset("sites", "Sites"):
        with Tool("get_site", "Get a site"):
            with Args():
                Attribute("site_id", String, "The site")
            Return(String, "The site")
{body}
"""


GOOD = """
with Prompt("triage", "Triage a site", template="Look at {site_id} ({depth})"):
    with Args():
        Attribute("site_id", String, "The site", min_length=1)
        Attribute("depth", String, "How far", enum=["quick", "thorough"], default="quick")
        Required("site_id")
    Completes()
with Resource("netops://sites", "sites", "Every site", mime_type="application/json"):
    pass
with ResourceTemplate("docs://{kind}/{doc_id}", "document", "A document"):
    with Args():
        Attribute("kind", String, "Which", enum=["runbooks", "articles"])
        Attribute("doc_id", String, "The id")
"""


def test_the_ir_keeps_prompts_resources_and_templates(write_design: WriteDesign) -> None:
    [service] = evaluate([str(write_design(design(GOOD)))]).services
    prompt, resource, template = service.toolsets[0].content
    assert (prompt.kind, prompt.name, prompt.class_name) == ("prompt", "triage", "TriageArguments")
    assert prompt.template == "Look at {site_id} ({depth})" and prompt.completes
    site_id, depth = prompt.arguments
    assert site_id.required and site_id.constraints.min_length == 1
    assert depth.constraints.enum == ("quick", "thorough") and depth.default == "quick"
    assert (resource.kind, resource.uri, resource.mime_type) == (
        "resource",
        "netops://sites",
        "application/json",
    )
    assert (template.kind, template.uri, template.class_name) == (
        "template",
        "docs://{kind}/{doc_id}",
        "DocumentParameters",
    )
    assert [f.name for f in template.arguments] == ["kind", "doc_id"]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            (
                'with ResourceTemplate("docs://{kind}/{doc_id}", "d", "D"):  # <-- error\n'
                '    with Args():\n        Attribute("kind", String, "K")'
            ),
            "resource template variable {doc_id} of 'docs://{kind}/{doc_id}' has no attribute",
        ),
        (
            (
                'with ResourceTemplate("docs://{kind}", "d", "D"):\n'
                "    with Args():\n"
                '        Attribute("kind", String, "K")\n'
                '        Attribute("extra", String, "E")  # <-- error'
            ),
            "attribute 'extra' is not a variable of resource template 'docs://{kind}'",
        ),
        (
            'with Resource("not a uri", "r", "R"):  # <-- error\n    pass',
            "resource URI 'not a uri' is not a URI",
        ),
        (
            'with Resource("docs://{x}", "r", "R"):  # <-- error\n    pass',
            "has a template variable: declare a ResourceTemplate",
        ),
        (
            'with Prompt("p", "P", template="Hi {who}"):  # <-- error\n    pass',
            "prompt template placeholder {who} is not an argument (it has none)",
        ),
        (
            'with Prompt("p", "P"):\n    pass\nwith Prompt("p", "Q"):  # <-- error\n    pass',
            "duplicate prompt name 'p' (first declared at",
        ),
        (
            (
                'with Prompt("p", "P"):\n    with Args():\n'
                '        Attribute("tags", ArrayOf(String), "T")  # <-- error'
            ),
            "argument 'tags' of a prompt must be a String, Int, Float or Boolean",
        ),
        (
            (
                'with Resource("a://b", "r", "R"):\n    with Args():  # <-- error\n'
                '        Attribute("x", String, "X")'
            ),
            "a Resource has a fixed URI and takes no Args",
        ),
        (
            (
                'with Prompt("p", "P", template="{x}"):  # <-- error\n    with Args():\n'
                '        Attribute("x", String, "X")'
            ),
            "names an optional argument without a default",
        ),
    ],
)
def test_design_errors_name_the_element_and_line(
    write_design: WriteDesign, content: str, fragment: str
) -> None:
    path = write_design(design(content))
    issue = single_issue(path)
    assert fragment in issue.message, issue.message
    assert_at(issue, path)
    assert 'toolset "sites" ›' in issue.path


def test_content_outside_a_toolset_is_misplaced(write_design: WriteDesign) -> None:
    path = write_design(
        'with Service("svc", "S"):\n'
        '    with Prompt("p", "P"):  # <-- error\n'
        "        pass\n"
        '    with Toolset("t", "T"):\n'
        '        with Tool("x", "X"):\n'
        '            Return(String, "R")\n'
    )
    issue = single_issue(path)
    assert "Prompt must be called inside a Toolset block" in issue.message
    assert_at(issue, path)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            'with Prompt("p", "P"):\n    Return(String, "R")  # <-- error',
            "Return must be called inside a Tool block",
        ),
        (
            'with Prompt("p", "P"):\n    Completes()\n    Completes()  # <-- error',
            "Completes is declared more than once in this prompt",
        ),
        (
            'with Resource("a://b", "r", "R"):\n    Completes()  # <-- error',
            "Completes must be called inside a Prompt or ResourceTemplate block",
        ),
        (
            'with Prompt("p", "P", template="Hi"):\n    BindTo("platform:python_version")  # <-- error',
            "a prompt renders its template or the function it is bound to, not both",
        ),
        (
            'with Resource("a://b", "r", "R"):\n    BindTo("pathlib:Path.cwd")  # <-- error',
            "pathlib:Path.cwd is a method; bind a prompt or resource to a module-level function",
        ),
        (
            'with Prompt("p", "P"):\n    Completes("platform:nothing_here")  # <-- error',
            "Completes target platform:nothing_here is not importable",
        ),
        (
            'with Resource("a://b", "r", "R", mime_type="json"):  # <-- error\n    pass',
            "mime_type 'json' is not a media type",
        ),
        (
            'with ResourceTemplate("docs://{a b}", "d", "D"):  # <-- error\n    pass',
            "is not a URI template of simple variables",
        ),
    ],
)
def test_calls_inside_content_blocks_are_checked(
    write_design: WriteDesign, content: str, fragment: str
) -> None:
    path = write_design(design(content))
    issue = single_issue(path)
    assert fragment in issue.message, issue.message
    assert_at(issue, path)


def test_an_mcp_toolset_serves_no_designed_content(write_design: WriteDesign) -> None:
    path = write_design(
        'with Service("svc", "S"):\n'
        '    with MCPToolset("remote", "R", server="https://mcp.example/mcp"):\n'
        '        with Tool("ask", "Ask"):\n'
        '            Return(String, "A")\n'
        '        Resource("a://b", "r", "R")  # <-- error\n'
    )
    issue = single_issue(path)
    assert "an MCPToolset's tools run on its server" in issue.message
    assert_at(issue, path)


def test_a_bound_prompt_and_completer_are_kept(write_design: WriteDesign) -> None:
    path = write_design(
        design(
            'with Prompt("p", "P"):\n'
            '    BindTo("platform:python_version")\n'
            '    Completes("platform:system")'
        )
    )
    [service] = evaluate([str(path)]).services
    [prompt] = service.toolsets[0].content
    assert prompt.binding is not None and prompt.binding.qualname == "python_version"
    assert prompt.completer is not None and prompt.completer.module == "platform"


def test_elements_whose_handlers_share_a_name_are_refused(write_design: WriteDesign) -> None:
    path = write_design(
        'with Service("svc", "S"):\n'
        '    with Toolset("a", "A"):\n'
        '        with Tool("x", "X"):\n'
        '            Return(String, "R")\n'
        '        Prompt("index", "P")\n'
        '    with Toolset("b", "B"):\n'
        '        with Tool("y", "Y"):\n'
        '            Return(String, "R")\n'
        '        Resource("kb://index", "index", "R")  # <-- error\n'
    )
    issue = single_issue(path)
    assert "resource 'index' and prompt 'index' (declared at" in issue.message
    assert "name the same generated handler (index)" in issue.message
    assert_at(issue, path)


def test_a_prompt_that_asks_keeps_whom_it_asks(write_design: WriteDesign) -> None:
    path = write_design(
        design('with Prompt("p", "P"):\n    Asks("user", "model")\n    BindTo("platform:system")')
    )
    [service] = evaluate([str(path)]).services
    [prompt] = service.toolsets[0].content
    assert prompt.asks == ("user", "model")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            'with Prompt("p", "P", template="Hi"):\n    Asks("user")  # <-- error',
            "a prompt rendered from its template asks nobody: bind it to a function that asks",
        ),
        (
            'with Prompt("p", "P"):\n    Asks("everyone")  # <-- error',
            "Asks takes 'user', 'model', 'roots', not 'everyone'",
        ),
        (
            'with Prompt("p", "P"):\n    Asks("user")\n    Asks("model")  # <-- error',
            "Asks is declared more than once",
        ),
        (
            'with Resource("a://b", "r", "R"):\n    Asks("user")  # <-- error',
            "Asks",
        ),
    ],
)
def test_asks_in_content_is_checked(write_design: WriteDesign, content: str, fragment: str) -> None:
    path = write_design(design(content))
    issue = single_issue(path)
    assert fragment in issue.message, issue.message
    assert_at(issue, path)
