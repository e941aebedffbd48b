"""Routing quality: does the tool search find the right tool for what a design says of it?

A deferred catalog is only as good as its search. :func:`routing_report` asks the BM25 index
(:mod:`tooldesign.runtime.spec.search`) each tool's own queries — its title, the first sentence
of its description and the string values of its example, the words a model (or a person) would
use for it — and reports recall@1 and recall@k: how often the tool ranks first, and in the top
``k``. It also names each tool's *confusable siblings*: the other tools whose words (name,
description, argument names) overlap most with its own, where a search (and a model) is likely
to pick the wrong one.

The report is deterministic; ``tooldesign diff`` can rerun it for the old and new catalogs when
descriptions change (see :func:`compare_routing`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS
from tooldesign.runtime.spec.search import SearchableTool, SearchIndex, words

_SENTENCE = re.compile(r"(?<=[.;!?])\s")
CONFUSABLE_FROM = 0.5
"""Two tools whose word sets overlap this much (Jaccard) or more are confusable."""


@dataclass(frozen=True, slots=True)
class ToolRouting:
    """One tool's queries, where each put the tool (1 = first; ``None`` = not in the top k),
    and its confusable siblings with their overlap."""

    name: str
    queries: tuple[str, ...]
    ranks: tuple[int | None, ...]
    confusable: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class RoutingReport:
    """Recall of the search over a catalog's own queries."""

    k: int
    tools: tuple[ToolRouting, ...]

    @property
    def queries(self) -> int:
        return sum(len(t.queries) for t in self.tools)

    def recall(self, at: int) -> float:
        """The share of queries whose tool ranked within the first ``at``."""
        ranks = [r for t in self.tools for r in t.ranks]
        if not ranks:
            return 1.0
        return sum(1 for r in ranks if r is not None and r <= at) / len(ranks)

    def misses(self) -> list[tuple[str, str]]:
        """``(tool, query)`` for each query that did not find its tool in the top k."""
        return [
            (t.name, q)
            for t in self.tools
            for q, r in zip(t.queries, t.ranks, strict=True)
            if r is None
        ]

    def summary(self) -> str:
        """A line for people: tools, queries, recall@1 and @k, confusable pairs."""
        pairs = {tuple(sorted((t.name, c))) for t in self.tools for c, _ in t.confusable}
        return (
            f"{len(self.tools)} tools, {self.queries} queries: recall@1 {self.recall(1):.0%}, "
            f"recall@{self.k} {self.recall(self.k):.0%}; {len(pairs)} confusable pairs"
        )


def tool_queries(tool: SearchableTool) -> tuple[str, ...]:
    """What the design says a tool is for, as queries: title, first sentence, example words."""
    queries: list[str] = []
    if tool.title:
        queries.append(tool.title)
    first = _SENTENCE.split(tool.description.strip(), maxsplit=1)[0].strip()
    if first:
        queries.append(first)
    example = tool.payload.example
    if isinstance(example, MAPS):
        text = " ".join(v for v in example.values() if isinstance(v, str))
        if words(text):
            queries.append(text)
    return tuple(dict.fromkeys(q for q in queries if words(q)))


def _signature(tool: SearchableTool) -> frozenset[str]:
    schema = tool.payload.schema
    properties = schema.get(K.PROPERTIES)
    names = " ".join(properties) if isinstance(properties, MAPS) else ""
    return frozenset(words(f"{tool.name} {tool.description} {names}"))


def routing_report(
    tools: Iterable[SearchableTool],
    *,
    k: int = 5,
    intents: Mapping[str, Sequence[str]] | None = None,
) -> RoutingReport:
    """Recall@1 and @``k`` of the search over ``tools`` for their own queries, and each tool's
    confusable siblings. ``intents`` adds queries by tool name (what users ask for)."""
    listed = list(tools)
    index = SearchIndex.build(listed)
    signatures = [_signature(t) for t in listed]
    out: list[ToolRouting] = []
    for position, tool in enumerate(listed):
        own = tool_queries(tool)
        extra = [q for q in (intents or {}).get(tool.name, ()) if q not in own and words(q)]
        queries = own + tuple(extra)
        ranks: list[int | None] = []
        for query in queries:
            names = [hit.name for hit in index.search(query, k)]
            ranks.append(names.index(tool.name) + 1 if tool.name in names else None)
        mine = signatures[position]
        overlaps = []
        for other, theirs in zip(listed, signatures, strict=True):
            if other is tool or not mine or not theirs:
                continue
            overlap = len(mine & theirs) / len(mine | theirs)
            if overlap >= CONFUSABLE_FROM:
                overlaps.append((other.name, round(overlap, 2)))
        overlaps.sort(key=lambda item: (-item[1], item[0]))
        out.append(ToolRouting(tool.name, queries, tuple(ranks), tuple(overlaps[:3])))
    return RoutingReport(k, tuple(out))


def cache_lines(changed: Sequence[str]) -> list[str]:
    """What a catalog change does to cached prompt prefixes: ``changed`` names the tools whose
    model-facing definitions changed (added, removed or edited)."""
    if not changed:
        return []
    names = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
    line = (
        f"busts the cached prefix of every export that loads {names} eagerly; "
        "where they are deferred, the eager prefix keeps its bytes"
    )
    return [line]


def compare_routing(old: RoutingReport, new_tools: Iterable[SearchableTool]) -> list[str]:
    """What a new version of the catalog does to the search, for ``tooldesign diff``: the old
    tools' queries are asked of the new catalog too (a description rewritten in other words
    must still be found by what people asked before). Lists recall that changed, tools found
    by fewer of their queries, and tools newly confusable."""
    asked = {t.name: t.queries for t in old.tools}
    new = routing_report(new_tools, k=old.k, intents=asked)
    lines: list[str] = []
    for at in (1, new.k):
        before, after = f"{old.recall(at):.0%}", f"{new.recall(at):.0%}"
        if before != after:
            lines.append(f"recall@{at} {before} -> {after}")
    was = {t.name: t for t in old.tools}
    for tool in new.tools:
        previous = was.get(tool.name)
        if previous is None or not tool.ranks or not previous.ranks:
            continue
        now, then = len(tool.ranks), len(previous.ranks)
        found = sum(r is not None for r in tool.ranks)
        found_before = sum(r is not None for r in previous.ranks)
        first = sum(r == 1 for r in tool.ranks)
        first_before = sum(r == 1 for r in previous.ranks)
        if found * then < found_before * now or first * then < first_before * now:
            lines.append(
                f"{tool.name}: of {now} queries (its old ones too), {found} find it and "
                f"{first} rank it first; was {found_before} and {first_before} of {then}"
            )
        new_siblings = {c for c, _ in tool.confusable} - {c for c, _ in previous.confusable}
        if new_siblings:
            lines.append(f"{tool.name}: now confusable with {', '.join(sorted(new_siblings))}")
    if lines:
        lines.append(f"now {new.summary()}")
    return lines


__all__ = [
    "CONFUSABLE_FROM",
    "RoutingReport",
    "ToolRouting",
    "cache_lines",
    "compare_routing",
    "routing_report",
    "tool_queries",
]
