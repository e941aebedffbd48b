"""``tooldesign export``: provider JSON or a prompt listing from catalogs, and clear failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.genai import types as genai
from mcp import types as mcp
from tooldesign.cli import main

from tests.support import REPO

GEN = str(REPO / "gen")


def export(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_gen_folder_exports_each_tool_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = export(capsys, "--provider", "mcp", GEN)
    assert (code, err) == (0, "")
    tools = [mcp.Tool.model_validate(t) for t in json.loads(out)]
    assert len(tools) == 11
    assert len({t.name for t in tools}) == 11


def test_each_provider_and_shape(capsys: pytest.CaptureFixture[str]) -> None:
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
    code, out, _ = export(capsys, "--provider", "openai", "--format", "prompt", GEN)
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
            "api='json_schema' does not apply to openai",
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
