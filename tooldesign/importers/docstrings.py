"""Docstrings of code-first tools: the description, per-parameter descriptions, returns, examples.

Three styles are read, mixed freely: reST (``:param x: …``, ``:type x: …``, ``:returns: …``),
Google (``Args:`` / ``Returns:`` sections of indented ``name (type): text`` lines) and NumPy
(``Parameters`` / ``Returns`` headers underlined with dashes). Example lines start with
``Example:``, ``Examples:`` or ``Ejemplo:`` (a header or a line of its own).

The description is the whole narrative, as code-first libraries send it: every line except
those the importer carries elsewhere (parameters, the result, examples). Other sections
(``Raises:``, ``Notes:``, Markdown headings) stay, line breaks included.
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
# NumPy lists parameters that share a type and text together: ``w, h : float``.
_NUMPY_PARAM = re.compile(
    r"^(\**[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*\**[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::\s*(.*))?$"
)
# A line that can only be a type: ``float``, ``list[str]``, ``int or None``.
_TYPE_WORDS = re.compile(
    r"[A-Za-z_][\w.]*(\[[^\]]*\])?(\s+(or|\|)\s+[A-Za-z_][\w.]*(\[[^\]]*\])?)*"
)
# What a docstring adds to a type that is not the type: ``int, optional``, ``str, default 'x'``.
_QUALIFIER = re.compile(
    r"^(optional|required|keyword-only|keyword only|positional-only|"
    r"(by )?default\b.*|defaults to\b.*)$",
    re.IGNORECASE,
)


@dataclass
class Docstring:
    summary: str = ""
    """The first paragraph, lines joined."""
    description: str = ""
    """The narrative: every line but the parameter, result and example sections and fields,
    with its line breaks (Markdown lists and headings keep their shape)."""
    params: dict[str, str] = field(default_factory=dict)
    param_types: dict[str, str] = field(default_factory=dict)
    """Types written in the docstring (``:type x: int``, ``x (int): …``), as Python annotations
    (see :func:`annotation_text`)."""
    returns: str = ""
    return_type: str = ""
    """The result's type as the docstring writes it (``:rtype:``, ``Returns: str: …``), as a
    Python annotation."""
    examples: list[str] = field(default_factory=list)
    """Each example's text (a line, or an indented block after an ``Examples:`` header)."""


def parse_docstring(text: str | None) -> Docstring:
    doc = Docstring()
    if not text:
        return doc
    lines = inspect.cleandoc(text).splitlines()
    doc.summary = _summary(lines)
    narrative: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        header = _section_header(lines, index)
        if header is not None:
            kind, body_start, numpy = header
            body, end = _section_body(lines, body_start, numpy)
            _read_section(doc, kind, body, numpy)
            if kind == "other":  # Raises, Notes…: the model reads them in the description
                narrative.extend(lines[index:end])
            index = end
            continue
        rest = _REST_FIELD.match(stripped)
        if rest:
            block, index = _continued(lines, index)
            _read_rest(
                doc, rest.group(1), rest.group(2).strip(), " ".join([rest.group(3), *block]).strip()
            )
            if rest.group(1) in ("raise", "raises"):
                narrative.extend(lines[index - len(block) - 1 : index])
            continue
        example = _EXAMPLE_LINE.match(stripped)
        if example and example.group(2):
            doc.examples.append(example.group(2).strip())
        else:
            narrative.append(line)
        index += 1
    doc.description = _narrative(narrative)
    return doc


def _narrative(lines: list[str]) -> str:
    """Lines as one text: trailing spaces and runs of blank lines (left by the sections taken
    out) go."""
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


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


def annotation_text(text: str) -> str:
    """A type as a docstring writes it, as a Python annotation.

    Qualifiers go (``int, optional`` → ``int``; ``str, default 'x'`` → ``str``), a NumPy set
    of values is a ``Literal`` (``{'cm', 'm'}``), ``X or Y`` is a union and ``list of X`` is
    ``list[X]``. What is left may still not be Python; the importer says so.
    """
    parts = [p.strip() for p in _top_level_split(text.strip()) if p.strip()]
    kept = [p for p in parts if not _QUALIFIER.match(p)]
    types: list[str] = []
    for part in kept:
        if part.startswith("{") and part.endswith("}"):
            types.append(f"Literal[{part[1:-1]}]")
            continue
        part = re.sub(r"\b(list|set|tuple|sequence|iterable) of (\w+)s?\b", r"list[\2]", part)
        types.append(" | ".join(t.strip() for t in re.split(r"\s+or\s+", part)))
    return " | ".join(types)


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _read_rest(doc: Docstring, kind: str, name: str, text: str) -> None:
    if kind in ("param", "parameter", "arg", "argument", "key", "keyword"):
        parts = name.split()
        if not parts:
            return
        if len(parts) > 1:  # ":param int x: …"
            doc.param_types[parts[-1]] = annotation_text(" ".join(parts[:-1]))
        doc.params[parts[-1]] = text
    elif kind == "type" and name:
        doc.param_types[name] = annotation_text(text)
    elif kind in ("return", "returns"):
        doc.returns = text
    elif kind == "rtype":
        doc.return_type = annotation_text(text)


def _read_section(doc: Docstring, kind: str, body: list[str], numpy: bool) -> None:
    if kind == "params":
        for names, type_text, text in _items(body, numpy):
            for name in names:
                doc.params[name] = text
                if type_text:
                    doc.param_types[name] = annotation_text(type_text)
    elif kind == "returns":
        lines = [line for line in body if line.strip()]
        texts = [line.strip() for line in lines]
        if numpy and texts:
            # The first line is the type (``float``) or a name and its type (``area : float``);
            # indented lines below describe it. A lone line is a type only if it reads as one.
            head = texts[0].split(" : ", 1)[-1] if " : " in texts[0] else texts[0]
            described = len(texts) > 1 and _indent(lines[1]) > _indent(lines[0])
            if described or " : " in texts[0] or _TYPE_WORDS.fullmatch(head):
                doc.return_type = annotation_text(head)
                texts = texts[1:]
        elif texts:
            match = re.match(r"^[^:]+:\s+(.*)$", texts[0])
            if match and " " not in texts[0].split(":", 1)[0].strip():
                doc.return_type = annotation_text(texts[0].split(":", 1)[0].strip())
                texts[0] = match.group(1)  # "str: the forecast"
        doc.returns = " ".join(texts)
    elif kind == "examples":
        text = "\n".join(line.strip() for line in body if line.strip())
        if text:
            doc.examples.append(text)


def _items(body: list[str], numpy: bool) -> list[tuple[list[str], str, str]]:
    """``(names, type, description)`` per entry of an Args/Parameters section."""
    lines = [line for line in body if line.strip()]
    if not lines:
        return []
    base = min(_indent(line) for line in lines)
    items: list[tuple[list[str], str, list[str]]] = []
    for line in lines:
        stripped = line.strip()
        if _indent(line) == base:
            pattern = _NUMPY_PARAM if numpy else _GOOGLE_PARAM
            match = pattern.match(stripped)
            if match:
                names = [n.strip().lstrip("*") for n in match.group(1).split(",")]
                if numpy:
                    items.append((names, (match.group(2) or "").strip(), []))
                else:
                    items.append((names, (match.group(2) or "").strip(), [match.group(3)]))
                continue
        if items:
            items[-1][2].append(stripped)
    return [
        (names, type_text, " ".join(t for t in text if t).strip())
        for names, type_text, text in items
    ]
