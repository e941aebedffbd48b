"""The distributed benchmark runs (a short version): it cannot rot unseen again."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO


@pytest.mark.slow
def test_the_distributed_benchmark_runs_and_loses_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/distributed.py", "--quick", "--repeat", "1", "--load", "0"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for label in ("in-process", "Redis, 1 worker", "Redis, 2 workers"):
        assert label in out
    assert "lost 0, repeated effects 0" in out, out
