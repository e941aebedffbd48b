"""Where 2026-07-28 round trips meet approvals and retries: the round a person approved, sent
again while its run is still going (a client retrying after a timeout), runs once. Raw JSON-RPC
over the streamable-HTTP app in process, a client without the tasks extension."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.runtime.mcp.seams.helpers import ALICE, Caller, approve

pytestmark = pytest.mark.anyio


class Plain(Caller):
    """A 2026-07-28 client that elicits and does not speak tasks."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        super().__init__(http, ALICE)
        self.capabilities = {"elicitation": {}}


async def test_an_approved_round_sent_again_while_it_runs_runs_once(
    http: httpx.AsyncClient, effects: list[str]
) -> None:
    # Before: the approved runs were recorded when a run ended, so a copy arriving while the
    # first still ran found nothing, and ran the tool a second time.
    client = Plain(http)
    first = await client.call("delete_file", filename="f.txt")
    assert first["resultType"] == "input_required"
    approved: dict[str, Any] = {
        "name": "delete_file",
        "arguments": {"filename": "f.txt"},
        "inputResponses": {"approval": approve(True)},
        "requestState": first["requestState"],
    }
    answers = await asyncio.gather(*(client.result("tools/call", approved) for _ in range(3)))
    assert [a["content"][0]["text"] for a in answers] == ["Deleted f.txt."] * 3
    assert effects == ["deleted f.txt"]
