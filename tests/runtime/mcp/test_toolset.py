"""MCP toolsets end to end: a code-first MCP server imported, generated and called.

``tests/fixtures/mcp_server/inventory_server.py`` (built with the MCP SDK) is started as a
subprocess; ``tooldesign import mcp --stdio`` writes its design, ``tooldesign gen`` generates
it, and the generated executor calls the server through the runtime: results come back typed,
bad arguments are caught before they reach the server, the server's errors and broken results
are mapped, slow calls time out, and a server that dies is started again.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import io
import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, METHOD_NOT_FOUND
from tooldesign.cli import main
from tooldesign.eval.evaluate import evaluate
from tooldesign.runtime import (
    MCPClient,
    RetryReason,
    Runtime,
    ToolCallMeta,
)
from tooldesign.runtime.mcp.client import MCPServerParams
from tooldesign.runtime.validation.schema import declared_only

from tests.support import REPO, calls

pytestmark = pytest.mark.slow  # an MCP server in a subprocess

SERVER = REPO / "tests" / "fixtures" / "mcp_server" / "inventory_server.py"
COMMAND = f"{shlex.quote(sys.executable)} {shlex.quote(str(SERVER))}"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ModuleType]]:
    """The server's design (its text) and the generated toolset's executor module."""
    root = tmp_path_factory.mktemp("mcp_import")
    design = root / "design" / "inventory.py"
    assert main(["import", "mcp", "--stdio", COMMAND, "--out", str(design)]) == 0
    assert main(["gen", str(design), "--out", str(root / "mcp_gen")]) == 0
    sys.path.insert(0, str(root))
    try:
        yield (
            design.read_text(),
            importlib.import_module("mcp_gen.inventory.toolsets.inventory.executor"),
        )
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.startswith("mcp_gen")]:
            del sys.modules[name]


class CountingClient(MCPClient):
    """The real client, counting what reaches the server."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[str] = []

    async def call(self, name: str, arguments: Any, *, retry_safe: bool = False) -> Any:
        self.sent.append(name)
        return await super().call(name, arguments, retry_safe=retry_safe)


@pytest.fixture(scope="module")
def client() -> CountingClient:
    return CountingClient(MCPServerParams(command=(sys.executable, str(SERVER))), timeout=3.0)


@pytest.fixture(scope="module")
def runtime(imported: tuple[str, ModuleType], client: CountingClient) -> Runtime:
    return Runtime([imported[1].new_registration(client=client)])


call = functools.partial(calls.call, meta=ToolCallMeta(tool_call_id="c1"))


def test_the_imported_design_declares_the_server_and_its_types(
    imported: tuple[str, ModuleType],
) -> None:
    text, _ = imported
    compact = re.sub(r"\s+", "", text)
    assert f'server=["{sys.executable}","{SERVER}"' in compact
    assert 'with Type("Item", "A stocked item.") as Item:' in text
    assert 'Attribute("sku", String, "Stock keeping unit", pattern="^[A-Z]{3}-[0-9]{3}$")' in text
    assert 'Attribute("children", ArrayOf("Category"), default=[])' in text  # recursion by name
    assert 'remote_name="notify.owner"' in text
    assert 'Attribute("channel", OneOf(Email, Sms))' in text
    assert "Annotations(read_only=True)" in text
    assert "Return(ArrayOf(Item))" in text and 'Return(Item, "A stocked item.")' in text
    # The SDK sends an Optional[Dict] as {"result": …}: so does the design.
    assert re.search(
        r'with Tool\("stock_levels".*?with Return\(\):\s+'
        r'Attribute\("result", MapOf\(String, Int\)\)\s+with Tool',
        text,
        re.DOTALL,
    )


def test_results_come_back_typed(runtime: Runtime) -> None:
    found = call(runtime, "find_items", {"query": "bolt"})
    assert found.ok, found.for_model()
    [item] = json.loads(found.for_model())
    assert item == {
        "sku": "ABC-001",
        "name": "Bolt",
        "status": "in_stock",
        "quantity": 120,
        "tags": ["metal"],
    }
    assert type(found.result).__name__ == "FindItemsResult"
    assert json.loads(call(runtime, "count_items", {"status": "in_stock"}).for_model()) == 2
    tree = json.loads(call(runtime, "category_tree", {}).for_model())
    assert tree["children"][0]["children"][0] == {"name": "bolts", "children": []}
    assert json.loads(call(runtime, "reserve", {"sku": "ABC-001", "quantity": 2}).for_model()) == {
        "reserved": 2
    }


def test_a_tool_with_a_name_models_cannot_use_is_called_by_its_remote_name(
    runtime: Runtime,
) -> None:
    sent = call(
        runtime, "notify_owner", {"channel": {"kind": "sms", "number": "12"}, "message": "hi"}
    )
    assert sent.for_model() == "sent via sms: hi"  # a text result reaches the model as text


def test_results_the_sdk_wraps_come_back_as_it_sends_them(runtime: Runtime) -> None:
    levels = call(runtime, "stock_levels", {"prefix": "ABC"})
    assert levels.ok, levels.for_model()
    assert json.loads(levels.for_model()) == {"result": {"ABC-001": 120, "ABC-002": 0}}
    none = call(runtime, "stock_levels", {"prefix": "QQQ"})
    assert none.ok, none.for_model()
    assert json.loads(none.for_model()) == {}  # null: the optional value is not given


def test_date_times_without_an_offset_are_read_as_utc_and_reported_once(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("WARNING", logger="tooldesign.runtime.mcp.client"):
        first = call(runtime, "restocks", {})
        second = call(runtime, "restocks", {})
    assert first.ok and second.ok, first.for_model()
    assert json.loads(first.for_model()) == [
        {"sku": "ABC-001", "at": "2026-03-01T09:30:00Z"},
        {
            "sku": "ABC-002",
            "at": "2026-03-02T14:00:05.250000Z",
            "confirmed_at": "2026-03-02T15:00:00Z",  # sent with its offset: as it was
        },
    ]
    [warning] = [r.getMessage() for r in caplog.records if "offset" in r.getMessage()]
    assert "tool restocks sent date-times without a UTC offset (at [].at); read as UTC" in warning


def test_bad_arguments_never_reach_the_server(runtime: Runtime, client: CountingClient) -> None:
    before = list(client.sent)
    bad = call(runtime, "find_items", {"query": "", "limit": 500, "colour": "red"})
    assert bad.retry_hint is not None
    assert bad.retry_hint.reason is RetryReason.INVALID_ARGUMENTS
    assert {i.field for i in bad.retry_hint.issues} == {"query", "limit", "colour"}
    union = call(runtime, "notify_owner", {"channel": {"kind": "fax"}, "message": "hi"})
    assert union.retry_hint is not None and union.retry_hint.issues[0].field == "channel"
    assert client.sent == before


def test_the_server_s_errors_reach_the_model_as_it_wrote_them(runtime: Runtime) -> None:
    refused = call(runtime, "reserve", {"sku": "ABC-002", "quantity": 5})
    assert not refused.ok
    assert refused.for_model() == (
        "Error: Error executing tool reserve: cannot reserve 5 of ABC-002: only 0 left\n"
        'Recovery: replan — do not repeat this call to "reserve" now; take another step.'
    )


def test_an_error_text_that_says_error_itself_is_not_said_twice(runtime: Runtime) -> None:
    audit = call(runtime, "audit", {})
    assert not audit.ok
    assert audit.for_model() == (
        "Error: the audit log is locked\n"
        'Recovery: replan — do not repeat this call to "audit" now; take another step.'
    )


def test_a_result_that_breaks_the_server_s_own_schema_is_malformed(runtime: Runtime) -> None:
    broken = call(runtime, "broken_report", {})
    assert broken.retry_hint is not None
    assert broken.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert "'lost' is not one of" in broken.error.details["problem"]  # type: ignore[union-attr]
    assert "problem is in the tool" in broken.for_model()


def test_a_slow_call_times_out(runtime: Runtime) -> None:
    slow = call(runtime, "slow_scan", {"seconds": 10})
    assert slow.retry_hint is not None
    assert slow.retry_hint.reason is RetryReason.TIMEOUT
    assert "did not answer in time" in slow.for_model()
    # The session survives a timed-out call.
    assert call(runtime, "count_items", {"status": "backorder"}).ok


def test_a_server_that_dies_is_started_again_on_the_next_call(runtime: Runtime) -> None:
    first = json.loads(call(runtime, "pid", {}).for_model())
    crashed = call(runtime, "crash", {})
    assert not crashed.ok
    assert "unavailable right now" in crashed.for_model()
    second = call(runtime, "pid", {})
    assert second.ok, second.for_model()
    assert json.loads(second.for_model()) != first


def test_an_unreachable_server_is_an_error_result_not_a_crash(
    imported: tuple[str, ModuleType],
) -> None:
    executor = imported[1]
    runtime = Runtime(
        [executor.new_registration(server=MCPServerParams(command=(sys.executable, "-c", "")))]
    )
    result = call(runtime, "count_items", {"status": "in_stock"})
    assert not result.ok
    assert "unavailable right now" in result.for_model()


def test_import_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "import",
            "mcp",
            "--stdio",
            f"{sys.executable} -c pass",
            "--timeout",
            "5",
            "--out",
            str(tmp_path / "d.py"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the MCP server" in err and "Traceback" not in err
    assert not (tmp_path / "d.py").exists()
    assert main(["import", "mcp", "--url", "ftp://example"]) == 2
    assert "--url must be an http(s):// URL" in capsys.readouterr().err


def test_a_server_that_fails_to_start_says_why(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    failing = "import sys; print('cannot open', 'inventory.db', file=sys.stderr); sys.exit(3)"
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(failing)}"
    assert main(["import", "mcp", "--stdio", command, "--timeout", "5"]) == 2
    err = capfd.readouterr().err
    assert "cannot reach the MCP server" in err
    assert err.count("cannot open inventory.db") == 1  # shown once: as the reason
    assert "its standard error:\n  | cannot open inventory.db" in err


def test_a_stdio_server_s_standard_error_goes_where_the_client_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def pid(client: MCPClient) -> int:
        try:
            answer = await client.call("pid", {})
        finally:
            await client.aclose()
        return int(answer.structured_content["result"])

    params = MCPServerParams(command=(sys.executable, str(SERVER)))
    with (tmp_path / "server.log").open("w+") as log:
        assert asyncio.run(pid(MCPClient(params, errlog=log))) > 0
        log.seek(0)
        assert log.read() == "inventory: serving on stdio\n"
    # An application whose standard error is no file (a StringIO): the server still starts.
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert asyncio.run(pid(MCPClient(params))) > 0


def test_the_import_shows_the_design_not_the_server_s_banner(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert main(["import", "mcp", "--stdio", COMMAND]) == 0
    out, err = capfd.readouterr()
    assert "inventory: serving on stdio" not in out + err
    assert out.startswith('"""') and out.endswith(")\n") and not out.endswith("\n\n")


# ── a low-level server: hand-written schemas ─────────────────────────────────────────────

LOWLEVEL = REPO / "tests" / "fixtures" / "mcp_server" / "lowlevel_server.py"


@pytest.fixture(scope="module")
def lowlevel(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, str, ModuleType, Any]]:
    """The low-level server's design file, the import's warnings, the generated executor,
    and the server object (the runtime calls it in process)."""
    root = tmp_path_factory.mktemp("lowlevel_import")
    design = root / "design" / "tables.py"
    with pytest.MonkeyPatch.context() as patch:
        # Started as a user would from the server's folder: `python lowlevel_server.py`.
        patch.chdir(LOWLEVEL.parent)
        errors = io.StringIO()
        patch.setattr(sys, "stderr", errors)
        command = f"{shlex.quote(sys.executable)} {LOWLEVEL.name}"
        assert main(["import", "mcp", "--stdio", command, "--out", str(design)]) == 0
    assert main(["gen", str(design), "--out", str(root / "lowlevel_gen")]) == 0
    sys.path[:0] = [str(root), str(LOWLEVEL.parent)]
    try:
        yield (
            design,
            errors.getvalue(),
            importlib.import_module("lowlevel_gen.tables.toolsets.tables.executor"),
            importlib.import_module("lowlevel_server").SERVER,
        )
    finally:
        sys.path.remove(str(root))
        sys.path.remove(str(LOWLEVEL.parent))
        for name in [m for m in sys.modules if m.startswith(("lowlevel_gen", "lowlevel_server"))]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def lowlevel_runtime(lowlevel: tuple[Path, str, ModuleType, Any]) -> Runtime:
    _, _, executor, server = lowlevel
    return Runtime([executor.new_registration(client=MCPClient(server, timeout=3.0))])


def test_hand_written_schemas_become_a_design_that_says_every_field(
    lowlevel: tuple[Path, str, ModuleType, Any],
) -> None:
    design, warnings, _, _ = lowlevel
    text = design.read_text()
    # An untitled result object: the result's own fields; an array of them: a named type.
    assert re.search(
        r'with Tool\("stats".*?with Return\(\):\s+Attribute\("count", Int, minimum=0\)\s+'
        r'Attribute\("mean", Float\)\s+Required\("count"\)',
        text,
        re.DOTALL,
    )
    assert 'with Type("RowsItem") as RowsItem:' in text and "Return(ArrayOf(RowsItem))" in text
    assert "Object" not in text
    # Draft-04 bounds as 2020-12 says them.
    assert 'Attribute("precision", Int, exclusive_maximum=10)' in text
    assert 'Attribute("score", Float, exclusive_minimum=0)' in text
    assert "the MCP client refuses this tool's results" in warnings
    # One recursive model used by two tools: one type.
    assert text.count('with Type("Node")') == 1 and "Node_2" not in text
    assert 'Attribute("children", ArrayOf("Node"))' in text
    # The command names a file in the current folder: the design starts it there.
    [service] = evaluate([str(design)]).services
    server = service.toolsets[0].mcp
    assert server is not None
    assert (server.command, server.cwd) == ((sys.executable, LOWLEVEL.name), str(LOWLEVEL.parent))
    assert "names 'lowlevel_server.py' relative to the current folder" in warnings


def test_keys_an_open_result_object_adds_are_dropped_not_malformed(
    lowlevel_runtime: Runtime,
) -> None:
    stats = call(lowlevel_runtime, "stats", {"values": [1, 2]})
    assert stats.ok, stats.for_model()
    assert json.loads(stats.for_model()) == {"count": 2, "mean": 1.5}  # no "computed_by"
    rows = call(lowlevel_runtime, "rows", {})
    assert json.loads(rows.for_model()) == [{"id": "a", "size": 1}, {"id": "b"}]
    depth = call(lowlevel_runtime, "depth", {"tree": {"label": "a", "children": [{"label": "b"}]}})
    assert json.loads(depth.for_model()) == 2


def test_a_closed_result_with_a_key_too_many_is_malformed(lowlevel_runtime: Runtime) -> None:
    closed = call(lowlevel_runtime, "closed", {})
    assert closed.retry_hint is not None
    assert closed.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert "'debug' was unexpected" in closed.error.details["problem"]  # type: ignore[union-attr]


def test_an_output_schema_the_client_refuses_is_a_malformed_response(
    lowlevel_runtime: Runtime,
) -> None:
    legacy = call(lowlevel_runtime, "legacy", {})
    assert legacy.retry_hint is not None
    assert legacy.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert "Invalid schema for tool legacy" in legacy.error.details["problem"]  # type: ignore[union-attr]


def test_a_protocol_error_refusing_the_arguments_reaches_the_model(
    lowlevel_runtime: Runtime,
) -> None:
    picky = call(lowlevel_runtime, "picky", {"n": 3})
    assert picky.retry_hint is not None
    assert picky.retry_hint.reason is RetryReason.INVALID_ARGUMENTS
    assert picky.for_model() == (
        "Error: Tool 'picky' refused the arguments: picky does not take n=3\n"
        'Recovery: correct_call — fix the arguments, then call "picky" again.'
    )


class FailingClient(MCPClient):
    """A client whose calls fail with a given exception."""

    def __init__(self, failure: BaseException) -> None:
        super().__init__("unused")
        self.failure = failure

    async def call(self, name: str, arguments: Any, *, retry_safe: bool = False) -> Any:
        raise self.failure


@pytest.mark.parametrize(
    ("failure", "reason", "words"),
    [
        (
            MCPError(METHOD_NOT_FOUND, "no such tool"),
            RetryReason.TOOL_UNAVAILABLE,
            "does not offer it",
        ),
        (MCPError(INTERNAL_ERROR, "disk full"), None, "failed on its server: disk full"),
        (ValueError("a bug in a transport"), None, "failed while calling its server"),
        (KeyError("x"), None, "failed while calling its server"),
    ],
)
def test_every_failure_of_the_client_is_an_answer(
    lowlevel: tuple[Path, str, ModuleType, Any],
    failure: BaseException,
    reason: RetryReason | None,
    words: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    executor = lowlevel[2]
    runtime = Runtime([executor.new_registration(client=FailingClient(failure))])
    result = call(runtime, "rows", {})
    assert not result.ok and words in result.for_model()
    assert (result.retry_hint.reason if result.retry_hint else None) is reason
    assert "failed with an internal error" not in result.for_model()  # not the runtime's catch-all
    assert not [r for r in caplog.records if r.name == "tooldesign.runtime" and r.exc_info]


def test_undeclared_keys_are_dropped_through_refs_arrays_maps_and_unions() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}],
                "discriminator": {"propertyName": "kind"},
            },
            "pets": {
                "type": "array",
                "items": {"anyOf": [{"$ref": "#/$defs/Cat"}, {"type": "null"}]},
            },
            "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Cat"}},
            "free": {"type": "object"},
        },
        "additionalProperties": False,
        "$defs": {
            "Circle": {
                "type": "object",
                "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                "required": ["kind", "r"],
                "additionalProperties": False,
            },
            "Square": {
                "type": "object",
                "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                "required": ["kind", "side"],
                "additionalProperties": False,
            },
            "Cat": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }
    value = {
        "shape": {"kind": "square", "side": 2, "r": 1, "colour": "red"},
        "pets": [{"name": "Tom", "age": 3}, None],
        "labels": {"a": {"name": "Kit", "lives": 9}},
        "free": {"anything": {"goes": 1}},
        "extra": True,
    }
    assert declared_only(value, schema) == {
        "shape": {"kind": "square", "side": 2},
        "pets": [{"name": "Tom"}, None],
        "labels": {"a": {"name": "Kit"}},
        "free": {"anything": {"goes": 1}},
    }
    # A value no variant fits is left for the result's check to name.
    assert declared_only({"shape": {"kind": "hexagon"}}, schema) == {"shape": {"kind": "hexagon"}}
