"""MCP toolsets end to end: a code-first MCP server imported, generated and called.

``tests/fixtures/mcp_server/inventory_server.py`` (built with the MCP SDK) is started as a
subprocess; ``tooldesign import mcp --stdio`` writes its design, ``tooldesign gen`` generates
it, and the generated executor calls the server through the runtime: results come back typed,
bad arguments are caught before they reach the server, the server's errors and broken results
are mapped, slow calls time out, and a server that dies is started again.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tooldesign.cli import main
from tooldesign.runtime import (
    MCPClient,
    MCPServerParams,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)

from tests.support import REPO

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


def call(runtime: Runtime, name: str, payload: Any) -> ToolResult:
    return runtime.execute_sync(ToolRequest(name, payload, ToolCallMeta(tool_call_id="c1")))


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
    assert json.loads(sent.for_model()) == "sent via sms: hi"


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
        "Error: Error executing tool reserve: cannot reserve 5 of ABC-002: only 0 left"
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
