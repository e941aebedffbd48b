"""Catalogs at scale: tokens per request eager vs deferred, tool search speed, spilling.

On the 1,000-tool synthetic catalog (50 toolsets x 20 tools, generated once into a temporary
folder):

- tokens per request (cl100k, offline) of every tool loaded eagerly vs a deferred plan (one
  toolset of 20 eager, the rest deferred) for each provider form: the hosted searches of OpenAI
  Responses and Anthropic, the builtin ``search_tools`` elsewhere. What a request costs is its
  eager prefix: deferred definitions are not in the model's context until found. Beside the MCP
  line, the same plan under FastMCP's ``BM25SearchTransform`` (the 20 eager tools pinned with
  ``always_visible``, its ``search_tools`` and ``call_tool`` for the rest), when FastMCP is
  installed (the ``dev`` extra pins it; else ``pip install fastmcp``).
- the BM25 search's latency per query over 1,000 and 10,000 tools (the 1,000 copied; median and
  90th percentile of the queries, one per tool, from its description), beside two baselines
  from the same run: the same sums made one posting at a time in Python, and a substring scan of
  the tools' descriptions; its recall@1 and @5 for those queries over the 1,000; the index's
  build time from the words ``gen`` stored (``tool_search.json``, what a runtime does) beside
  reading every tool's words again; and the time ``gen`` takes to write those words beside the
  generation of the catalog.
- spilling a 10 MB result: the time to make the preview and keep the result, beside encoding
  the result as JSON (what every call does anyway), and the preview's size in tokens.

Run: python benchmarks/catalogs.py [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design
from tooldesign.builtin.gen.builtin.toolsets.tool_index.specs import SPECS as DISCOVERY
from tooldesign.contract.catalog import CatalogTool
from tooldesign.generate import generate
from tooldesign.runtime.budget import Spills, budgeted
from tooldesign.runtime.providers import LoadingPlan, adapter, deferred_export
from tooldesign.runtime.providers.tokens import token_counter
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.catalog import load_catalog
from tooldesign.runtime.spec.limits import Limits
from tooldesign.runtime.spec.search import (
    WORDS_NAME,
    SearchIndex,
    read_words,
    tool_words,
    words,
    words_text,
)
from tooldesign.runtime.spill import MemoryResultStore

FORMS: list[tuple[str, Any, str | None]] = [
    ("openai responses", "openai", "responses"),
    ("anthropic", "anthropic", None),
    ("openai chat", "openai", None),
    ("gemini (json schema)", "gemini", "json_schema"),
    ("mcp", "mcp", None),
]
PLAN = LoadingPlan(default="deferred", eager=["toolset_00"])


def _median_ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:8.3f} ms"


def tokens_per_request(tools: list[Any]) -> None:
    count = token_counter()
    if count is None:
        print("  (no offline tokenizer: pip install 'tooldesign[tokens]' to count tokens)")
        return
    print("tokens per request, every tool eager vs deferred (20 eager, 980 deferred):")
    for label, provider, api in FORMS:
        everything = adapter(provider, [*tools, *DISCOVERY], api=api)
        eager = count(json.dumps(everything.tools()))
        made = deferred_export(everything, PLAN)
        prefix = count(json.dumps(made.prefix))
        print(
            f"  {label:<22} eager {eager:>9,}  deferred {prefix:>7,}  ({prefix / eager:.1%};"
            f" search: {made.search})"
        )
        if provider == "mcp":
            print(f"  {'':<22} {_fastmcp_prefix(made.prefix, count)}")


def _fastmcp_prefix(prefix: list[Any], count: Any) -> str:
    """The deferred MCP plan's request under FastMCP's BM25 transform: the same eager tools
    pinned, FastMCP's search and call tools in place of ours."""
    try:
        from fastmcp.server.transforms.search import BM25SearchTransform
    except ImportError:
        return "FastMCP BM25 transform: not installed (pip install fastmcp)"
    ours = {spec.name for spec in DISCOVERY}
    pinned = [tool for tool in prefix if tool.get("name") not in ours]
    theirs = asyncio.run(BM25SearchTransform().transform_tools([]))
    listed = [
        t.to_mcp_tool().model_dump(mode="json", by_alias=True, exclude_none=True) for t in theirs
    ]
    tokens = count(json.dumps([*pinned, *listed]))
    return f"FastMCP BM25 transform, same 20 pinned: {tokens:>7,} (its search_tools + call_tool)"


def _renamed(tool: CatalogTool, n: int) -> CatalogTool:
    return dataclasses.replace(tool, id=f"{tool.id}_{n}", name=f"{tool.name}_{n}")


def _one_posting_at_a_time(
    postings: dict[str, list[tuple[int, float]]], size: int, query: str, limit: int
) -> list[int]:
    """The baseline: the same BM25 sum, one Python step per posting (as the search ran before
    its sums were made by C loops)."""
    asked = [w for w in dict.fromkeys(words(query)) if w in postings]
    asked = [w for w in asked if len(postings[w]) * 2 <= size] or asked
    scores: dict[int, float] = {}
    for word in asked:
        for position, weight in postings[word]:
            scores[position] = scores.get(position, 0.0) + weight
    chosen = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [position for position, _ in chosen[:limit]]


def search_speed(
    tools: list[CatalogTool], stored: list[Counter[str]], repeat: int, generation: float
) -> None:
    print("tool search (BM25, in process):")
    for size in (1_000, 10_000):
        copies = size // len(tools)
        listed = [_renamed(t, n) for n in range(copies) for t in tools][:size]
        names = [t.name for t in listed]
        builds: list[float] = []
        loads: list[float] = []
        index = SearchIndex.build(listed)
        for _ in range(repeat):
            started = time.perf_counter()
            index = SearchIndex.from_words(names, [tool_words(t) for t in listed])
            builds.append(time.perf_counter() - started)
            started = time.perf_counter()  # what a runtime does: the words gen stored
            SearchIndex.from_words(names, [Counter(d) for _ in range(copies) for d in stored])
            loads.append(time.perf_counter() - started)
        queries = [t.title or t.description for t in listed[: min(len(listed), 1000)]]
        found_1 = found_5 = 0
        per_query: list[float] = []
        for tool, query in zip(listed, queries, strict=False):
            started = time.perf_counter()
            hits = index.search(query, 5)
            per_query.append(time.perf_counter() - started)
            found = [h.name for h in hits]
            found_1 += bool(found) and found[0] == tool.name
            found_5 += tool.name in found
        postings = {w: [(p, s) for p, s in ps] for w, ps in index.to_json()["postings"].items()}
        stepwise: list[float] = []
        for query in queries:
            started = time.perf_counter()
            _one_posting_at_a_time(postings, size, query, 5)
            stepwise.append(time.perf_counter() - started)
        scans: list[float] = []
        texts = [(t.name, t.description.lower()) for t in listed]
        for query in queries[:200]:
            wanted = words(query)
            started = time.perf_counter()
            _ = [n for n, text in texts if any(w in text for w in wanted)][:5]
            scans.append(time.perf_counter() - started)
        # The 10,000 are the 1,000 copied ten times: only the 1,000 tell recall.
        recall = (
            f"; recall@1 {found_1 / len(queries):.0%}, @5 {found_5 / len(queries):.0%}"
            if size == len(tools)
            else ""
        )
        print(
            f"  {size:>6,} tools: query median {statistics.median(per_query) * 1e6:7.1f} µs,"
            f" p90 {_p90(per_query) * 1e6:7.1f} µs  (baselines: one posting at a time"
            f" {statistics.median(stepwise) * 1e6:7.1f} µs, p90 {_p90(stepwise) * 1e6:7.1f} µs;"
            f" substring scan {statistics.median(scans) * 1e6:8.1f} µs){recall}"
        )
        print(
            f"          index: from the words gen stored {_median_ms(loads)}"
            f"  (baseline, reading every tool's words: {_median_ms(builds)})"
        )
    started = time.perf_counter()
    words_text(tools)
    writing = time.perf_counter() - started
    print(
        f"  gen writes the 1,000 tools' words in {writing * 1000:.1f} ms"
        f" ({writing / generation:.1%} of generating them)"
    )


def _p90(times: list[float]) -> float:
    return sorted(times)[len(times) * 9 // 10]


def spill_speed(repeat: int) -> None:
    rows = [{"id": i, "name": f"row {i:07d}", "tags": ["alpha", "beta"]} for i in range(160_000)]
    value = {"rows": rows, "total": len(rows), "query": "everything"}
    encode: list[float] = []
    spill: list[float] = []
    store = MemoryResultStore()
    limits = Limits(result_overflow="spill")

    async def runs() -> str:  # in one event loop, as calls run in a runtime
        shown = ""
        for _ in range(repeat):
            started = time.perf_counter()
            encoded = json.dumps(value, separators=(",", ":"))
            encode.append(time.perf_counter() - started)
            result = ToolResult("rows", result=value, result_json=encoded)
            started = time.perf_counter()
            answered = await budgeted(
                result, limits, "b.t.rows", "rows", ToolCallMeta(), Spills(store)
            )
            spill.append(time.perf_counter() - started)
            shown = answered.for_model()
        return shown

    preview_text = asyncio.run(runs())
    encoded = json.dumps(value, separators=(",", ":"))
    count = token_counter()
    tokens = f", {count(preview_text):,} tokens" if count is not None else ""
    print(
        f"spill a {len(encoded) / 1e6:.1f} MB result: {_median_ms(spill)} "
        f"(encoding it as JSON, baseline: {_median_ms(encode)}); "
        f"preview {len(preview_text.encode()):,} bytes{tokens}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        design = write_design(root / "design")
        started = time.perf_counter()
        generate([str(design)], root / "gen")
        generation = time.perf_counter() - started
        catalog = load_catalog(root / "gen" / "synthetic" / "tool_schemas.json")
        stored_by_id: dict[str, Counter[str]] = {}
        for path in sorted((root / "gen" / "synthetic").rglob(WORDS_NAME)):
            stored_by_id.update(read_words(path.read_text(encoding="utf-8")) or {})
    tools = list(catalog.tools)
    stored = [stored_by_id[str(t.id)] for t in tools]
    print(f"catalogs benchmark: {len(tools)} tools (generated in {generation:.1f} s)")
    tokens_per_request(tools)
    search_speed(tools, stored, args.repeat, generation)
    spill_speed(args.repeat)


if __name__ == "__main__":
    main()
