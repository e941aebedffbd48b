"""Messages in the command line's words.

The library speaks Python (``export_tools(..., strict=False, api="json_schema")``); what a
command prints names its flags instead (``without --strict``, ``--api json_schema``).
"""

from __future__ import annotations

import re

_CLI_WORDS = (
    (re.compile(r"api=(['\"])(\w+)\1 \(`--api \w+`\)"), r"--api \2"),
    (re.compile(r"api=(['\"])(\w+)\1"), r"--api \2"),
    (re.compile(r"\bwith strict=False"), "without --strict"),
    (re.compile(r"\bstrict=False"), "no --strict"),
    (re.compile(r"\bstrict=True"), "--strict"),
    (re.compile(r"\bfallback=True"), "--fallback"),
    (re.compile(r"^fallback applies"), "--fallback applies"),
    (re.compile(r"; strict applies"), "; --strict applies"),
    (re.compile(r"\bwithout strict\b"), "without --strict"),
    (
        re.compile(r"\(choices: ([^)]*)\)"),
        lambda m: f"(choices: {m.group(1).replace(chr(39), '')})",
    ),
)


def in_cli_words(message: str) -> str:
    """``message`` as the command line says it: flags, not keyword arguments."""
    for pattern, replacement in _CLI_WORDS:
        message = pattern.sub(replacement, message)
    return message
