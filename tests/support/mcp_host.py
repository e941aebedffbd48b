"""The person at an MCP host: answers the server's elicitations (approvals of ``Confirm`` tools)."""

from __future__ import annotations

from typing import Any

from mcp import types


class Person:
    """The user at the MCP host, answering elicitations."""

    def __init__(
        self, action: str, approve: bool = True, content: dict[str, Any] | None = None
    ) -> None:
        self.action = action
        self.approve = approve
        self.content = content
        """What to accept with instead of the form's answer (a client that got it wrong)."""
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        if self.action == "accept":
            content = self.content if self.content is not None else {"approve": self.approve}
            return types.ElicitResult(action="accept", content=content)
        return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
