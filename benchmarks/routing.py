"""Routing quality beside peers: recall@1 and @5 of tool search over a fixed query set.

Three catalogs: the worked example (``gen/``), the 1,000-tool synthetic catalog (50 toolsets x
20 tools, generated once into a temporary folder) and a real-world one — the tool modules the
importer's tests use (``tests/fixtures/import_python``: MCP, LangChain, pydantic-ai, OpenAI
Agents, smolagents and llama-index style modules, REST stubs), imported into one design and
generated. The queries are fixed: each tool's own, as the routing check asks them
(``tooldesign.govern.routing.tool_queries``: its title, the first sentence of its description,
the words of its example). Search engines, side by side on the same tools and queries:

- tooldesign's BM25 (``search_tools``: names, titles, descriptions, argument names and
  descriptions, tags and example values, fields weighed);
- pydantic-ai's ``ToolSearch`` default (keyword overlap of the query with a tool's name and
  description, ``keywords_search_fn``), when pydantic-ai is installed;
- FastMCP's ``BM25SearchTransform`` and ``RegexSearchTransform`` (``fastmcp.server.transforms.
  search``), each given every tool as a FastMCP ``Tool`` (name, description, input schema) and
  asked through the transform's own search, when FastMCP is installed (the ``dev`` extra pins
  it; else ``pip install fastmcp``: 4.x installs beside the pinned MCP SDK). The BM25
  transform indexes the name, description, argument names and argument descriptions; the regex
  transform matches a pattern and ranks nothing (the first five matches in catalog order), so
  its query is the query's words as an alternation (``(?:word|word|...)``), the pattern a
  model would write for a phrase;
- a name-and-description substring scan (the baseline).

Each line gives recall@1, recall@5 and the median time of one query.

Run: python benchmarks/routing.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design
from tooldesign.contract.catalog import CatalogTool
from tooldesign.generate import generate
from tooldesign.govern.routing import tool_queries
from tooldesign.runtime.providers import load_tools
from tooldesign.runtime.spec.catalog import load_catalog
from tooldesign.runtime.spec.search import SearchIndex, words

REPO = Path(__file__).resolve().parent.parent
Engine = Callable[[str], list[str]]


def ours(tools: list[CatalogTool]) -> Engine:
    index = SearchIndex.build(tools)
    return lambda query: [hit.name for hit in index.search(query, 5)]


def pydantic_ai_keywords(tools: list[CatalogTool]) -> Engine | None:
    try:
        from pydantic_ai.tools import ToolDefinition
        from pydantic_ai.toolsets._tool_search import keywords_search_fn
    except ImportError:
        return None
    definitions = [
        ToolDefinition(
            name=t.name, description=t.description, parameters_json_schema=dict(t.payload.schema)
        )
        for t in tools
    ]
    return lambda query: keywords_search_fn(None, [query], definitions)[:5]  # type: ignore[arg-type]


def _fastmcp(tools: list[CatalogTool], kind: str) -> Engine | None:
    try:
        from fastmcp.server.transforms.search import BM25SearchTransform, RegexSearchTransform
        from fastmcp.tools.base import Tool
    except ImportError:
        return None
    listed = [
        Tool(name=t.name, description=t.description, parameters=dict(t.payload.schema))
        for t in tools
    ]
    transform = BM25SearchTransform() if kind == "bm25" else RegexSearchTransform()

    def ask(query: str) -> list[str]:
        # The transforms' searches are coroutines that never wait: driven by hand, the time
        # measured is the search's, not an event loop's.
        asked = query if kind == "bm25" else "(?:" + "|".join(words(query)) + ")"
        running = transform._search(listed, asked)
        try:
            running.send(None)
        except StopIteration as done:
            return [tool.name for tool in done.value][:5]
        raise RuntimeError("FastMCP's search waited on something")

    ask("warm")  # the BM25 transform builds its index on the first search
    return ask


def substring_scan(tools: list[CatalogTool]) -> Engine:
    texts = [(t.name, f"{t.name} {t.description}".lower()) for t in tools]

    def search(query: str) -> list[str]:
        wanted = words(query)
        scored = [(sum(w in text for w in wanted), n) for n, text in texts]
        ranked = sorted((s for s in scored if s[0]), key=lambda s: -s[0])
        return [name for _, name in ranked[:5]]

    return search


def measure(label: str, tools: list[CatalogTool]) -> None:
    queries = [(t.name, q) for t in tools for q in tool_queries(t)]
    print(f"{label}: {len(tools):,} tools, {len(queries):,} queries")
    engines: list[tuple[str, Engine | None]] = [
        ("tooldesign BM25 (search_tools)", ours(tools)),
        ("pydantic-ai ToolSearch keywords", pydantic_ai_keywords(tools)),
        ("FastMCP BM25SearchTransform", _fastmcp(tools, "bm25")),
        ("FastMCP RegexSearchTransform", _fastmcp(tools, "regex")),
        ("substring scan (baseline)", substring_scan(tools)),
    ]
    for name, engine in engines:
        if engine is None:
            get = "pip install fastmcp" if "FastMCP" in name else "pip install pydantic-ai"
            print(f"  {name:<33} (not installed: {get})")
            continue
        at_1 = at_5 = 0
        times: list[float] = []
        for tool, query in queries:
            started = time.perf_counter()
            found = engine(query)
            times.append(time.perf_counter() - started)
            at_1 += bool(found) and found[0] == tool
            at_5 += tool in found
        print(
            f"  {name:<33} recall@1 {at_1 / len(queries):6.1%}  @5 {at_5 / len(queries):6.1%}"
            f"  query {statistics.median(times) * 1e6:9.1f} µs"
        )


def real_world(root: Path) -> list[CatalogTool]:
    from tooldesign.importers.python import import_python
    from tooldesign.importers.writer import render

    fixtures = sorted((REPO / "tests" / "fixtures" / "import_python").glob("*.py"))
    imported = import_python(fixtures, service="corpus", toolset=None, all_functions=True)
    (root / "corpus.py").write_text(render(imported.design), encoding="utf-8")
    generate([str(root / "corpus.py")], root / "corpus_gen")
    return list(load_catalog(root / "corpus_gen" / "corpus" / "tool_schemas.json").tools)


def main() -> None:
    example: list[Any] = load_tools([str(REPO / "gen")])
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        corpus = real_world(root)
        design = write_design(root / "design")
        generate([str(design)], root / "gen")
        synthetic = list(load_catalog(root / "gen" / "synthetic" / "tool_schemas.json").tools)
    measure("the worked example", example)
    measure("real-world tool modules, merged", corpus)
    measure("the synthetic catalog", synthetic)


if __name__ == "__main__":
    main()
