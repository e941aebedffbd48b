"""What rules across arguments cost the decoder.

In one process, side by side (medians of --repeat rounds, each of --calls decodes), the same
payload (JSON text, valid) decoded by a tool's generated codec:
  (a) baseline: the tool without rules;
  (b) the same tool with ``AtLeastOne("phone", "email")`` and
      ``When("contact_method", equals="phone", requires=["phone"], otherwise=["email"])``;
  (c) for context: ``jsonschema``'s Draft 2020-12 validator of (b)'s published schema, built
      once, on the parsed payload.
Target: b/a ≤ 2 (the rules are one validator of the model, in Python, on each call; a whole
`Runtime.execute` costs several times a decode, benchmarks/runtime.py).

Run: python benchmarks/rules.py [--calls N] [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DESIGN = """
from tooldesign.dsl import *

with Service("{service}", "Contacts"):
    with Toolset("people", "People"):
        with Tool("add_contact", "Add a contact"):
            with Args():
                Attribute("name", String, "Full name")
                Attribute("contact_method", String, "How", enum=["phone", "email"])
                Attribute("phone", String, "Phone number")
                Attribute("email", String, "Email address")
                Required("name")
                {rules}
            Return(String, "Its id")
"""

RULES = (
    'AtLeastOne("phone", "email")\n                '
    'When("contact_method", equals="phone", requires=["phone"], otherwise=["email"])'
)
PAYLOAD = json.dumps({"name": "Ada", "contact_method": "phone", "phone": "555-0100"})


def codec(work: Path, service: str, rules: str) -> Any:
    from tooldesign.generate import generate

    design = work / f"{service}_design.py"
    design.write_text(DESIGN.format(service=service, rules=rules or "pass"))
    generate([str(design)], work / f"{service}gen")
    if str(work) not in sys.path:
        sys.path.insert(0, str(work))
    module = importlib.import_module(f"{service}gen.{service}.toolsets.people.codecs")
    return module.ADD_CONTACT_PAYLOAD


def timed(run: Any, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from jsonschema import Draft202012Validator

    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        plain, ruled = codec(work, "plain", ""), codec(work, "ruled", RULES)
        validator = Draft202012Validator(ruled.spec.schema)
        runs = {
            "(a) without rules": lambda: plain.decode(PAYLOAD),
            "(b) with two rules": lambda: ruled.decode(PAYLOAD),
            "(c) jsonschema, (b)'s schema": lambda: validator.validate(json.loads(PAYLOAD)),
        }
        for run in runs.values():
            run()  # built and warm
        samples: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.repeat):  # rounds interleaved: noise falls on each alike
            for label, run in runs.items():
                samples[label].append(timed(run, args.calls))
    medians = {k: statistics.median(v) / args.calls * 1e6 for k, v in samples.items()}
    base = medians["(a) without rules"]
    print(f"decode of one valid payload, median of {args.repeat} rounds of {args.calls}:")
    for label, us in medians.items():
        print(f"  {label:<30} {us:8.2f} µs  ({us / base:.2f}× (a))")


if __name__ == "__main__":
    main()
