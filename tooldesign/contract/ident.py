"""Tool identifiers: ``<service>.<toolset>.<tool>``."""

from __future__ import annotations

from typing import Self


class ToolIdent(str):
    """The canonical id of a tool, ``"<service>.<toolset>.<tool>"``.

    A ``str`` subclass so it can be used anywhere a string key is expected (dict keys,
    JSON, logs) while still exposing its three parts.
    """

    __slots__ = ()

    def __new__(cls, value: str) -> Self:
        parts = value.split(".")
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"tool id must look like 'service.toolset.tool', got {value!r}")
        return super().__new__(cls, value)

    @classmethod
    def of(cls, service: str, toolset: str, tool: str) -> ToolIdent:
        return cls(f"{service}.{toolset}.{tool}")

    @property
    def service(self) -> str:
        return self.split(".")[0]

    @property
    def toolset(self) -> str:
        return self.split(".")[1]

    @property
    def tool(self) -> str:
        return self.split(".")[2]
