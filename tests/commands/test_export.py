"""``tooldesign export``: provider JSON or a prompt listing from catalogs, and clear failures."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from tooldesign.cli import main
from tooldesign.commands import export as export_command
from tooldesign.runtime.providers import PROVIDERS

from tests.support import REPO

GEN = str(REPO / "gen")


def export(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_gen_folder_exports_each_tool_once(capsys: pytest.CaptureFixture[str]) -> None:
    from mcp import types as mcp

    code, out, err = export(capsys, "--provider", "mcp", GEN)
    assert (code, err) == (0, "")
    tools = [mcp.Tool.model_validate(t) for t in json.loads(out)]
    assert len(tools) == 14
    assert len({t.name for t in tools}) == 14


def test_each_provider_and_shape(capsys: pytest.CaptureFixture[str]) -> None:
    from google.genai import types as genai

    docs = str(REPO / "gen" / "assistant" / "toolsets" / "docs" / "tool_schemas.json")
    _, out, _ = export(capsys, "--provider", "openai", "--strict", docs)
    assert {t["function"]["strict"] for t in json.loads(out)} == {True}
    _, out, _ = export(capsys, "--provider", "openai", "--api", "responses", docs)
    assert json.loads(out)[0]["type"] == "function" and "function" not in json.loads(out)[0]
    _, out, _ = export(capsys, "--provider", "anthropic", docs)
    assert json.loads(out)[0]["input_schema"]["type"] == "object"
    _, out, _ = export(capsys, "--provider", "gemini", docs)
    for entry in json.loads(out):
        genai.FunctionDeclaration.model_validate(entry)
    _, out, _ = export(capsys, "--provider", "gemini", "--api", "json_schema", docs)
    assert "parametersJsonSchema" in json.loads(out)[0]


def test_output_is_deterministic_and_written_to_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "deep" / "tools.json"
    assert export(capsys, "--provider", "openai", GEN, "--out", str(target))[0] == 0
    first = target.read_bytes()
    export(capsys, "--provider", "openai", GEN, "--out", str(target))
    assert target.read_bytes() == first
    _, out, _ = export(capsys, "--provider", "openai", GEN)
    assert out.encode() == first


def test_the_prompt_format_lists_tools_for_a_system_prompt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = export(capsys, "--format", "prompt", GEN)
    assert code == 0
    block = out.split("## list_devices: List devices\n")[1].split("\n\n")[0]
    assert block.splitlines() == [
        "List devices on a site",
        "Parameters:",
        "- site_id (string, required): Site identifier",
        '- status (string, optional): Filter by status. One of "online", "offline", "unknown"',
        "- limit (integer, optional, default 50): Maximum results. From 1 to 500",
        'Example: {"site_id": "hq", "status": "online", "limit": 20}',
    ]
    assert "session_id" not in out  # injected fields are not the model's
    topology = out.split("## get_topology\n")[1].split("\n\n")[0]
    assert "Type" not in topology  # its arguments refer to no type
    sites = out.split("## update_preferences\n")[1].split("\n\n")[0]
    assert "each value is a string, an integer or a boolean" in sites


def test_fallback_exports_strict_where_it_can_and_notes_the_rest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = export(capsys, "--provider", "openai", "--strict", "--fallback", GEN)
    assert code == 0
    strict = {t["function"]["name"]: t["function"].get("strict") for t in json.loads(out)}
    assert strict.pop("update_preferences") is None and set(strict.values()) == {True}
    assert err.startswith("tooldesign: note: 1 tool exported without strict mode, because of:\n")
    assert "tool 'update_preferences'" in err and "field 'preferences'" in err
    code, out, err = export(capsys, "--provider", "gemini", "--fallback", GEN)
    assert code == 0 and "1 tool exported as parametersJsonSchema" in err
    code, out, err = export(capsys, "--provider", "mcp", "--fallback", GEN)
    assert (code, out) == (2, "") and "fallback applies to strict exports" in err


SERVICE = """\
from tooldesign.dsl import *

with Service(SERVICE, "A service"):
    with Toolset("misc", "Odds and ends"):
        with Tool("noargs", "Takes nothing"):
            Return(String, "Done")
"""


def test_the_prompt_format_refuses_two_tools_a_model_could_not_tell_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tooldesign.generate import generate

    # Generated apart (generated together, the tool name in two services is a design error).
    folders = []
    for service in ("first", "second"):
        design = tmp_path / f"{service}.py"
        design.write_text(SERVICE.replace("SERVICE", repr(service)))
        generate([str(design)], tmp_path / service)
        folders.append(str(tmp_path / service))
    for args in (["--format", "prompt"], ["--provider", "mcp"]):
        code, out, err = export(capsys, *args, *folders)
        assert (code, out) == (2, "")
        assert (
            "tool 'noargs' (second.misc.noargs): 'first.misc.noargs' and 'second.misc.noargs' "
            "would both be called 'noargs'"
        ) in err
        assert "arguments" not in err  # the problem is the tool's name, not its arguments


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--format", "prompt", "--provider", "openai"],
            "--provider applies only to --format json (drop it)",
        ),
        (
            ["--format", "prompt", "--strict", "--api", "chat"],
            "--strict and --api apply only to --format json (drop them)",
        ),
        (["--strict"], "--format json needs --provider (openai, anthropic, gemini or mcp)"),
    ],
)
def test_options_that_mean_nothing_together_are_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = export(capsys, *args, GEN)
    assert (code, out) == (2, "")
    assert message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--provider", "openai", "missing.json"], "missing.json: no such file or folder"),
        (
            ["--provider", "openai", "--strict", GEN],
            "field 'preferences': an object with free-form keys",
        ),
        (["--provider", "gemini", "--strict", GEN], "gemini has no strict mode"),
        (
            ["--provider", "openai", "--api", "json_schema", GEN],
            "--api json_schema does not apply to openai (choices: chat, responses)",
        ),
    ],
)
def test_errors_are_clear_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = export(capsys, *args)
    assert code == 2 and out == ""
    assert message in err
    assert "Traceback" not in err


def test_every_provider_the_runtime_has_is_a_choice_of_provider() -> None:
    # The command line lists them itself, so that `tooldesign --help` does not load the runtime.
    assert export_command.PROVIDERS == PROVIDERS


def test_a_corrupt_catalog_or_an_empty_folder_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = export(capsys, "--provider", "mcp", str(tmp_path / "empty"))
    assert code == 2 and "no tool_schemas.json below this folder" in err
    bad = tmp_path / "tool_schemas.json"
    bad.write_text('{"version": "x", "tools": [')
    code, _, err = export(capsys, "--provider", "mcp", str(bad))
    assert code == 2 and "not a valid tool catalog" in err and "truncated or corrupt" in err


def test_an_out_file_that_cannot_be_written_is_an_error_and_keeps_what_was_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = export(capsys, "--provider", "mcp", GEN, "--out", str(tmp_path))
    assert code == 2 and f"{tmp_path}: is a folder; --out takes a file" in err
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be")
    code, _, err = export(capsys, "--provider", "mcp", GEN, "--out", str(blocker / "tools.json"))
    assert code == 2 and "cannot write the file" in err and "Traceback" not in err
    # A failed export (a map Gemini's parameters cannot take) leaves the previous file as it was.
    target = tmp_path / "tools.json"
    target.write_text("previous export")
    code, _, err = export(capsys, "--provider", "gemini", GEN, "--out", str(target))
    assert code == 2 and "update_preferences" in err
    assert target.read_text() == "previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "tools.json"]


def test_an_out_file_gets_the_usual_mode_and_a_replaced_one_keeps_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        assert export(capsys, "--provider", "mcp", GEN, "--out", str(fresh))[0] == 0
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # 0o666 less the umask
        shared = tmp_path / "shared.json"
        shared.write_text("previous export")
        shared.chmod(0o664)
        assert export(capsys, "--provider", "mcp", GEN, "--out", str(shared))[0] == 0
        assert stat.S_IMODE(shared.stat().st_mode) == 0o664
        assert shared.read_text() == fresh.read_text()
        # A link stays a link: the file it points to is what is replaced.
        link = tmp_path / "link.json"
        link.symlink_to(shared)
        assert export(capsys, "--provider", "openai", GEN, "--out", str(link))[0] == 0
        assert link.is_symlink() and '"function": {' in shared.read_text()
    finally:
        os.umask(umask)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "link.json", "shared.json"]


def test_a_design_given_for_a_catalog_is_told_to_generate_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    design = str(REPO / "design" / "assistant.py")
    code, out, err = export(capsys, "--provider", "openai", design)
    assert (code, out) == (2, "")
    assert err == (
        f"tooldesign: error: {design}: is a design file, not a tool catalog; generate the design "
        f"first (tooldesign gen {design} --out gen), then give the generated folder (gen) or a "
        "tool_schemas.json in it\n"
    )
    _, _, err = export(capsys, "--provider", "openai", str(REPO / "design"))
    assert "design: holds design files, not tool catalogs; generate the design first" in err


def test_application_code_given_for_a_catalog_is_not_called_a_design(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = str(REPO / "examples" / "netops")
    code, out, err = export(capsys, "--provider", "openai", app)
    assert (code, out) == (2, "")
    assert err == (
        f"tooldesign: error: {app}: holds Python files (no design, no tool catalog); give the "
        "folder tooldesign gen wrote (gen, say) or a tool_schemas.json in it, or generate a "
        "design first (tooldesign gen design --out gen)\n"
    )
    _, _, err = export(capsys, "--provider", "openai", f"{app}/services.py")
    assert f"{app}/services.py: is a Python file, not a tool catalog; give the folder" in err


def test_export_errors_speak_in_flags_and_suggest_fallback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = export(capsys, "--provider", "openai", "--strict", GEN)
    assert code == 2
    assert "(declare its fields, or export without --strict)" in err
    assert "strict=" not in err
    assert err.endswith(
        "(--fallback exports those tools in the plain form, and the others as asked)\n"
    )
    _, _, err = export(capsys, "--provider", "gemini", GEN)
    assert "export with --api json_schema, which writes parametersJsonSchema" in err
    assert "api=" not in err


MANY_STRICT_TOOLS = """
from tooldesign.dsl import *

with Service("many", "Many small tools"):
    with Toolset("lookups", "Lookups"):
        for n in range(21):
            with Tool(f"lookup_{n:02d}", f"Look up thing {n}"):
                with Args():
                    Attribute("key", String, "Key")
                    Attribute("hint", String, "Hint")
                    Attribute("limit", Int, "Limit")
                    Required("key")
                with Return():
                    Attribute("value", String, "Value")
"""


def test_strict_anthropic_export_warns_of_the_per_request_limits_it_exceeds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tooldesign.generate import generate

    design = tmp_path / "many_design.py"
    design.write_text(MANY_STRICT_TOOLS)
    generate([str(design)], tmp_path / "gen")
    catalog = str(tmp_path / "gen" / "many" / "tool_schemas.json")
    code, out, err = export(capsys, "--provider", "anthropic", "--strict", catalog)
    assert code == 0
    assert len(json.loads(out)) == 21
    advice = " (send fewer strict tools per request, or export without --strict)"
    assert err.splitlines() == [
        "tooldesign: warning: 21 strict tools: Anthropic takes at most 20 in one request" + advice,
        "tooldesign: warning: 42 optional parameters across strict tools: Anthropic takes at most "
        + "24 in one request"
        + advice,
    ]
    # The same tools, not strict, go in one request: nothing to say.
    assert export(capsys, "--provider", "anthropic", catalog)[2] == ""
    docs = str(REPO / "gen" / "assistant" / "toolsets" / "docs" / "tool_schemas.json")
    assert export(capsys, "--provider", "anthropic", "--strict", docs)[2] == ""


def test_union_parameters_of_strict_tools_are_counted_across_the_set() -> None:
    from tooldesign.runtime.providers.anthropic import strict_request_limits

    union = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    tool = {
        "strict": True,
        "input_schema": {
            "type": "object",
            "properties": {"a": union, "b": {"type": ["string", "null"]}},
            "required": ["a", "b"],
        },
    }
    assert strict_request_limits([tool] * 8) == []
    assert strict_request_limits([tool] * 9) == [
        "18 union-typed parameters across strict tools: Anthropic takes at most 16 in one request"
    ]
    assert strict_request_limits([{**tool, "strict": False}] * 9) == []


# ── the loading plan's flags ────────────────────────────────────────────────────────────────


def test_loading_flags_defer_tools_by_toolset_name_and_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Chat Completions has no hosted search: the builtin search_tools is added, eager.
    code, out, err = export(
        capsys, "--provider", "openai", "--defer", "devices,sites", "--eager", "get_site", GEN
    )
    names = [t["function"]["name"] for t in json.loads(out)]
    assert code == 0 and "6 deferred tool(s) (the loading flags)" in err
    assert "get_site" in names and "search_tools" in names
    assert not {"list_devices", "restart_device", "list_sites", "get_topology"} & set(names)
    # Anthropic's own search: every tool listed, the deferred ones marked.
    code, out, err = export(
        capsys,
        "--provider",
        "anthropic",
        "--default-loading",
        "deferred",
        "--read-only-eager",
        GEN,
    )
    tools = json.loads(out)
    deferred = {t["name"] for t in tools if t.get("defer_loading")}
    assert code == 0 and "provider's tool search" in err
    assert deferred == {
        "restart_device",
        "schedule_maintenance",
        "update_preferences",
        "diagnose_site",
    }
    assert any(t.get("name", "").startswith("tool_search_tool") for t in tools)


def test_loading_flags_that_name_no_tool_or_do_not_apply_are_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = export(capsys, "--provider", "openai", "--defer", "nothing_like_this", GEN)
    assert (code, out) == (2, "")
    assert "'nothing_like_this'" in err and "toolsets: devices, diagnosis" in err
    code, _, err = export(capsys, "--format", "prompt", "--defer", "devices", GEN)
    assert code == 2 and "--defer applies only to --format json" in err
    # A plan that defers nothing exports every tool, as without it.
    code, out, err = export(capsys, "--provider", "mcp", "--eager", "devices", GEN)
    assert (code, err) == (0, "") and len(json.loads(out)) == 14


def test_namespaces_are_an_openai_responses_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = export(
        capsys,
        "--provider",
        "openai",
        "--api",
        "responses",
        "--defer",
        "metrics",
        "--namespaces",
        GEN,
    )
    spaces = [t for t in json.loads(out) if t["type"] == "namespace"]
    assert code == 0 and [s["name"] for s in spaces] == ["metrics"]
    code, out, err = export(capsys, "--provider", "anthropic", "--namespaces", GEN)
    assert (code, out) == (2, "") and "--namespaces groups deferred tools for OpenAI" in err
