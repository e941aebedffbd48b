"""Who is calling, as an entry point verified it: the caller's subject, client and scopes.

A :class:`Principal` rides on a call's :class:`~tooldesign.runtime.ToolCallMeta`. Only an entry
point sets it, from an identity it verified (an MCP server from the bearer token or OAuth
access token of the request; an application from its own sign-in), never from anything the
model sends: the pipeline checks a tool's ``Scopes`` against it (:mod:`.scopes`), and the audit
trail records it (:mod:`.control.audit`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tooldesign.runtime.dict_reader import DictFormatError, DictReader


@dataclass(frozen=True, slots=True)
class Principal:
    """A verified caller: ``subject`` (the user, or the service account), the ``client_id`` it
    called through, and the ``scopes`` its credentials grant."""

    subject: str | None = None
    scopes: frozenset[str] = field(default_factory=frozenset)
    client_id: str | None = None

    @classmethod
    def of(
        cls, subject: str | None, scopes: Iterable[str] = (), client_id: str | None = None
    ) -> Principal:
        """A principal whose scopes are given as any iterable of strings (a token's list)."""
        return cls(subject, frozenset(scopes), client_id)

    def to_dict(self) -> dict[str, Any]:
        """The principal as a JSON object (its scopes sorted): what a worker and the audit get."""
        data: dict[str, Any] = {"scopes": sorted(self.scopes)}
        if self.subject is not None:
            data["subject"] = self.subject
        if self.client_id is not None:
            data["client_id"] = self.client_id
        return data

    @classmethod
    def from_dict(cls, data: object) -> Principal:
        """The principal :meth:`to_dict` described; raises ``DictFormatError`` naming a bad key."""
        read = DictReader(data, "call metadata: principal")
        scopes = read.data.get("scopes", [])
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            raise DictFormatError("call metadata: principal: scopes must be a list of strings")
        return cls(read.text("subject", None), frozenset(scopes), read.text("client_id", None))
