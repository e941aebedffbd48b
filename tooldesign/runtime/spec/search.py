"""Finding tools by what they do: a BM25 index over a catalog's words.

A deferred catalog is only as good as its search. The index reads what a design says of each
tool — its name, title, description, toolset, tags, the names and descriptions of its
arguments (nested ones too) and the string values of its example — and ranks tools for a query
with BM25 (k1 = 1.2, b = 0.75), the ranking Anthropic's hosted tool search, goa-ai and FastMCP
use. Fields weigh differently: a word of the name counts three times, of the title twice.

Words are lower-cased, split at anything not a letter or digit and at camelCase humps
(``listDevices``, ``list_devices`` and ``list-devices`` all give ``list`` and ``device``); a
final ``s`` is dropped from words longer than three letters, so plurals meet singulars; a short
list of English stop words is skipped. In a catalog of 64 tools or more, a query's words that
more than half the tools have are skipped when it has rarer ones: they barely tell tools apart
(BM25 gives them almost no weight) and cost the most to add up.

Everything is deterministic: the same tools give the same index and the same ranking, ties in
tool order. Reading a tool's words (walking its schemas, splitting its texts) is what costs the
most, so ``tooldesign gen`` does it once: each toolset package holds ``tool_search.json``, its
tools' weighted words (:func:`words_text`), and :meth:`SearchIndex.build` reads a generated
tool's words from there rather than from the tool. The BM25 weights are computed when the index
is built, because they depend on which tools it holds (a runtime's toolsets, a plan's deferred
tools). The index is data too (:meth:`SearchIndex.to_json` / :meth:`SearchIndex.from_json`).

Each posting holds its precomputed BM25 weight, so a query costs one dictionary lookup per word
and, per posting, one addition made by C loops (``dict.update`` over ``zip`` and ``map``): 10,000
tools are searched in well under a millisecond (``benchmarks/catalogs.py``).
"""

from __future__ import annotations

import hashlib
import heapq
import importlib.util
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, repeat
from operator import add
from pathlib import Path
from typing import Any

from tooldesign.contract.catalog import ToolDefinition
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS
from tooldesign.jsonschema.refs import ref_target

K1 = 1.2
B = 0.75
FORMAT = 1
"""The version of :meth:`SearchIndex.to_json`'s data."""
COMMON_FROM = 64
"""From this many tools on, a query's words that more than half the tools have are skipped
when it has rarer ones."""

_ZEROS = repeat(0.0)


def _ranking(item: tuple[int, float]) -> tuple[float, int]:
    return (-item[1], item[0])


NAME_WEIGHT, TITLE_WEIGHT, TEXT_WEIGHT = 3, 2, 1
_HUMP = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[^\W_]+")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "which",
        "who",
        "what",
        "when",
        "where",
        "how",
        "all",
        "any",
        "can",
        "may",
        "your",
        "you",
    ]
)
_MAX_DEPTH = 4  # argument names this deep are read; deeper ones seldom name what a tool does


def words(text: str) -> list[str]:
    """The index's words of ``text``, in order (repeats kept)."""
    return list(_words(text))


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[str, ...]:
    # Cached: a catalog repeats its argument names and descriptions from tool to tool.
    out: list[str] = []
    for raw in _WORD.findall(_HUMP.sub(r"\1 \2", text)):
        word = raw.lower()
        if word in STOP_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return tuple(out)


SearchableTool = ToolDefinition
"""What the index reads of a tool: a generated ``ToolSpec`` or a catalog's tool."""


def tool_words(tool: SearchableTool) -> Counter[str]:
    """The weighted words of one tool: how often each counts in its document."""
    counts: Counter[str] = Counter()

    def add(text: str | None, weight: int) -> None:
        if text:
            for word in _words(text):
                counts[word] += weight

    add(tool.name, NAME_WEIGHT)
    add(tool.title, TITLE_WEIGHT)
    add(tool.description, TEXT_WEIGHT)
    add(tool.toolset, TEXT_WEIGHT)
    for tag in tool.tags:
        add(tag, TEXT_WEIGHT)
    for text in _schema_words(tool.payload.schema, tool.payload.schema, 0, set()):
        add(text, TEXT_WEIGHT)
    for text in _strings(tool.payload.example):
        add(text, TEXT_WEIGHT)
    return counts


def _schema_words(node: Any, root: Mapping[str, Any], depth: int, seen: set[str]) -> Iterator[str]:
    """Argument names and descriptions, nested ones too (each definition read once)."""
    if not isinstance(node, MAPS) or depth > _MAX_DEPTH:
        return
    ref = node.get(K.REF)
    if isinstance(ref, str) and ref not in seen:
        seen.add(ref)
        yield from _schema_words(ref_target(root, ref), root, depth, seen)
    properties = node.get(K.PROPERTIES)
    if isinstance(properties, MAPS):
        for key, child in properties.items():
            yield str(key)
            if isinstance(child, MAPS):
                text = child.get(K.DESCRIPTION)
                if isinstance(text, str) and depth == 0:
                    yield text
                yield from _schema_words(child, root, depth + 1, seen)
    for key in (K.ITEMS, *K.UNIONS):
        value = node.get(key)
        for child in value if isinstance(value, list) else [value]:
            yield from _schema_words(child, root, depth, seen)


def _strings(value: Any) -> Iterator[str]:
    """The strings inside an example value (keys are argument names, read already)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, MAPS):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One tool found: its name, its place in the index's tool order, and its BM25 score."""

    name: str
    position: int
    score: float


class SearchIndex:
    """A BM25 index of tools, by name. Build it with :meth:`build`; query it with :meth:`search`."""

    __slots__ = ("_postings", "names")

    def __init__(self, names: Sequence[str], postings: Mapping[str, Mapping[int, float]]):
        self.names = tuple(names)
        # Each word's postings: tool position → BM25 weight, in tool order.
        self._postings = postings

    @classmethod
    def build(cls, tools: Iterable[SearchableTool]) -> SearchIndex:
        """The index of ``tools``, in their order (ties rank in it). A generated tool's words are
        those ``tooldesign gen`` stored beside its package (:data:`WORDS_NAME`), when there."""
        listed = list(tools)
        return cls.from_words([t.name for t in listed], [known_words(t) for t in listed])

    @classmethod
    def from_words(cls, names: Sequence[str], documents: Sequence[Counter[str]]) -> SearchIndex:
        """The index of documents already split into weighted words, one per name."""
        lengths = [sum(d.values()) for d in documents]
        average = (sum(lengths) / len(lengths)) if lengths else 1.0
        frequency: Counter[str] = Counter()
        for document in documents:
            frequency.update(document.keys())
        total = len(documents)
        idf = {w: math.log(1 + (total - df + 0.5) / (df + 0.5)) for w, df in frequency.items()}
        postings: dict[str, dict[int, float]] = {w: {} for w in sorted(frequency)}
        for position, (document, length) in enumerate(zip(documents, lengths, strict=True)):
            norm = K1 * (1 - B + B * length / (average or 1.0))
            for word, tf in document.items():
                postings[word][position] = round(idf[word] * tf * (K1 + 1) / (tf + norm), 6)
        return cls(names, postings)

    def __len__(self) -> int:
        return len(self.names)

    def search(
        self, query: str, limit: int = 5, *, within: frozenset[int] | None = None
    ) -> list[SearchHit]:
        """The best ``limit`` tools for ``query``, best first (ties in tool order).

        ``within`` keeps only the tools at those positions (a toolset, the deferred ones).
        A query none of whose words any tool has finds nothing.
        """
        return self.find(query, limit, within=within)[0]

    def find(
        self, query: str, limit: int = 5, *, within: frozenset[int] | None = None
    ) -> tuple[list[SearchHit], int]:
        """:meth:`search`'s hits, and how many tools matched in all."""
        asked = [self._postings[w] for w in dict.fromkeys(_words(query)) if w in self._postings]
        if len(self.names) >= COMMON_FROM:
            # Words most tools have barely tell them apart, and cost the most to add up: when
            # the query has rarer words, those decide.
            half = len(self.names) / 2
            asked = [p for p in asked if len(p) <= half] or asked
        if not asked:
            return [], 0
        # The scores are added up by dict.update over zip and map (C loops, no Python-level
        # step per posting): the longest postings are copied, each other word's added to them.
        asked.sort(key=len, reverse=True)
        scores: Mapping[int, float] = asked[0]
        if len(asked) > 1 or within is not None:
            summed = dict(asked[0])
            for postings in asked[1:]:
                summed.update(
                    zip(postings, map(add, postings.values(), map(summed.get, postings, _ZEROS)))
                )
            if within is not None:
                summed = {p: summed[p] for p in within.intersection(summed)}
            scores = summed
        total = len(scores)
        if 0 < limit < total:  # keep what can rank: the scores at the limit's or above
            least = heapq.nlargest(limit, scores.values())[-1]
            chosen = list(compress(scores.items(), map(least.__le__, scores.values())))
        else:
            chosen = list(scores.items())
        chosen.sort(key=_ranking)
        best = chosen[: max(limit, 0)]
        return [SearchHit(self.names[p], p, round(s, 6)) for p, s in best], total

    def to_json(self) -> dict[str, Any]:
        """The index as JSON data (sorted, so the same tools give the same bytes)."""
        return {
            "version": FORMAT,
            "k1": K1,
            "b": B,
            "tools": list(self.names),
            "postings": {w: [[p, s] for p, s in ps.items()] for w, ps in self._postings.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SearchIndex:
        """An index read back from :meth:`to_json`'s data."""
        if data.get("version") != FORMAT:
            raise ValueError(
                f"search index version {data.get('version')!r} is not {FORMAT}; regenerate it"
            )
        postings = {w: {int(p): float(s) for p, s in ps} for w, ps in data["postings"].items()}
        return cls(list(data["tools"]), postings)


# --- the words stored with a generated catalog ----------------------------------------------

WORDS_NAME = "tool_search.json"
"""The file ``tooldesign gen`` writes beside each toolset's ``tool_schemas.json``: every tool's
weighted words, as :func:`tool_words` reads them."""
WORDS_FORMAT = 1
"""The version of the words file's data: raised when the way words are read changes in a way
:data:`WORDS_RULES` cannot see (the plural rule, what of a schema is read)."""


def _rules() -> str:
    rules = [
        WORDS_FORMAT,
        [NAME_WEIGHT, TITLE_WEIGHT, TEXT_WEIGHT, _MAX_DEPTH],
        [_HUMP.pattern, _WORD.pattern],
        sorted(STOP_WORDS),
    ]
    return hashlib.sha256(json.dumps(rules).encode()).hexdigest()[:12]


WORDS_RULES = _rules()
"""A digest of the rules that split and weigh a tool's words: a words file written under other
rules is not read (the words are read from the tools again)."""


def words_text(tools: Iterable[SearchableTool]) -> str:
    """The words file of ``tools``: JSON, one tool a line, words sorted (the same tools give the
    same bytes)."""
    lines = [
        f"{json.dumps(str(tool.id))}: {json.dumps(dict(sorted(tool_words(tool).items())))}"
        for tool in tools
    ]
    head = json.dumps({"version": WORDS_FORMAT, "rules": WORDS_RULES})[:-1]
    body = ",\n".join(lines)
    return f'{head}, "tools": {{\n{body}\n}}}}\n' if lines else f'{head}, "tools": {{}}}}\n'


def read_words(text: str) -> dict[str, Counter[str]] | None:
    """The tools' words from a words file's text, by tool id; ``None`` if other rules wrote it."""
    data = json.loads(text)
    if data.get("version") != WORDS_FORMAT or data.get("rules") != WORDS_RULES:
        return None
    return {key: Counter(value) for key, value in data["tools"].items()}


_stored: dict[str, tuple[tuple[int, int], Mapping[str, Counter[str]]]] = {}


def _package_words(module: str) -> Mapping[str, Counter[str]]:
    """The words stored beside the generated package of ``module`` (``<package>.types``), read
    once per process and again when the file changes; nothing when there is no such file."""
    package = module.rpartition(".")[0]
    found = importlib.util.find_spec(package) if package else None
    if found is None or not found.submodule_search_locations:
        return {}
    path = Path(next(iter(found.submodule_search_locations))) / WORDS_NAME
    try:
        stat = path.stat()
    except OSError:
        return {}
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _stored.get(str(path))
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        words_read = read_words(path.read_text(encoding="utf-8")) or {}
    except (OSError, ValueError, AttributeError, TypeError):
        words_read = {}  # a damaged file costs the time to read the tools, never a failure
    _stored[str(path)] = (key, words_read)
    return words_read


def known_words(tool: SearchableTool) -> Counter[str]:
    """A tool's words: those generation stored beside its package (a generated spec), else read
    from the tool."""
    module = getattr(tool.payload, "model_module", None)
    if isinstance(module, str):
        stored = _package_words(module).get(str(tool.id))
        if stored is not None:
            return stored
    return tool_words(tool)


__all__ = [
    "FORMAT",
    "STOP_WORDS",
    "WORDS_NAME",
    "WORDS_RULES",
    "SearchHit",
    "SearchIndex",
    "SearchableTool",
    "known_words",
    "read_words",
    "tool_words",
    "words",
    "words_text",
]
