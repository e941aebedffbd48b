"""The keyword table, and the rule it comes with: keywords are spelt in the dialect package (and
in the provider dialects, which say what their providers take), and read by name elsewhere."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from jsonschema_specifications import REGISTRY
from tooldesign.jsonschema import keywords as K

from tests.support import REPO

PACKAGE = REPO / "tooldesign"

DIALECT_MODULES = frozenset(
    {
        "jsonschema/__init__.py",
        "jsonschema/keywords.py",
        "jsonschema/navigate.py",
        "jsonschema/refs.py",
        "jsonschema/text.py",
        "jsonschema/words.py",
        # the provider dialects: what each provider takes, in its own words
        "runtime/providers/_common.py",
        "runtime/providers/_schema.py",
        "runtime/providers/anthropic.py",
        "runtime/providers/content.py",
        "runtime/providers/deferred.py",
        "runtime/providers/gemini.py",
        "runtime/providers/mcp.py",
        "runtime/providers/openai.py",
        "runtime/providers/prompt.py",
    }
)
"""The modules that may spell a keyword: the dialect package and the provider dialects."""

OTHER_MEANINGS: dict[str, frozenset[str]] = {
    # the DSL's options and the IR's constraint attributes (``Attribute(..., pattern=...)``)
    "binding/constraints.py": frozenset({"maximum", "minimum", "pattern"}),
    "codegen/model_types.py": frozenset({"enum", "pattern"}),
    "contract/constraints.py": frozenset({"enum", "format", "maximum", "minimum", "pattern"}),
    "eval/builder/values.py": frozenset({"enum", "examples", "required", "type"}),
    "eval/validate.py": frozenset({"default", "enum", "maximum", "minimum"}),
    "importers/python/classes.py": frozenset({"enum"}),
    "importers/values.py": frozenset({"enum", "maximum", "minimum", "pattern"}),
    # the design's own words: an attribute's description, a tool's title, a record's fields
    "builtin/design/tool_index.py": frozenset({"description"}),
    "eval/builder/fields.py": frozenset({"default", "description", "type"}),
    "eval/builder/messages.py": frozenset({"description"}),
    "eval/builder/tools.py": frozenset({"description", "title"}),
    "eval/builder/prompts.py": frozenset({"description", "title"}),
    # a catalog entry's fields, and the annotations' own
    "contract/annotations.py": frozenset({"description"}),
    "contract/catalog.py": frozenset({"default", "description", "title"}),
    "codegen/content_view.py": frozenset({"description", "title"}),
    "contract/content_catalog.py": frozenset({"description", "title"}),
    "contract/server_data.py": frozenset({"default", "description"}),
    "govern/diff.py": frozenset({"default", "description", "title"}),
    "govern/content_diff.py": frozenset({"description", "title"}),
    "docsite/content.py": frozenset({"description", "title"}),
    # what code-first libraries and MCP servers call things: pydantic's Field arguments, a
    # docstring's sections, a smolagents tool's inputs, an MCP tool's fields, a draft's options
    "importers/docstrings.py": frozenset({"examples", "type"}),
    "importers/mcp.py": frozenset(
        {"default", "description", "enum", "examples", "format", "title"}
    ),
    "importers/python/annotations.py": frozenset(
        {"default", "description", "enum", "examples", "format", "pattern"}
    ),
    "importers/python/class_tools.py": frozenset({"description", "enum", "type"}),
    "importers/python/tools.py": frozenset({"description", "title"}),
    # a field issue's keys, pydantic's error details, a function definition's fields
    "runtime/errors.py": frozenset({"description", "examples", "format", "pattern"}),
    "runtime/integrations/_common.py": frozenset({"description"}),
    "runtime/spec/formats.py": frozenset({"format"}),
    "runtime/validation/codecs.py": frozenset({"type"}),
    "runtime/validation/field_issues.py": frozenset({"type"}),
    "runtime/validation/patterns.py": frozenset({"pattern"}),
    # a server's protocol: ASGI messages, MCP client configurations
    "commands/mcp_config.py": frozenset({"type"}),
    "contract/content.py": frozenset({"description", "type"}),
    "runtime/mcp/access.py": frozenset({"type"}),
    "runtime/mcp/http.py": frozenset({"type"}),
    "runtime/mcp/sessions.py": frozenset({"type"}),
    # formatting code (ruff format), not a string's format
    "codegen/formatting.py": frozenset({"format"}),
    "codegen/pipeline.py": frozenset({"format"}),
    "commands/_progress.py": frozenset({"format"}),
}
"""Plain words that are keywords too, where a module means something else by them (a DSL
option, a catalog or MCP field, an issue's key, a protocol's ``type``): each module's list is
exact, and a word never is a camelCase or ``$`` keyword."""

CHECKED = frozenset(k.name for k in K.TABLE if k.source != "openapi")
"""The keywords of JSON Schema (2020-12, and the older spellings the dialect reads): OpenAPI's
``example``, ``nullable`` and ``discriminator`` are left to the modules' own care."""


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "gen" not in p.relative_to(PACKAGE).parts)


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that are docstrings (of modules, classes, functions, attributes)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
                and (index == 0 or isinstance(body[index - 1], ast.Assign | ast.AnnAssign))
            ):
                found.add(id(statement.value))
    return found


def _keyword_literals(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, keyword)`` for each string constant of ``path``'s code that spells a keyword
    (docstrings and the text of f-strings are words, not code)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in ast.walk(node))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in CHECKED
            and id(node) not in skipped
        ):
            yield node.lineno, node.value


@cache
def _found() -> dict[str, list[tuple[int, str]]]:
    return {
        path.relative_to(PACKAGE).as_posix(): sorted(_keyword_literals(path)) for path in _sources()
    }


def test_keywords_are_spelt_in_the_dialect_modules_only() -> None:
    spelt = {
        module: [
            f"{line}: {word!r}"
            for line, word in found
            if word not in OTHER_MEANINGS.get(module, ())
        ]
        for module, found in _found().items()
        if module not in DIALECT_MODULES
    }
    assert {module: lines for module, lines in spelt.items() if lines} == {}


def test_each_other_meaning_is_still_met() -> None:
    """A word listed for a module that no longer spells it comes off the list."""
    stale = {
        module: sorted(words - {word for _, word in _found().get(module, [])})
        for module, words in OTHER_MEANINGS.items()
    }
    assert {module: words for module, words in stale.items() if words} == {}


def test_other_meanings_are_plain_words() -> None:
    """``minLength`` or ``$ref`` means one thing only: no module may spell it."""
    words = {word for listed in OTHER_MEANINGS.values() for word in listed}
    assert all(word.isalpha() and word.islower() for word in words)
    assert words <= CHECKED


def test_the_literal_check_finds_a_keyword(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text(
        '"""minLength in a docstring is a word."""\n'
        'LIMIT = {"minLength": 2}\n'
        '"""and so is maxLength in an attribute\'s docstring."""\n'
        'TEXT = f"{LIMIT}maxItems"\n',
        encoding="utf-8",
    )
    assert list(_keyword_literals(source)) == [(2, "minLength")]


# ── the table ──────────────────────────────────────────────────────────────────────────────


def _constants() -> dict[str, str]:
    return {
        name: value
        for name, value in vars(K).items()
        if name.isupper()
        and isinstance(value, str)
        and name not in ("DIALECT", "DISCRIMINATOR_PROPERTY")
    }


def test_each_keyword_has_one_row_and_one_name() -> None:
    names = [k.name for k in K.TABLE]
    assert len(names) == len(set(names))
    assert sorted(_constants().values()) == sorted(names)


def test_each_name_is_its_keyword_in_upper_case() -> None:
    for constant, keyword in _constants().items():
        bare = keyword.lstrip("$").replace("-", "_")  # an extension's: x-mcp-header
        spelt = "".join(f"_{c}" if c.isupper() else c.upper() for c in bare)
        assert constant == spelt, keyword


def test_the_table_knows_every_keyword_of_draft_2020_12() -> None:
    vocabularies = [uri for uri in REGISTRY if "/draft/2020-12/meta/" in uri]
    assert len(vocabularies) == 8  # core, applicator, unevaluated, validation, format (2), …
    spelt = {name for uri in vocabularies for name in REGISTRY.contents(uri)["properties"]}
    assert spelt == {k.name for k in K.TABLE if k.source == "2020-12"}


@pytest.mark.parametrize("keyword", sorted(k.name for k in K.TABLE if k.pair), ids=str)
def test_a_pair_is_two_ends_of_one_bound(keyword: str) -> None:
    one = K.BY_NAME[keyword]
    assert one.pair is not None
    other = K.BY_NAME[one.pair]
    assert other.pair == keyword
    assert (one.kind, one.types, one.unit) == (other.kind, other.types, other.unit)
    assert {one.narrows, other.narrows} == {"higher", "lower"}
    assert keyword.startswith(("min", "exclusiveMin")) == (one.narrows == "higher")


def test_every_size_counts_in_one_noun() -> None:
    for keyword in K.SIZES:
        unit = K.BY_NAME[keyword].unit
        assert unit is not None and unit[0] != unit[1]
    assert K.BY_NAME[K.MIN_LENGTH].unit == ("character", "characters")
    assert K.BY_NAME[K.MIN_ITEMS].unit == ("item", "items")
    assert K.BY_NAME[K.MIN_PROPERTIES].unit == ("property", "properties")
    assert {k.name for k in K.TABLE if k.unit} == K.SIZES


def test_the_selections() -> None:
    assert K.applying_to("string") == {
        K.MIN_LENGTH,
        K.MAX_LENGTH,
        K.PATTERN,
        K.FORMAT,
        K.CONTENT_ENCODING,
        K.CONTENT_MEDIA_TYPE,
        K.CONTENT_SCHEMA,
    }
    assert K.ANNOTATIONS == {
        K.TITLE,
        K.DESCRIPTION,
        K.DEFAULT,
        K.DEPRECATED,
        K.READ_ONLY,
        K.WRITE_ONLY,
        K.EXAMPLES,
        K.EXAMPLE,
        K.COMMENT,
        K.X_MCP_HEADER,
    }
    # Every keyword whose value holds schemas, as the fingerprint's walk has always followed.
    assert K.holding("schema") == {
        K.ITEMS,
        K.ADDITIONAL_PROPERTIES,
        K.NOT,
        K.IF,
        K.THEN,
        K.ELSE,
        K.CONTAINS,
        K.PROPERTY_NAMES,
        K.UNEVALUATED_ITEMS,
        K.UNEVALUATED_PROPERTIES,
        K.ADDITIONAL_ITEMS,
    }
    assert K.holding("schemas") == {K.ANY_OF, K.ONE_OF, K.ALL_OF, K.PREFIX_ITEMS}
    assert K.holding("named") == {
        K.PROPERTIES,
        K.DEFS,
        K.DEFINITIONS,
        K.PATTERN_PROPERTIES,
        K.DEPENDENT_SCHEMAS,
    }
