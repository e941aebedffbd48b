"""Code generation speed on a 1,000-tool synthetic design (50 toolsets x 20 tools).

Prints, side by side (medians of --repeat runs):
  - full generation into an empty folder (the `tooldesign gen` command, start to finish);
  - regeneration with nothing changed;
  - regeneration after one tool's description changed (its types.py is reused);
  - regeneration after one tool's argument changed (its toolset's models are generated again);
  - peak memory of the generation (largest process, and the whole process tree);
  - the floor: datamodel-code-generator alone producing the same models, sequentially, in one
    process (import included).

Then design evaluation alone (fresh process, median) of the design written out in one module
(`--unrolled` spells it that way for the whole run too) at 250, 500, 1,000 and 2,000 tools, to
show that evaluation is linear in the size of a design module.

Targets: full ≤ 1.0 x floor, unchanged ≤ 0.6 s, one-tool change ≤ 1.0 s, peak RSS ≤ 400 MB.

Run: python benchmarks/codegen.py [--repeat N] [--unrolled]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design

FLOOR_SCRIPT = """
import json, sys, time
started = time.perf_counter()
from tooldesign.codegen.models import models_source
documents = json.load(open(sys.argv[1]))
for doc in documents:
    models_source(doc["schema"], aliases=doc["aliases"], bounded_classes=tuple(doc["bounded"]))
print(time.perf_counter() - started)
"""


def _tree_rss_kb(pid: int) -> tuple[int, int]:
    """(largest process, sum over the tree) resident set sizes in KiB for ``pid`` and descendants."""
    pids, sizes = [pid], []
    while pids:
        current = pids.pop()
        try:
            with open(f"/proc/{current}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        sizes.append(int(line.split()[1]))
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    pids.extend(int(p) for p in handle.read().split())
        except (OSError, ValueError):
            continue
    return (max(sizes, default=0), sum(sizes))


def run_gen(design: Path, out: Path) -> tuple[float, int, int]:
    """Wall seconds and peak RSS (largest process, whole tree; KiB) of one `tooldesign gen`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "tooldesign.cli", "gen", str(design), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak_single = peak_tree = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak_single, peak_tree
        while not stop.is_set():
            single, tree = _tree_rss_kb(process.pid)
            peak_single, peak_tree = max(peak_single, single), max(peak_tree, tree)
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate()
    elapsed = time.perf_counter() - started
    stop.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"tooldesign gen failed:\n{stderr}")
    return elapsed, peak_single, peak_tree


def floor_seconds(design: Path, work: Path) -> float:
    """datamodel-code-generator alone on the same per-toolset schemas, in one fresh process."""
    import json

    from tooldesign.codegen.views import toolset_views
    from tooldesign.eval.evaluate import evaluate

    documents = [
        {
            "schema": view.model_schema,
            "aliases": view.aliases,
            "bounded": list(view.bounded_classes),
        }
        for _, view in toolset_views(evaluate([str(design)]))
    ]
    data = work / "documents.json"
    data.write_text(json.dumps(documents))
    result = subprocess.run(
        [sys.executable, "-c", FLOOR_SCRIPT, str(data)], capture_output=True, text=True, check=True
    )
    return float(result.stdout.strip())


EVALUATE_SCRIPT = """
import sys, time
from tooldesign.eval.evaluate import evaluate
started = time.perf_counter()
evaluate([sys.argv[1]])
print(time.perf_counter() - started)
"""


def evaluation_seconds(design: Path) -> float:
    """Evaluating ``design`` alone (load, build, validate, bind), in a fresh process."""
    result = subprocess.run(
        [sys.executable, "-c", EVALUATE_SCRIPT, str(design)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout.strip())


def evaluation_scaling(work: Path, repeat: int) -> None:
    """Evaluation time of the unrolled design at growing sizes: linear means time/tool is flat."""
    print("  design evaluation, every tool written out in one module (fresh process):")
    for tools in (250, 500, 1000, 2000):
        design = write_design(
            work / f"unrolled{tools}", toolsets=tools // 25, tools=25, unrolled=True
        )
        times = [evaluation_seconds(design) for _ in range(repeat)]
        median = statistics.median(times)
        print(
            f"    {tools:>5} tools  {median:7.3f} s  [{min(times):.3f}-{max(times):.3f}]"
            f"  {1e6 * median / tools:6.0f} µs per tool"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--toolsets", type=int, default=50)
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument(
        "--unrolled", action="store_true", help="write every tool out in one design module"
    )
    args = parser.parse_args()
    spelling = {"unrolled": args.unrolled}
    # Runs as users run it: Python caches the bytecode of tooldesign's own modules between
    # runs unless told not to; an environment that turns the cache off would charge every run
    # their compilation. (A design is compiled from its source on every run regardless.)
    bytecode_off = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None

    work = Path(tempfile.mkdtemp(prefix="tooldesign-bench-"))
    # tooldesign's cache (a design's compiled code, kept by its source's hash) starts empty and
    # lives with the run: the first run of each design text compiles it, as a user's would.
    os.environ["TOOLDESIGN_CACHE_DIR"] = str(work / "cache")
    try:
        design = write_design(work / "design", toolsets=args.toolsets, tools=args.tools, **spelling)
        full, unchanged, one_tool, one_arg, floors, single_rss, tree_rss = (
            [],
            [],
            [],
            [],
            [],
            [],
            [],
        )
        for i in range(args.repeat):
            out = work / f"gen{i}"
            write_design(work / "design", toolsets=args.toolsets, tools=args.tools, **spelling)
            seconds, single, tree = run_gen(design, out)
            full.append(seconds)
            single_rss.append(single)
            tree_rss.append(tree)
            unchanged.append(run_gen(design, out)[0])
            changed = {f"tool_{i % args.toolsets:02d}_07": f"Changed description, run {i}"}
            write_design(
                work / "design",
                toolsets=args.toolsets,
                tools=args.tools,
                descriptions=changed,
                **spelling,
            )
            one_tool.append(run_gen(design, out)[0])
            limits = {f"tool_{(i + 1) % args.toolsets:02d}_03": 100 + i}
            write_design(
                work / "design",
                toolsets=args.toolsets,
                tools=args.tools,
                descriptions=changed,
                query_limits=limits,
                **spelling,
            )
            one_arg.append(run_gen(design, out)[0])
            floors.append(floor_seconds(design, work))
            shutil.rmtree(out)

        med = statistics.median
        floor = med(floors)
        tools = args.toolsets * args.tools
        print(
            f"tooldesign codegen benchmark: {args.toolsets} toolsets x {args.tools} tools = {tools} tools"
            f"{' (written out in one module)' if args.unrolled else ''}, "
            f"{args.repeat} runs, {os.cpu_count()} CPUs (medians; min-max in brackets)"
        )
        if bytecode_off:
            print("  (PYTHONDONTWRITEBYTECODE was set: unset for these runs, as Python's default)")
        rows = [
            ("full generation", full, f"{med(full) / floor:.2f} x floor (target <= 1.0)"),
            ("regenerate, nothing changed", unchanged, "target <= 0.6 s"),
            ("regenerate, one tool's description changed", one_tool, "target <= 1.0 s"),
            (
                "regenerate, one tool's argument changed",
                one_arg,
                "models of one toolset regenerated",
            ),
            (
                "floor: datamodel-code-generator alone",
                floors,
                f"{1000 * floor / args.toolsets:.0f} ms per toolset",
            ),
        ]
        for label, values, note in rows:
            print(
                f"  {label:<44} {med(values):7.3f} s  [{min(values):.3f}-{max(values):.3f}]  {note}"
            )
        print(
            f"  {'peak RSS, largest process':<44} {med(single_rss) / 1024:7.1f} MB  (target <= 400 MB)"
        )
        print(f"  {'peak RSS, whole process tree':<44} {med(tree_rss) / 1024:7.1f} MB")
        evaluation_scaling(work, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
