"""The person at an MCP host: answers the server's elicitations (approvals of ``Confirm`` tools)."""

from __future__ import annotations

from typing import Any

from mcp import types


class Person:
    """The user at the MCP host, answering elicitations."""

    def __init__(self, action: str, approve: bool = True) -> None:
        self.action = action
        self.approve = approve
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        if self.action == "accept":
            return types.ElicitResult(action="accept", content={"approve": self.approve})
        return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
