"""Cold paths and large deployments: the 1,000-tool synthetic design (50 toolsets x 20 tools).

Each section prints tooldesign's figure next to its baseline (medians of --repeat runs):
  import   importing every generated executor of the 1,000 tools, in a fresh process with its
           bytecode cached, against importing pydantic and tooldesign.runtime alone
           (target: <= 1.0 s);
  mcp      an MCP server of the 1,000 tools started over stdio until it has listed them:
           tooldesign.runtime.mcp with the generated toolsets against the official SDK's own
           server (FastMCP in the ``mcp`` package) with 1,000 equivalent functions: resident
           memory and CPU to start (target: memory <= the SDK's);
  invalid  an invalid call to its error text: ``Runtime.execute`` against pydantic-ai's
           ModelRetry path for the same tool when pydantic-ai is installed, and against the
           floor (pydantic ``model_validate_json`` and formatting its errors) (target: <= 1.0x);
  sync     ``Runtime.execute_sync`` against ``await Runtime.execute`` (target: <= 2x);
  dict     arguments handed over parsed (a dict, as Anthropic, MCP and Gemini give them)
           against the same arguments as JSON text.

Run: python benchmarks/large.py [--repeat N] [--only import,mcp,invalid,sync,dict]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import write_design

TOOLSETS, TOOLS = 50, 20

IMPORT_SCRIPT = """
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
started, cpu = time.perf_counter(), time.process_time()
import pydantic, tooldesign.runtime
if sys.argv[2] == "generated":
    for t in range(int(sys.argv[3])):
        importlib.import_module(f"synthetic.toolsets.toolset_{t:02d}.executor")
print(time.perf_counter() - started, time.process_time() - cpu)
"""


def fresh_env() -> dict[str, str]:
    """The environment for child processes: bytecode written and read, as in a deployment."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def import_seconds(gen: Path, what: str) -> tuple[float, float]:
    """(wall, CPU) seconds to import ``what`` in a fresh process."""
    ran = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT, str(gen), what, str(TOOLSETS)],
        capture_output=True,
        text=True,
        check=True,
        env=fresh_env(),
    )
    wall, cpu = ran.stdout.split()
    return float(wall), float(cpu)


def medians(samples: list[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(statistics.median(column) for column in zip(*samples, strict=True))


def section_import(gen: Path, repeat: int) -> None:
    import_seconds(gen, "generated")  # writes the bytecode
    ours = medians([import_seconds(gen, "generated") for _ in range(repeat)])
    floor = medians([import_seconds(gen, "floor") for _ in range(repeat)])
    print(f"import of the generated packages ({TOOLSETS * TOOLS} tools, bytecode cached):")
    print(
        f"  {'every executor (pydantic + runtime included)':<46} {ours[0]:6.2f} s wall  "
        f"{ours[1]:6.2f} s CPU   (target <= 1.0 s)"
    )
    print(
        f"  {'floor: pydantic + tooldesign.runtime alone':<46} {floor[0]:6.2f} s wall  "
        f"{floor[1]:6.2f} s CPU"
    )


SECTIONS: dict[str, Callable[[Path, int], None]] = {
    "import": section_import,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--gen", type=Path, help="an existing generation of the synthetic design")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tooldesign-large-") as folder:
        gen = args.gen
        if gen is None:
            from tooldesign.codegen.pipeline import generate

            root = Path(folder)
            design = write_design(root / "design", toolsets=TOOLSETS, tools=TOOLS)
            started = time.perf_counter()
            generate([str(design)], root / "gen")
            gen = root / "gen"
            print(f"(generated the synthetic design in {time.perf_counter() - started:.1f} s)")
        print(f"tooldesign large-deployment benchmark: {args.repeat} runs each (medians)")
        for name in args.only.split(","):
            SECTIONS[name](gen, args.repeat)


if __name__ == "__main__":
    main()
