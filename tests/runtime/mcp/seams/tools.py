"""Handlers of the seams' tools (``design.py``): each records its side effects, so a test
counts how often a call ran instead of guessing."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field
from tooldesign.runtime import exchanges

EFFECTS: list[str] = []
"""One entry per run of a tool with a side effect (what it did)."""


class Reason(BaseModel):
    reason: str = Field(min_length=3)


async def delete_file(filename: str) -> str:
    await asyncio.sleep(0.2)  # long enough for a copy of the call to arrive meanwhile
    EFFECTS.append(f"deleted {filename}")
    return f"Deleted {filename}."


async def archive(label: str) -> str:
    await asyncio.sleep(0)
    EFFECTS.append(f"archived {label}")
    return f"Archived {label}."


async def slow_archive(label: str) -> str:
    await asyncio.sleep(0.5)
    EFFECTS.append(f"archived {label}")
    return f"Archived {label}."


async def ask_reason(label: str) -> str:
    answer = await exchanges().ask_user(f"Why archive {label}?", Reason, key="reason")
    if answer.content is None:
        return f"Kept {label}."
    EFFECTS.append(f"archived {label}: {answer.content.reason}")
    return f"Archived {label}: {answer.content.reason}."
