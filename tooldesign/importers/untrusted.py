"""Text an importer brings in is untrusted: a warning for what reads like instructions.

A tool's description is shown to a model as it is, so an MCP server (or a code-first module)
can hide instructions in it: "ignore previous instructions", text made invisible with
zero-width, bidirectional or tag characters, or a call to another server's tool. The importer
keeps the text as it is — the user decides — and warns, naming the tool and the field and
quoting the suspicious part. The patterns are one table, :data:`PATTERNS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tooldesign.importers.draft import DraftAttribute, DraftDesign, Notice, inline_object

# What each pattern finds, and the pattern (case-insensitive).
PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "an instruction to ignore earlier instructions",
        r"\bignore\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|above|earlier|preceding)\b",
    ),
    (
        "an instruction to disregard",
        r"\bdisregard\s+(?:all|any|the|your|previous|prior|earlier|above|these|those|other)\b",
    ),
    ("a mention of the system prompt", r"\bsystem\s+prompt\b"),
    ("an instruction to the model", r"\byou\s+must\s+now\b"),
    (
        "an instruction to keep something from the user",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|mention\s+\w+\s+to|reveal\s+\w+\s+to)\s+the\s+user\b",
    ),
    ("a hidden instruction tag", r"<\s*/?\s*(?:important|system|instructions?)\s*>"),
    ("another MCP server's tool", r"\bmcp__[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+"),
)
_COMPILED = tuple((what, re.compile(pattern, re.IGNORECASE)) for what, pattern in PATTERNS)

# A tool named in the text: "the `send_mail` tool", "the tool 'wipe_disk'", "call
# delete_all tool" (unquoted, only a name with a "_", "." or "-": "use this tool" names none).
_TOOL_MENTIONS = (
    re.compile(r"(?P<quote>[`'\"])(?P<name>[A-Za-z_][\w.-]*)(?P=quote)\s+tool\b", re.IGNORECASE),
    re.compile(r"\btool\s+(?P<quote>[`'\"])(?P<name>[A-Za-z_][\w.-]*)(?P=quote)", re.IGNORECASE),
    re.compile(
        r"\b(?:call|use|invoke|run|execute|trigger)\s+(?:the\s+)?(?P<quote>)"
        r"(?P<name>[A-Za-z_][\w.-]*[_.-][\w.-]*)\s+tool\b",
        re.IGNORECASE,
    ),
)

# Characters a reader does not see: zero-width characters, bidirectional controls (they can
# reorder what is shown), and Unicode tag characters (they can spell hidden ASCII text).
_HIDDEN = re.compile(
    "[\u200b-\u200f\u2060-\u2064\ufeff\u061c\u180e\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]+"
)
_TAGS = range(0xE0020, 0xE007F)
_QUOTED = 60


@dataclass(frozen=True)
class Finding:
    """Something suspicious in a text: what it is, and the part of the text, quoted."""

    what: str
    quoted: str


def findings(text: str, listed: Iterable[str] = ()) -> list[Finding]:
    """What in ``text`` reads like an instruction to a model, or hides text from a reader,
    each kind once (its first occurrence); ``listed``, the names of the tools the source
    lists (a tool named but not listed is suspicious)."""
    found: list[Finding] = []
    for what, pattern in _COMPILED:
        for match in pattern.finditer(text):
            found.append(Finding(what, _excerpt(text, match.start(), match.end())))
    known = set(listed)
    for pattern in _TOOL_MENTIONS:
        for match in pattern.finditer(text):
            name = match["name"]
            if name not in known and not name.startswith("mcp__"):
                excerpt = _excerpt(text, match.start(), match.end())
                found.append(Finding("a tool the source does not list", excerpt))
    for match in _HIDDEN.finditer(text):
        found.append(Finding("hidden characters", _hidden(match.group())))
    first = {f.what: f for f in reversed(found)}  # each kind once: the first of it
    return [f for f in found if first[f.what] is f]


def untrusted_notices(design: DraftDesign, listed: Iterable[str]) -> list[Notice]:
    """A notice for each suspicious part of the design's texts: service, toolset, tool and
    type descriptions, titles, and those of parameters, fields and results."""
    names = frozenset(listed)
    notices: list[Notice] = []
    for where, text in _texts(design):
        for finding in findings(text, names):
            notices.append(
                Notice(
                    where,
                    f"untrusted text: {finding.what} ({finding.quoted}); kept as it is — read "
                    "it before a model does",
                )
            )
    return notices


def _texts(design: DraftDesign) -> Iterator[tuple[str, str]]:
    """Every text of the design a model may be shown, with where it is."""
    if design.service_description:
        yield "service › description", design.service_description
    for toolset in design.toolsets:
        if toolset.description:
            yield f"toolset {toolset.name!r} › description", toolset.description
        for tool in toolset.tools:
            at = f"tool {tool.name!r}"
            yield f"{at} › description", tool.description
            if tool.title:
                yield f"{at} › title", tool.title
            yield from _attribute_texts(tool.args, f"{at} › parameter ")
            if tool.result is not None:
                if tool.result.description:
                    yield f"{at} › result › description", tool.result.description
                yield from _attribute_texts(tool.result.attributes, f"{at} › result field ")
    for named in design.types:
        if named.description:
            yield f"type {named.name!r} › description", named.description
        yield from _attribute_texts(named.attributes, f"type {named.name!r} › field ")


def _attribute_texts(
    attributes: Iterable[DraftAttribute], prefix: str, path: str = ""
) -> Iterator[tuple[str, str]]:
    for attribute in attributes:
        name = f"{path}{attribute.name}"
        if attribute.description:
            yield f"{prefix}{name!r} › description", attribute.description
        inline = inline_object(attribute.type)
        if inline is not None:
            yield from _attribute_texts(inline.attributes, prefix, f"{name}.")


def _excerpt(text: str, start: int, end: int) -> str:
    """The match with a little of the text around it, on one line, cut short, quoted."""
    before = text[max(0, start - 15) : start]
    shown = " ".join((before + text[start:end] + text[end : end + 45]).split())
    shown = shown if len(shown) <= _QUOTED else f"{shown[: _QUOTED - 3]}..."
    return repr(shown)


def _hidden(run: str) -> str:
    """A run of hidden characters as their code points, and the text tag characters spell."""
    points = " ".join(f"U+{ord(c):04X}" for c in run[:6]) + (" ..." if len(run) > 6 else "")
    spelled = "".join(chr(ord(c) - 0xE0000) for c in run if ord(c) in _TAGS)
    if spelled:
        cut = spelled if len(spelled) <= _QUOTED else f"{spelled[: _QUOTED - 3]}..."
        return f"{points}, spelling {cut!r}"
    return points
