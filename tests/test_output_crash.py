"""A `tooldesign gen` killed (SIGKILL) anywhere in its commit leaves the output folder all old or
all new once the next run has started, and no staging folder behind.

Each trial copies an output folder generated from OLD, runs ``tooldesign gen NEW`` in a
subprocess that kills itself before its Nth file operation (``tests/crash_harness.py``), then
checks the folder as the next run finds it once it has undone what was half-done, and after that
run. OLD → NEW changes a toolset, adds one and removes one, so every kind of change is cut.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tooldesign.codegen.commit import STAGING_PREFIX, recover
from tooldesign.codegen.pipeline import generate

from tests.support import REPO, tree_bytes

pytestmark = pytest.mark.slow

OLD = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("alpha", "First"):
        with Tool("ping", "Say hello"):
            with Args():
                Attribute("name", String, "Who")
            Return(String, "The greeting")
    with Toolset("beta", "Second"):
        with Tool("pong", "Say goodbye"):
            Return(Int, "A number")
"""

NEW = OLD.replace("Say hello", "Say hi").replace(
    """    with Toolset("beta", "Second"):
        with Tool("pong", "Say goodbye"):""",
    """    with Toolset("gamma", "Third"):
        with Tool("peng", "Say nothing"):""",
)

# Every point up to this many file operations is tried when the environment asks for it; by
# default an evenly spread sample, which still covers the first and last operation.
SWEEP = os.environ.get("TOOLDESIGN_CRASH_SWEEP") == "all"
SAMPLE = 10


def _killed_run(
    point: int, phase: str, design: Path, out: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.crash_harness", str(point), phase, "gen", str(design)]
        + ["--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def _operations(result: subprocess.CompletedProcess[str]) -> int:
    assert result.returncode == 0, result.stderr
    return int(result.stderr.rsplit("operations: ", 1)[1])


def _points(total: int) -> list[int]:
    if SWEEP or total <= SAMPLE:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / (SAMPLE - 1)) for i in range(SAMPLE)})


def _no_staging(out: Path) -> bool:
    return not list(out.glob(f"{STAGING_PREFIX}*"))


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, bytes], dict[str, bytes]]:
    """The NEW design, the OLD output (to copy), and both trees' bytes."""
    old_design = tmp_path / "old.py"
    old_design.write_text(OLD)
    new_design = tmp_path / "new.py"
    new_design.write_text(NEW)
    old_out = tmp_path / "old_out"
    generate([str(old_design)], old_out)
    new_out = tmp_path / "new_out"
    generate([str(new_design)], new_out)
    return new_design, old_out, tmp_path, tree_bytes(old_out), tree_bytes(new_out)


def test_a_commit_killed_anywhere_is_undone_by_the_next_run(
    trees: tuple[Path, Path, Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    new_design, old_out, tmp_path, old, new = trees
    out = tmp_path / "out"
    shutil.copytree(old_out, out)
    total = _operations(_killed_run(0, "commit", new_design, out))
    assert tree_bytes(out) == new and _no_staging(out)
    assert total > 20, "the commit makes every kind of change"
    for point in _points(total):
        shutil.rmtree(out)
        shutil.copytree(old_out, out)
        killed = _killed_run(point, "commit", new_design, out)
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        # What the next run finds once it has undone what was left half-done: OLD, or NEW when
        # the kill came after the commit was complete.
        recover(out)
        assert tree_bytes(out) in (old, new), f"mixed output after a kill at operation {point}"
        assert _no_staging(out), point
        generate([str(new_design)], out)
        assert tree_bytes(out) == new, point
        assert _no_staging(out), point


def test_the_next_run_undoes_a_killed_commit_itself(
    trees: tuple[Path, Path, Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    """Through the command line, as a user runs it: the run after the kill says what it undid."""
    new_design, old_out, tmp_path, _old, new = trees
    out = tmp_path / "out"
    shutil.copytree(old_out, out)
    total = _operations(_killed_run(0, "commit", new_design, out))
    shutil.rmtree(out)
    shutil.copytree(old_out, out)
    killed = _killed_run(total - 12, "commit", new_design, out)  # files are moving into place
    assert killed.returncode == -signal.SIGKILL
    assert list(out.glob(f"{STAGING_PREFIX}*/journal.json")), "the kill left the folder mixed"
    check = subprocess.run(
        [sys.executable, "-m", "tooldesign.cli", "gen", str(new_design), "--out", str(out)]
        + ["--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 1 and "was interrupted left" in check.stderr
    again = subprocess.run(
        [sys.executable, "-m", "tooldesign.cli", "gen", str(new_design), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert "change(s) were undone" in again.stderr
    assert tree_bytes(out) == new and _no_staging(out)


def test_a_recovery_killed_anywhere_is_finished_by_the_next_run(
    trees: tuple[Path, Path, Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    new_design, old_out, tmp_path, old, new = trees
    half_done = tmp_path / "half_done"
    shutil.copytree(old_out, half_done)
    total = _operations(_killed_run(0, "commit", new_design, half_done))
    shutil.rmtree(half_done)
    shutil.copytree(old_out, half_done)
    assert _killed_run(total - 12, "commit", new_design, half_done).returncode == -signal.SIGKILL
    assert list(half_done.glob(f"{STAGING_PREFIX}*/journal.json"))
    out = tmp_path / "out"
    shutil.copytree(half_done, out)
    total = _operations(_killed_run(0, "recover", new_design, out))
    assert tree_bytes(out) == new
    for point in _points(total):
        shutil.rmtree(out)
        shutil.copytree(half_done, out)
        killed = _killed_run(point, "recover", new_design, out)
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        recover(out)
        assert tree_bytes(out) == old, f"not undone after a kill at operation {point}"
        assert _no_staging(out), point
