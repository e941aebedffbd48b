"""Targets: each client's rules (schema forms, name budgets) and their check at ``gen`` time."""

from __future__ import annotations

import copy
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tooldesign.cli import main
from tooldesign.codegen.targets import target_check
from tooldesign.contract.errors import UserError
from tooldesign.generate import generate
from tooldesign.ir.errors import DesignError
from tooldesign.runtime.providers.targets import TARGETS, by_tool, check_targets, parse_targets

from tests.support import REPO

CATALOG = REPO / "gen" / "assistant" / "tool_schemas.json"
DOCS = REPO / "docs" / "governance.md"


def worked_example() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(CATALOG.read_text())["tools"]
    return tools


def tool(name: str, **changes: Any) -> dict[str, Any]:
    """A copy of the worked example's ``get_site`` under another name (its id keeps the name's
    letters and digits: ids are dotted, names from elsewhere may hold dots)."""
    [base] = [t for t in worked_example() if t["name"] == "get_site"]
    entry = copy.deepcopy(base)
    entry.update(id=f"assistant.sites.{_id_part(name)}", name=name, **changes)
    return entry


def _id_part(name: str) -> str:
    return "t_" + "".join(c if c.isalnum() else f"x{ord(c):x}" for c in name)


def messages(server: str, tools: list[dict[str, Any]], target: str) -> list[str]:
    return [p.message for p in check_targets(server, tools, [target])]


# ── name budgets ──────────────────────────────────────────────────────────────────────────


def test_claude_code_takes_mcp__server__tool_up_to_64_characters() -> None:
    server = "s" * 20  # mcp__ + 20 + __ = 27 characters before the tool's name
    assert messages(server, [tool("t" * 37)], "claude-code") == []
    [message] = messages(server, [tool("t" * 38)], "claude-code")
    assert f"'mcp__{server}__{'t' * 38}', 65 characters, over its limit of 64 by 1" in message


def test_claude_code_refuses_a_dotted_server_name_and_tools_that_collide_once_normalised() -> None:
    found = check_targets("net.ops", [tool("a_b"), tool("a-b"), tool("a.b")], ["claude-code"])
    assert [(p.tool, p.message.split(":")[0]) for p in found] == [
        (None, "refuses the server name 'net.ops'"),
        ("assistant.sites.t_ax2eb", "cannot tell it from 'a_b'"),
    ]


def test_cursor_filters_combined_names_of_60_characters_and_more() -> None:
    assert messages("svc", [tool("t" * 56)], "cursor") == []
    [message] = messages("svc", [tool("t" * 57)], "cursor")
    assert "server and tool names together are 60 characters" in message


@pytest.mark.parametrize("name", ["list-devices", "devices.list"])
def test_cursor_takes_letters_digits_and_underscores_only(name: str) -> None:
    [message] = messages("svc", [tool(name)], "cursor")
    assert "letters, digits and '_' only" in message


def test_claude_desktop_refuses_dots_and_names_over_64() -> None:
    assert messages("svc", [tool("get_site")], "claude-desktop") == []
    assert len(messages("svc", [tool("a.b"), tool("x" * 65)], "claude-desktop")) == 2


def test_provider_name_rules_come_from_the_exports() -> None:
    assert len(messages("svc", [tool("x" * 65)], "openai")) == 1
    assert messages("svc", [tool("x" * 65)], "anthropic") == []
    assert len(messages("svc", [tool("a.b")], "openai")) == 1
    assert messages("svc", [tool("a.b")], "gemini") == []


def test_openai_takes_at_most_128_tools_a_request() -> None:
    tools = [tool(f"t{n}") for n in range(129)]
    [problem] = [p for p in check_targets("svc", tools, ["openai"]) if p.tool is None]
    assert "at most 128 tools in a request; the service has 129" in problem.message
    assert check_targets("svc", tools[:128], ["openai"]) == []


# ── what a schema form cannot express ─────────────────────────────────────────────────────


def test_maps_are_inexpressible_in_strict_modes_and_gemini_parameters() -> None:
    found = by_tool(check_targets("assistant", worked_example(), list(TARGETS)))
    assert set(found) == {"assistant.profiles.update_preferences"}
    per_target = found["assistant.profiles.update_preferences"]
    assert set(per_target) == {"openai-strict", "anthropic-strict", "gemini"}
    for target_messages in per_target.values():
        assert "field 'preferences'" in target_messages[0]
        assert "free-form keys (a map)" in target_messages[0]


def test_recursion_is_inexpressible_in_gemini_parameters_and_anthropic_strict() -> None:
    recursive = tool(
        "walk",
        payload={
            "name": "WalkPayload",
            "schema": {
                "type": "object",
                "properties": {
                    "node": {"$ref": "#/$defs/Node"},
                },
                "required": ["node"],
                "additionalProperties": False,
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        },
                        "required": ["name", "children"],
                        "additionalProperties": False,
                    }
                },
            },
        },
    )
    found = by_tool(check_targets("svc", [recursive], list(TARGETS)))
    assert set(found) == {"assistant.sites.t_walk"}
    assert set(found["assistant.sites.t_walk"]) == {"gemini", "anthropic-strict"}
    assert "recurs" in found["assistant.sites.t_walk"]["gemini"][0]


# ── naming targets ────────────────────────────────────────────────────────────────────────


def test_targets_are_parsed_and_checked() -> None:
    assert parse_targets(" cursor, claude-code,cursor,, ") == ("cursor", "claude-code")
    with pytest.raises(UserError, match="unknown target 'claude'; the targets are: openai, "):
        parse_targets("claude")


def test_the_docs_list_every_target_in_the_rules_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("## Targets", 1)[1]
    listed = re.findall(r"^\| `([a-z-]+)` \|", table, re.MULTILINE)
    assert listed == list(TARGETS)


# ── at generation ─────────────────────────────────────────────────────────────────────────

DESIGN = """\
from tooldesign.dsl import Args, Attribute, MapOf, Required, Return, Service, String, Tool, Toolset

with Service("netops", "Network operations"):
    with Toolset("inventory", "Devices"):
        with Tool("list_devices", "List devices"):
            with Args():
                Attribute("site", String, "Site")
            with Return():
                Attribute("names", String, "Names")
        with Tool("set_labels", "Set labels"):  # <-- map
            with Args():
                Attribute("labels", MapOf(String, String), "Labels")
                Required("labels")
            with Return():
                Attribute("ok", String, "Done")
"""


@pytest.fixture
def design(tmp_path: Path) -> Path:
    path = tmp_path / "design.py"
    path.write_text(textwrap.dedent(DESIGN), encoding="utf-8")
    return path


def line_of(path: Path, marker: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if marker in text)


def test_targets_on_the_command_line_are_notices_with_the_design_line(
    design: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gen"
    code = main(["gen", str(design), "--out", str(out), "--targets", "openai-strict,cursor"])
    _, err = capsys.readouterr()
    assert code == 0
    assert (out / "netops" / "tool_schemas.json").is_file()  # generation went on
    line = line_of(design, "<-- map")
    assert (
        f'design.py:{line}: service "netops" › toolset "inventory" › tool "set_labels": '
        "OpenAI (strict mode) (openai-strict) cannot express it in strict mode: field 'labels'"
    ) in err
    assert err.count("tooldesign: notice:") == 1  # Cursor takes both names


def test_the_server_name_counts_in_name_budgets(
    design: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["gen", str(design), "--out", str(tmp_path / "gen"), "--targets", "cursor"]
    assert main([*argv, "--server-name", "x" * 48]) == 0
    _, err = capsys.readouterr()
    assert 'tool "list_devices": Cursor (cursor) filters it out: server and tool names ' in err
    assert "together are 60 characters" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--targets", "openai,claude"], "unknown target 'claude'"),
        (["--server-name", "svc"], "--server-name is read by --targets"),
    ],
)
def test_target_usage_errors_write_nothing(
    design: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    out = tmp_path / "gen"
    assert main(["gen", str(design), "--out", str(out), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def declaring(design: Path, targets: str) -> Path:
    """``design`` with ``Targets(...)`` declared in its service."""
    text = design.read_text(encoding="utf-8").replace(
        'with Service("netops", "Network operations"):',
        f'with Service("netops", "Network operations"):\n    Targets({targets})  # <-- targets',
    )
    design.write_text(text.replace("Service, String", "Service, String, Targets"), "utf-8")
    return design


def test_targets_a_design_declares_are_design_errors_and_nothing_is_written(
    design: Path, tmp_path: Path
) -> None:
    out = tmp_path / "gen"
    declaring(design, '"gemini", "claude-code"')
    with pytest.raises(DesignError) as caught:
        generate([str(design)], out)
    [issue] = caught.value.issues
    assert issue.location is not None and issue.location.line == line_of(design, "<-- map")
    assert issue.message.startswith("Gemini (gemini) cannot express it in its OpenAPI parameters")
    assert not out.exists()


def test_a_target_both_declared_and_asked_for_is_an_error_once(design: Path) -> None:
    from tooldesign.eval.evaluate import evaluate

    declaring(design, '"gemini"')
    with pytest.raises(DesignError) as caught:
        target_check(["gemini"])(evaluate([str(design)]))
    assert len(caught.value.issues) == 1


def test_declared_targets_count_the_server_name_the_design_gives(
    design: Path, tmp_path: Path
) -> None:
    declaring(design, '"cursor", server="' + "x" * 48 + '"')
    with pytest.raises(DesignError) as caught:
        generate([str(design)], tmp_path / "gen")
    [issue] = caught.value.issues
    assert "Cursor (cursor) filters it out: server and tool names together are 60" in issue.message


def test_an_unknown_declared_target_is_a_design_error_at_its_line(
    design: Path, tmp_path: Path
) -> None:
    declaring(design, '"gemini-strict"')
    with pytest.raises(DesignError) as caught:
        generate([str(design)], tmp_path / "gen")
    [issue] = caught.value.issues
    assert issue.location is not None and issue.location.line == line_of(design, "<-- targets")
    assert issue.message.startswith("unknown target 'gemini-strict'; the targets are: ")
