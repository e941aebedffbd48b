"""``tooldesign call``: one tool through the runtime, from the shell."""

from __future__ import annotations

import io
import json

import pytest
from tooldesign.cli import main

TARGET = "examples.netops.mcp_server:runtime"


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, dict[str, object]]:
    code = main(["call", TARGET, *args])
    out = capsys.readouterr().out
    head, _, result = out.partition("\n\nresult:\n")
    assert head.startswith("for the model:\n")
    return code, head.removeprefix("for the model:\n"), json.loads(result)


def test_a_call_prints_what_the_model_reads_and_the_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, text, result = call(capsys, "get_site", '{"site_id": "sgp"}')
    assert code == 0
    assert json.loads(text)["name"] == "Singapore office"
    assert result["name"] == "assistant.sites.get_site"
    assert result["result"] == json.loads(text)
    assert result["telemetry"]["outcome"] == "ok"  # type: ignore[index]


def test_metadata_fills_injected_fields(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # get_profile injects the session: alice's session has a profile.
    code, text, _ = call(capsys, "get_profile", "--meta", "session_id=sess-alice")
    assert code == 0 and json.loads(text)["user_id"] == "u-alice"
    monkeypatch.setattr("sys.stdin", io.StringIO('{"site_id": "hq", "limit": 0}'))
    code, text, result = call(capsys, "list_devices", "-")  # arguments from standard input
    assert code == 1
    assert "- limit: must be >= 1 and <= 500 (got 0)" in text
    assert result["retry_hint"]["reason"] == "invalid_arguments"  # type: ignore[index]


def test_unknown_tools_and_bad_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = call(capsys, "list_device", "{}")
    assert code == 1 and 'Did you mean "list_devices"?' in text
    assert main(["call", TARGET, "get_site", "--meta", "session"]) == 2
    assert capsys.readouterr().err == (
        "tooldesign: error: --meta takes KEY=VALUE (for example session_id=s-1), got 'session'\n"
    )


def test_the_meta_keys_are_the_ids_of_tool_call_meta() -> None:
    import dataclasses

    from tooldesign.commands.call import _ID_KEYS
    from tooldesign.runtime import ToolCallMeta

    ids = [f.name for f in dataclasses.fields(ToolCallMeta) if f.default is None]
    assert sorted(_ID_KEYS) == sorted(ids)
