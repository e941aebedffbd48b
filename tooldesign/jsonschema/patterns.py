"""JSON Schema's regular expressions: the dialect a ``pattern`` is read in, and the same pattern
written for the engine that matches it.

A JSON Schema pattern is an ECMA-262 regular expression, read with the ``u`` flag (JSON Schema
2020-12 §6.4): that is how the model's validator reads it. The decoder matches patterns with
the Rust ``regex`` crate (pydantic-core's engine, linear in time); Python's ``re`` reads them in
tests and tools. The three disagree on more than one might think:

- ``\\d`` and ``\\w`` are ASCII to ECMA-262 (``[0-9]``, ``[A-Za-z0-9_]``) and Unicode to the
  other two (``"٣"`` is a digit to them); ``\\s`` is ECMA-262's own set of white space (with
  ``\\ufeff``, without ``\\x85`` and ``\\x1c``); ``.`` stops at ``\\r``, ``\\u2028`` and
  ``\\u2029`` in ECMA-262, only at ``\\n`` in the others;
- ``[[:digit:]]`` is a POSIX class to Rust and a set of characters to ECMA-262; ``[a-z&&[^aeiou]]``
  is an intersection to Rust and a list of characters to ECMA-262;
- look-around, back-references, named groups, inline flags, ``\\p{...}``, ``\\A``, ``\\z``, a
  bare ``{``: each is missing from one of them, or means something else there.

So a design's pattern is held to :func:`problem`: the ECMA-262 syntax that all three read, and
read alike once :func:`for_engine` has written ``\\d``, ``\\w``, ``\\s`` and ``.`` out as the
classes ECMA-262 means by them. The schema a model is shown keeps the pattern as it was
written; the decoder matches :func:`for_engine`'s.
"""

from __future__ import annotations

from functools import lru_cache

DIALECT = (
    "a pattern is an ECMA-262 regular expression, as JSON Schema reads it (with the u flag), "
    "within what the decoder's engine and Python's re read alike: no look-around, "
    "back-references, named groups, inline flags, POSIX classes, set operations or \\p{...}; "
    "\\d and \\w are ASCII, \\s and . are ECMA-262's"
)
"""The dialect, for messages."""

# ECMA-262's \s: WhiteSpace (tab, vertical tab, form feed, the Zs category, U+FEFF) and
# LineTerminator (line feed, carriage return, U+2028, U+2029).
_SPACE = r"\t\n\x0B\f\r\x20\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"
_CLASSES = {"d": "0-9", "w": "0-9A-Za-z_", "s": _SPACE}
_DOT = r"[^\n\r\x{2028}\x{2029}]"

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
"""The characters ECMA-262 (with the u flag) lets one escape outside a class."""
_CONTROL = frozenset("tnrfv")
_HEX = frozenset("0123456789abcdefABCDEF")


class _Refused(Exception):
    """A construct outside the dialect (its message names it)."""


class _Unreadable(_Refused):
    """Not a regular expression at all: the engines say why, in their words."""


@lru_cache(maxsize=1024)
def problem(pattern: str) -> str | None:
    """What in ``pattern`` is outside the dialect, naming the construct; ``None`` when nothing
    is (whether it compiles, an unclosed class say, is the engines' to say)."""
    try:
        _Reader(pattern).read()
    except _Unreadable:
        return None
    except _Refused as refused:
        return str(refused)
    return None


@lru_cache(maxsize=1024)
def for_engine(pattern: str) -> str:
    """``pattern`` written for the Rust ``regex`` crate so that it matches what ECMA-262 matches:
    ``\\d``, ``\\w``, ``\\s`` (and their negations) and ``.`` as the classes ECMA-262 means.

    The pattern itself when it uses none of them. A pattern outside the dialect is written as
    far as it reads (a design refuses it; a schema from elsewhere is matched as well as can be).
    """
    if not any(c in pattern for c in ".\\"):
        return pattern
    reader = _Reader(pattern)
    try:
        reader.read()
    except _Refused:
        return reader.written + pattern[reader.mark :]
    return reader.written


class _Reader:
    """One pass over a pattern: checks each construct and writes the engine's form of it."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.at = 0
        self.mark = 0  # where the construct being read starts
        self.out: list[str] = []
        self.quantifiable = False  # the last thing read can take a quantifier

    @property
    def written(self) -> str:
        return "".join(self.out)

    def read(self) -> None:
        text = self.pattern
        while self.at < len(text):
            self.mark = self.at
            char = text[self.at]
            if char == "\\":
                self._escape()
            elif char == "[":
                self._class()
            elif char == "(":
                self._group()
            elif char in "*+?":
                self._quantifier(char)
            elif char == "{":
                self._braces()
            elif char in ")|^$":
                self._emit(char, char == ")")
            elif char == ".":
                self._emit(_DOT, True)
            elif char in "]}":
                raise _Refused(f"a bare {char!r} at {self.at} (escape it: \\{char})")
            else:
                self._emit(char, True)

    def _emit(self, text: str, quantifiable: bool, width: int = 1) -> None:
        self.out.append(text)
        self.at += width
        self.quantifiable = quantifiable

    def _escape(self) -> None:
        text, at = self.pattern, self.at
        if at + 1 >= len(text):
            raise _Unreadable("a pattern cannot end with a lone backslash")
        char = text[at + 1]
        if char in _CLASSES:
            self._emit(f"[{_CLASSES[char]}]", True, 2)
        elif char.lower() in _CLASSES:
            self._emit(f"[^{_CLASSES[char.lower()]}]", True, 2)
        elif char in _SYNTAX or char in _CONTROL:
            self._emit(text[at : at + 2], True, 2)
        elif char in "xu":
            width = self._hex_escape(char)
            self._emit(_engine_hex(text[at : at + width]), True, width)
        elif char in "bB":
            raise _Refused(
                f"\\{char} at {at} (a word boundary: Unicode-aware in the decoder's engine, "
                "ASCII in ECMA-262); write the characters out"
            )
        else:
            raise _Refused(f"\\{char} at {at} ({_ESCAPES.get(char, 'not an ECMA-262 escape')})")

    def _hex_escape(self, kind: str) -> int:
        """The length of a ``\\xHH`` or ``\\uHHHH`` escape at the current place."""
        text, at = self.pattern, self.at
        digits = 2 if kind == "x" else 4
        hex_part = text[at + 2 : at + 2 + digits]
        if len(hex_part) != digits or not set(hex_part) <= _HEX:
            raise _Refused(
                f"\\{kind} at {at} takes {digits} hex digits (\\u{{...}} is not read alike)"
            )
        if kind == "u" and 0xD800 <= int(hex_part, 16) <= 0xDFFF:
            raise _Refused(f"\\u{hex_part} at {at} (a surrogate: write the character itself)")
        return 2 + digits

    def _group(self) -> None:
        text, at = self.pattern, self.at
        if text.startswith("(?:", at):
            self._emit("(?:", False, 3)
        elif text.startswith("(?", at):
            construct = text[at : at + 4]
            kind = (
                "look-around"
                if construct[:3] in ("(?=", "(?!") or construct in ("(?<=", "(?<!")
                else "a named group"
                if construct[:3] in ("(?<", "(?P")
                else "an inline flag or extension"
            )
            raise _Refused(f"{kind} at {at} ({construct.rstrip()}…)")
        else:
            self._emit("(", False)

    def _quantifier(self, char: str) -> None:
        if not self.quantifiable:
            raise _Refused(f"{char!r} at {self.at} has nothing to repeat")
        self._emit(char, False)
        self._lazy_or_possessive()

    def _braces(self) -> None:
        text, at = self.pattern, self.at
        end = text.find("}", at)
        body = text[at + 1 : end] if end > 0 else ""
        low, _, high = body.partition(",")
        counted = low.isdecimal() and low.isascii() and (not high or high.isdecimal())
        if end < 0 or not counted or not high.isascii():
            raise _Refused(
                f"a bare '{{' at {at} (a repetition is {{n}}, {{n,}} or {{n,m}}; escape a "
                "literal brace: \\{)"
            )
        if not self.quantifiable:
            raise _Refused(f"{{{body}}} at {at} has nothing to repeat")
        self._emit(text[at : end + 1], False, end + 1 - at)
        self._lazy_or_possessive()

    def _lazy_or_possessive(self) -> None:
        text = self.pattern
        if self.at < len(text) and text[self.at] == "?":
            self._emit("?", False)
        if self.at < len(text) and text[self.at] in "*+{":
            raise _Refused(f"a quantifier repeated at {self.at - 1} (possessive or doubled)")

    def _class(self) -> None:
        text = self.pattern
        start = self.at
        out = ["["]
        self.at += 1
        if text.startswith("^", self.at):
            out.append("^")
            self.at += 1
        if text.startswith("]", self.at):
            raise _Refused(
                f"a class opening with ']' at {start} (an empty class to ECMA-262, a ']' to "
                "the others)"
            )
        after_escape_class = False  # the last member was \d, \w or \s
        while True:
            if self.at >= len(text):
                raise _Unreadable(f"a class opened at {start} is not closed")
            char = text[self.at]
            pair = text[self.at : self.at + 2]
            if char == "]":
                out.append("]")
                self.at += 1
                break
            if char == "[":
                raise _Refused(
                    f"'[' inside the class at {start} (a nested class or a POSIX class such as "
                    "[:digit:] to the decoder's engine, a '[' to ECMA-262; escape it: \\[)"
                )
            if pair in ("&&", "--", "~~"):
                raise _Refused(
                    f"{pair!r} inside the class at {start} (a set operation to the decoder's "
                    "engine, two characters to ECMA-262)"
                )
            if char == "-" and after_escape_class and not text.startswith("]", self.at + 1):
                raise _Refused(f"a range from a class escape in the class at {start}")
            if char == "\\":
                member, after_escape_class = self._class_escape(start)
                if after_escape_class and out[-1] == "-" and len(out) > 2:
                    raise _Refused(f"a range to a class escape in the class at {start}")
                out.append(member)
                continue
            after_escape_class = False
            out.append(char)
            self.at += 1
        self.out.append("".join(out))
        self.quantifiable = True

    def _class_escape(self, start: int) -> tuple[str, bool]:
        """One escape inside a class: what it is written as, and whether it is \\d, \\w or \\s."""
        text, at = self.pattern, self.at
        if at + 1 >= len(text):
            raise _Unreadable(f"a class opened at {start} is not closed")
        char = text[at + 1]
        if char in _CLASSES:
            self.at += 2
            return _CLASSES[char], True
        if char.lower() in _CLASSES:
            raise _Refused(
                f"\\{char} inside the class at {start} (write the class without it, or use "
                f"[^...] around what \\{char.lower()} means)"
            )
        if char in _SYNTAX or char in _CONTROL or char == "-":
            self.at += 2
            return text[at : at + 2], False
        if char in "xu":
            width = self._hex_escape(char)
            self.at += width
            return _engine_hex(text[at : at + width]), False
        meaning = "a backspace to ECMA-262" if char == "b" else _ESCAPES.get(char)
        raise _Refused(f"\\{char} inside the class at {start} ({meaning or 'not read alike'})")


def _engine_hex(escape: str) -> str:
    """``\\xHH`` or ``\\uHHHH`` as the decoder's engine writes a code point."""
    return f"\\x{{{escape[2:]}}}"


_ESCAPES = {
    "A": "the start of the text to the decoder's engine, an 'A' to ECMA-262: use ^",
    "z": "the end of the text to the decoder's engine, not ECMA-262: use $",
    "Z": "the end of the text to Python, not ECMA-262: use $",
    "p": "a Unicode property, which each engine names differently",
    "P": "a Unicode property, which each engine names differently",
    "k": "a back-reference by name",
    "c": "a control character, which only ECMA-262 reads",
    "0": "a NUL, which the decoder's engine does not read: use \\x00",
    **{digit: "a back-reference" for digit in "123456789"},
}
"""Escapes outside the dialect, and what they mean to whom."""


__all__ = ["DIALECT", "for_engine", "problem"]
