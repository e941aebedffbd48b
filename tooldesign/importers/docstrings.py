"""Docstrings of code-first tools: the summary, per-parameter descriptions, returns, examples.

Three styles are read, mixed freely: reST (``:param x: …``, ``:type x: …``, ``:returns: …``),
Google (``Args:`` / ``Returns:`` sections of indented ``name (type): text`` lines) and NumPy
(``Parameters`` / ``Returns`` headers underlined with dashes). Example lines start with
``Example:``, ``Examples:`` or ``Ejemplo:`` (a header or a line of its own).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_REST_FIELD = re.compile(
    r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b\s*([^:]*):\s?(.*)$"
)
_GOOGLE_HEADERS = {
    "args": "params",
    "arguments": "params",
    "parameters": "params",
    "params": "params",
    "keyword args": "params",
    "keyword arguments": "params",
    "returns": "returns",
    "return": "returns",
    "yields": "returns",
    "raises": "other",
    "notes": "other",
    "note": "other",
    "see also": "other",
    "references": "other",
    "attributes": "params",
    "examples": "examples",
    "example": "examples",
    "ejemplo": "examples",
    "ejemplos": "examples",
}
_EXAMPLE_LINE = re.compile(r"^(examples?|ejemplos?)\s*:\s*(.*)$", re.IGNORECASE)
_GOOGLE_PARAM = re.compile(r"^\**([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_PARAM = re.compile(r"^\**([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*(.*))?$")


@dataclass
class Docstring:
    summary: str = ""
    """The first paragraph, lines joined."""
    params: dict[str, str] = field(default_factory=dict)
    param_types: dict[str, str] = field(default_factory=dict)
    """Types written in the docstring (``:type x: int``, ``x (int): …``)."""
    returns: str = ""
    return_type: str = ""
    """The result's type as the docstring writes it (``:rtype:``, ``Returns: str: …``)."""
    examples: list[str] = field(default_factory=list)
    """Each example's text (a line, or an indented block after an ``Examples:`` header)."""


def parse_docstring(text: str | None) -> Docstring:
    doc = Docstring()
    if not text:
        return doc
    lines = inspect.cleandoc(text).splitlines()
    doc.summary = _summary(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        header = _section_header(lines, index)
        if header is not None:
            kind, body_start, numpy = header
            body, index = _section_body(lines, body_start, numpy)
            _read_section(doc, kind, body, numpy)
            continue
        rest = _REST_FIELD.match(stripped)
        if rest:
            block, index = _continued(lines, index)
            _read_rest(
                doc, rest.group(1), rest.group(2).strip(), " ".join([rest.group(3), *block]).strip()
            )
            continue
        example = _EXAMPLE_LINE.match(stripped)
        if example and example.group(2):
            doc.examples.append(example.group(2).strip())
        index += 1
    return doc


def _summary(lines: list[str]) -> str:
    paragraph: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if (
            _REST_FIELD.match(stripped)
            or _EXAMPLE_LINE.match(stripped)
            or _is_header_line(stripped)
        ):
            break
        paragraph.append(stripped)
    return " ".join(paragraph)


def _is_header_line(stripped: str) -> bool:
    return stripped.endswith(":") and stripped[:-1].strip().lower() in _GOOGLE_HEADERS


def _section_header(lines: list[str], index: int) -> tuple[str, int, bool] | None:
    """``(kind, first body line, numpy style)`` when a section starts at ``index``."""
    stripped = lines[index].strip()
    nxt = lines[index + 1].strip() if index + 1 < len(lines) else ""
    name = stripped.rstrip(":").strip().lower()
    if nxt and set(nxt) == {"-"} and name in _GOOGLE_HEADERS and not stripped.endswith(":"):
        return _GOOGLE_HEADERS[name], index + 2, True
    if stripped.endswith(":") and name in _GOOGLE_HEADERS:
        return _GOOGLE_HEADERS[name], index + 1, False
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _section_body(lines: list[str], start: int, numpy: bool) -> tuple[list[str], int]:
    """The lines of a section: indented ones (Google), or up to the next header (NumPy)."""
    body: list[str] = []
    index = start
    while index < len(lines):
        line = lines[index]
        if numpy:
            if _section_header(lines, index) is not None:
                break
        elif line.strip() and _indent(line) == 0:
            break
        body.append(line)
        index += 1
    while body and not body[-1].strip():
        body.pop()
    return body, index


def _continued(lines: list[str], index: int) -> tuple[list[str], int]:
    """The indented lines continuing the field at ``index``."""
    block: list[str] = []
    base = _indent(lines[index])
    index += 1
    while index < len(lines) and lines[index].strip() and _indent(lines[index]) > base:
        block.append(lines[index].strip())
        index += 1
    return block, index


def _read_rest(doc: Docstring, kind: str, name: str, text: str) -> None:
    if kind in ("param", "parameter", "arg", "argument", "key", "keyword"):
        parts = name.split()
        if not parts:
            return
        if len(parts) > 1:  # ":param int x: …"
            doc.param_types[parts[-1]] = " ".join(parts[:-1])
        doc.params[parts[-1]] = text
    elif kind == "type" and name:
        doc.param_types[name] = text
    elif kind in ("return", "returns"):
        doc.returns = text
    elif kind == "rtype":
        doc.return_type = text


def _read_section(doc: Docstring, kind: str, body: list[str], numpy: bool) -> None:
    if kind == "params":
        for name, type_text, text in _items(body, numpy):
            doc.params[name] = text
            if type_text:
                doc.param_types[name] = type_text
    elif kind == "returns":
        texts = [line.strip() for line in body if line.strip()]
        if numpy and len(texts) > 1 and _indent(body[0]) <= _indent(body[1]) - 1:
            doc.return_type = texts[0]  # the first line names the type
            texts = texts[1:]
        elif texts and not numpy:
            match = re.match(r"^[^:]+:\s+(.*)$", texts[0])
            if match and " " not in texts[0].split(":", 1)[0].strip():
                doc.return_type = texts[0].split(":", 1)[0].strip()
                texts[0] = match.group(1)  # "str: the forecast"
        doc.returns = " ".join(texts)
    elif kind == "examples":
        text = "\n".join(line.strip() for line in body if line.strip())
        if text:
            doc.examples.append(text)


def _items(body: list[str], numpy: bool) -> list[tuple[str, str, str]]:
    """``(name, type, description)`` per parameter of an Args/Parameters section."""
    lines = [line for line in body if line.strip()]
    if not lines:
        return []
    base = min(_indent(line) for line in lines)
    items: list[tuple[str, str, list[str]]] = []
    for line in lines:
        stripped = line.strip()
        if _indent(line) == base:
            pattern = _NUMPY_PARAM if numpy else _GOOGLE_PARAM
            match = pattern.match(stripped)
            if match:
                if numpy:
                    items.append((match.group(1), (match.group(2) or "").strip(), []))
                else:
                    items.append((match.group(1), (match.group(2) or "").strip(), [match.group(3)]))
                continue
        if items:
            items[-1][2].append(stripped)
    return [
        (name, type_text, " ".join(t for t in text if t).strip()) for name, type_text, text in items
    ]
