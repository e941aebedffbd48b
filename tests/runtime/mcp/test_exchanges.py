"""Input requests from tools over MCP (``tooldesign.runtime.mcp.exchanges``): asked mid-call on
the handshake protocol, through sealed ``input_required`` round trips on 2026-07-28, refused by
name when the client cannot answer, and never mistaken for a person's decision when the answer
does not match the form. The tools are the conformance scenarios' (``conformance/tools.py``),
generated from ``conformance/design.py`` once for this module."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from tooldesign.generate import generate
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import mcp_server

from tests.runtime.mcp.conformance.tools import ScenarioError

pytestmark = pytest.mark.anyio

HERE = Path(__file__).parent / "conformance"
MODES = ["auto", "legacy"]  # 2026-07-28 in memory, and the initialize handshake


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    mode: str = request.param
    return mode


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    out = tmp_path_factory.mktemp("scenarios")
    generate([str(HERE / "design.py")], out)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("conformance.toolsets.scenarios.executor")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "conformance" or n.startswith("conformance.")]:
            del sys.modules[name]


@pytest.fixture
def runtime(scenarios: Any) -> Runtime:
    return Runtime([scenarios.new_registration()], expose=(ScenarioError,))


class Host:
    """The client's side: a person filling forms, a model, roots; what each was asked."""

    def __init__(self, content: dict[str, Any] | None = None, action: str = "accept") -> None:
        self.content = content
        """What to accept with (default: "Alice" for each string of the form, true for each
        boolean)."""
        self.action = action
        self.forms: list[types.ElicitRequestParams] = []
        self.prompts: list[types.CreateMessageRequestParams] = []
        self.roots_asked = 0

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.forms.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        content = self.content
        if content is None:
            fields = params.requested_schema["properties"]  # type: ignore[union-attr]
            content = {k: "Alice" if v["type"] == "string" else True for k, v in fields.items()}
        return types.ElicitResult(action="accept", content=content)

    async def sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.prompts.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Paris"),
            model="host-model",
            stop_reason="endTurn",
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv/netops", name="netops")])

    def client(self, runtime: Runtime, mode: str, **callbacks: Any) -> Client:
        options: dict[str, Any] = {
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "list_roots_callback": self.roots,
            **callbacks,
        }
        return Client(mcp_server(runtime).server, mode=mode, **options)  # type: ignore[arg-type]


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_a_tool_asks_the_user_the_model_and_the_roots(runtime: Runtime, mode: str) -> None:
    host = Host()
    async with host.client(runtime, mode) as client:
        named = await client.call_tool("test_input_required_result_elicitation", {})
        sampled = await client.call_tool("test_input_required_result_sampling", {})
        rooted = await client.call_tool("test_input_required_result_list_roots", {})
    assert "Hello, Alice!" in text_of(named)
    assert "Paris" in text_of(sampled)
    assert "file:///srv/netops" in text_of(rooted)
    assert [f.message for f in host.forms] == ["What is your name?"]
    assert host.prompts[0].max_tokens == 100 and host.roots_asked == 1


async def test_a_form_from_a_model_carries_defaults_and_enums(runtime: Runtime, mode: str) -> None:
    host = Host({"name": "Jane", "age": 25, "score": 88, "status": "inactive", "verified": False})
    async with host.client(runtime, mode) as client:
        result = await client.call_tool("test_elicitation_sep1034_defaults", {})
    schema = host.forms[0].requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["status"] == {
        "default": "active",
        "enum": ["active", "inactive", "pending"],
        "type": "string",
    }
    assert {k: v["default"] for k, v in schema["properties"].items()} == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert "action=accept" in text_of(result) and "'status': 'inactive'" in text_of(result)


async def test_several_rounds_each_ask_what_is_not_answered_yet(runtime: Runtime) -> None:
    host = Host()
    async with host.client(runtime, "auto") as client:
        result = await client.call_tool("test_input_required_result_multi_round", {})
        both = await client.call_tool("test_input_required_result_multiple_inputs", {})
    assert [f.message for f in host.forms][:2] == [
        "Step 1: What is your name?",
        "Step 2: What is your favorite color?",
    ]
    assert result.is_error is False and both.is_error is False


async def test_round_trip_state_is_sealed_and_bound_to_the_call(runtime: Runtime) -> None:
    async with Host().client(runtime, "2026-07-28") as client:
        first = await client.session.call_tool(
            "test_input_required_result_request_state", {}, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult)
        assert first.request_state and "answers" not in first.request_state  # opaque
        yes = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
        with pytest.raises(MCPError, match="Invalid or expired requestState") as refused:
            await client.session.call_tool(
                "test_input_required_result_request_state",
                {},
                input_responses=yes,
                request_state=first.request_state + "x",
                allow_input_required=True,
            )
        assert refused.value.error.code == types.INVALID_PARAMS
        done = await client.session.call_tool(
            "test_input_required_result_request_state",
            {},
            input_responses=yes,
            request_state=first.request_state,
            allow_input_required=True,
        )
    assert isinstance(done, types.CallToolResult) and "state-ok" in text_of(done)


async def test_an_answer_that_does_not_match_the_form_is_asked_again(runtime: Runtime) -> None:
    async with Host().client(runtime, "2026-07-28") as client:
        wrong = {"user_name": types.ElicitResult(action="accept", content={"nom": "Alice"})}
        again = await client.session.call_tool(
            "test_input_required_result_elicitation",
            {},
            input_responses=wrong,
            allow_input_required=True,
        )
    assert isinstance(again, types.InputRequiredResult)
    assert again.input_requests is not None and list(again.input_requests) == ["user_name"]


async def test_a_mismatched_answer_mid_call_is_no_refusal(runtime: Runtime) -> None:
    host = Host({"nom": "Alice"})
    async with host.client(runtime, "legacy") as client:
        result = await client.call_tool("test_input_required_result_elicitation", {})
    assert result.is_error is True
    assert "does not match what was asked" in text_of(result)
    assert "Nothing was decided" in text_of(result)


async def test_a_client_without_the_capability_is_not_asked(runtime: Runtime, mode: str) -> None:
    async with Client(mcp_server(runtime).server, mode=mode) as client:  # no callbacks
        only = await client.call_tool("test_input_required_result_capabilities", {})
        if mode == "legacy":
            result = await client.call_tool("test_sampling", {"prompt": "Hi"})
            assert result.is_error is True and "ask its model" in text_of(result)
        else:  # 2026-07-28: the missing capability is the request's error, named
            with pytest.raises(MCPError) as missing:
                await client.call_tool("test_sampling", {"prompt": "Hi"})
            assert missing.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
            assert missing.value.error.data == {"requiredCapabilities": {"sampling": {}}}
    assert only.is_error is False and "Asked 0 question(s)." in text_of(only)


async def test_declining_is_the_persons_answer(runtime: Runtime, mode: str) -> None:
    host = Host(action="decline")
    async with host.client(runtime, mode) as client:
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert result.is_error is False and "action=decline, content=None" in text_of(result)


async def test_only_what_the_design_declares_is_asked(
    runtime: Runtime, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    host = Host()
    async with host.client(runtime, mode) as client:
        result = await client.call_tool("undeclared_ask", {})
    assert result.is_error is True and "its design does not declare" in text_of(result)
    assert host.prompts == []
    assert "without Asks('model') in its design" in caplog.text
