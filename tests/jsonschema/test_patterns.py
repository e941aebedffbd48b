"""The pattern dialect: what it refuses, and that the engine's form of a pattern it takes matches
exactly what ECMA-262 (``regress``, a real ECMA-262 engine, with the ``u`` flag) matches."""

from __future__ import annotations

import pytest
import regress
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import SchemaValidator, core_schema
from tooldesign.jsonschema.patterns import for_engine, problem

ATOMS = [
    r"\d",
    r"\w",
    r"\s",
    r"\D",
    r"\W",
    r"\S",
    ".",
    "a",
    "Z",
    "0",
    "-",
    r"\.",
    r"\/",
    r"\u00e9",
    r"\x41",
    "[a-z]",
    r"[\d_]",
    r"[^\s]",
    r"[\w.-]",
    r"[\s\d]",
    "é",
    "😀",
    "[^a]",
    "(a|b)",
    "(?:x|.)",
]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?"]
TEXT = st.text(
    alphabet=list("aZz09_-./ \t\n\r\x0b\x0c\xa0\u1680\u2028\u2029\u202f\ufeff\x85\x1cé٣😀Ab"),
    max_size=6,
)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)), min_size=1, max_size=4
        )
    )
    body = "".join(atom + quantifier for atom, quantifier in parts)
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))


@settings(max_examples=300, deadline=None)
@given(pattern=patterns(), texts=st.lists(TEXT, min_size=1, max_size=8))
def test_the_engine_matches_what_ecma_262_matches(pattern: str, texts: list[str]) -> None:
    assert problem(pattern) is None
    engine = SchemaValidator(core_schema.str_schema(pattern=for_engine(pattern)))
    ecma = regress.Regex(pattern, "u")
    for text in texts:
        assert engine.isinstance_python(text) == (ecma.find(text) is not None), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        ("[[:digit:]]", "POSIX class"),
        ("[a-z&&[^aeiou]]", "set operation"),
        ("[a--b]", "set operation"),
        ("(?=a)", "look-around"),
        ("(?<!a)b", "look-around"),
        (r"(a)\1", "back-reference"),
        ("(?P<x>a)", "named group"),
        ("(?<x>a)", "named group"),
        ("(?i)a", "inline flag"),
        (r"\p{L}", "Unicode property"),
        (r"\bx", "word boundary"),
        (r"\Aa", "use ^"),
        (r"a\z", "use $"),
        (r"a\Z", "use $"),
        (r"\cA", "control character"),
        (r"\0", "NUL"),
        (r"[\D]", r"\D inside the class"),
        (r"[\d-z]", "range from a class escape"),
        (r"[a-\d]", "range to a class escape"),
        ("a{,3}", "bare '{'"),
        ("a{", "bare '{'"),
        ("a}", "bare '}'"),
        ("a]", "bare ']'"),
        ("[]a]", "opening with ']'"),
        ("a*+", "quantifier repeated"),
        ("*a", "nothing to repeat"),
        (r"\u{41}", "hex digits"),
        (r"\uD83D", "surrogate"),
        (r"\-", "not an ECMA-262 escape"),
        (r"\e", "not an ECMA-262 escape"),
    ],
)
def test_what_reads_differently_somewhere_is_named(pattern: str, named: str) -> None:
    found = problem(pattern)
    assert found is not None and named in found, found


@pytest.mark.parametrize("pattern", ["^dev-[0-9a-f]{8}$", "^[A-Z]{2}$", "a|b", "[+,]", "x{2,5}?"])
def test_a_pattern_without_shorthands_is_its_own_engine_form(pattern: str) -> None:
    assert problem(pattern) is None
    assert for_engine(pattern) == pattern


def test_an_unreadable_pattern_is_left_to_the_engines_to_explain() -> None:
    assert problem("([") is None  # the engine says "unclosed character class"
    assert problem("a\\") is None
