"""Governance speed on the 1,000-tool synthetic catalog (50 toolsets x 20 tools).

Generates the synthetic design once (into a temporary folder), then makes a second version of
its service catalog with one tool in ten changed — a bound narrowed, an argument added, an enum
value removed, a description reworded, a result field removed, a tool removed, one added —
and times, as medians of --repeat runs:

- ``diff``: reading both catalogs (each checked by the catalog loader) and classifying every
  change, in process (target: <= 1 s), and ``tooldesign diff`` as a command;
- ``docs``: the whole reference site of the 1,000 tools — reading the catalog, exporting every
  tool to the four provider forms, counting tokens (when tooldesign[tokens] is installed), rendering
  and writing 1,000 pages — in process (target: <= 3 s), with a page of changes against the
  second version, and ``tooldesign docs`` as a command.

Run: python benchmarks/governance.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design
from tooldesign.contract.catalog import build_catalog, catalog_text
from tooldesign.docsite import build_site
from tooldesign.generate import generate
from tooldesign.govern import diff_catalogs, read_source
from tooldesign.runtime.providers.tokens import token_counter


def second_version(catalog: Path, out: Path) -> dict[str, int]:
    """The catalog with one tool in ten changed, a tool removed and one added; the changes made."""
    tools: list[dict[str, Any]] = json.loads(catalog.read_text(encoding="utf-8"))["tools"]
    changed = copy.deepcopy(tools)
    for index, tool in enumerate(changed):
        if index % 10:
            continue
        args = tool["payload"]["schema"]["properties"]
        match (index // 10) % 5:
            case 0:
                args["limit"]["maximum"] = 50
            case 1:
                args["region"] = {"type": "string", "description": "Region"}
            case 2:
                args["mode"]["enum"] = ["exact", "prefix"]
            case 3:
                tool["description"] = f"{tool['description']}, faster"
            case 4:
                tool["result"]["schema"]["properties"].pop("count")
    removed = changed.pop(len(changed) // 2)
    added = copy.deepcopy(removed)
    added.update(id=f"{removed['service']}.{removed['toolset']}.extra", name="extra")
    changed.append(added)
    out.write_text(catalog_text(build_catalog(changed)), encoding="utf-8")
    return {"tools changed": len(tools) // 10, "removed": 1, "added": 1}


def median_of(runs: int, work: Callable[[], object]) -> tuple[float, float, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times), max(times)


def command(argv: Callable[[], list[str]]) -> Callable[[], object]:
    return lambda: subprocess.run(
        [sys.executable, "-m", "tooldesign.cli", *argv()], capture_output=True, check=False
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        generate([str(write_design(root / "design"))], root / "gen")
        print(f"(generated the synthetic design in {time.perf_counter() - started:.1f} s)")
        old = root / "gen" / "synthetic" / "tool_schemas.json"
        new = root / "new.json"
        made = second_version(old, new)
        diff = diff_catalogs(read_source(str(old)), read_source(str(new)))
        counts = diff.counts()
        print(
            f"tooldesign governance benchmark: {diff.old_count} tools, {args.repeat} runs each "
            f"(medians; min-max in brackets); second version: {made}"
        )
        print(
            f"  diff finds {len(diff.tools)} changed tools: "
            + ", ".join(f"{n} {impact}" for impact, n in counts.items())
        )

        runs = iter(range(1_000_000))

        def site(against: str | None = None) -> Callable[[], object]:
            # A new folder each run: every page is written, as on a first run or in CI.
            return lambda: build_site([str(old)], root / f"site-{next(runs)}", against=against)

        rows = [
            (
                "diff, in process",
                1.0,
                lambda: diff_catalogs(read_source(str(old)), read_source(str(new))),
            ),
            ("tooldesign diff (command)", None, command(lambda: ["diff", str(old), str(new)])),
            ("docs, in process", 3.0, site()),
            ("docs with a page of changes", 3.0, site(str(new))),
            (
                "tooldesign docs (command)",
                None,
                command(lambda: ["docs", str(old), "--out", str(root / f"site-{next(runs)}")]),
            ),
        ]
        for label, target, work in rows:
            median, low, high = median_of(args.repeat, work)
            goal = f"  (target <= {target:.0f} s)" if target else ""
            print(f"  {label:<30} {median:6.2f} s  [{low:.2f}-{high:.2f}]{goal}")
        pages = len(list((root / "site-0" / "tools").iterdir()))
        tokens = "counted" if token_counter() else "not counted: pip install 'tooldesign[tokens]'"
        print(f"  (the site has {pages} tool pages; tokens {tokens})")


if __name__ == "__main__":
    main()
