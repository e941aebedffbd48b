"""``tooldesign call``: one tool through the runtime, from the shell."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.cli import main

from tests.support.generated import Generated

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

    ids = [
        f.name
        for f in dataclasses.fields(ToolCallMeta)
        if f.default is None and f.name != "principal"  # a verified caller: never a --meta key
    ]
    assert sorted(_ID_KEYS) == sorted(ids)


TENANT_DESIGN = """\
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("whoami", "The tenant calling"):
            with Args():
                Attribute("tenant_id", String, "The tenant")
                Required("tenant_id")
            with Return():
                Attribute("tenant", String, "The tenant")
                Required("tenant")
            Inject("tenant_id")
"""

TENANT_APP = """\
from tooldesign.runtime import Runtime

from {package}.svc.toolsets.ts import executor


def build() -> Runtime:
    return Runtime([executor.new_registration(handlers={{"whoami": whoami}})])


def whoami(args, meta):
    return {{"tenant": args.tenant_id}}
"""


def test_a_missing_injected_value_is_told_with_the_option_that_gives_it(
    capsys: pytest.CaptureFixture[str], gen_design: Callable[[str], Generated], tmp_path: Path
) -> None:
    generated = gen_design(TENANT_DESIGN)
    app = tmp_path / "tenant_app.py"
    app.write_text(TENANT_APP.format(package=generated.package))
    target = f"{app}:build"
    assert main(["call", target, "whoami"]) == 1
    printed = capsys.readouterr()
    assert "cannot run in this context" in printed.out
    assert printed.err.endswith(
        "tooldesign: the tool injects tenant_id, which the call's metadata does not give: "
        "add --meta tenant_id=VALUE\n"
    )
    assert main(["call", target, "whoami", "--meta", "tenant_id=acme"]) == 0
    printed = capsys.readouterr()
    assert '{"tenant":"acme"}' in printed.out and "--meta" not in printed.err
