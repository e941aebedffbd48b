"""Code mode's benchmarks run (a short version): they cannot rot unseen."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO


def run(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
def test_the_code_mode_benchmark_runs() -> None:
    out = run("benchmarks/code_mode.py", "--repeat", "1", "--calls", "5")
    for label in ("(a) the multi-step task", "(b) one call of get_site", "(c) tool definitions"):
        assert label in out, out
    assert "from code, in run_code" in out


@pytest.mark.slow
def test_the_peer_benchmark_runs_and_every_way_answers_alike() -> None:
    out = run("benchmarks/code_mode_peers.py", "--repeat", "1")
    answers = {
        line.split(": ", 1)[1]
        for line in out.splitlines()
        if line.strip().startswith(("direct:", "tooldesign code mode:", "FastMCP code mode:"))
    }
    assert len(answers) == 1, out  # the same task, the same answer
    assert '"restarted": "dev-6a99b44c"' in answers.pop()
