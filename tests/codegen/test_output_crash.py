"""A `tooldesign gen` killed (SIGKILL) anywhere in its commit leaves the output folder all old or
all new once the next run has started, and no staging folder behind.

Each trial copies an output folder generated from OLD, runs ``tooldesign gen NEW`` in a
subprocess that kills itself before its Nth file operation (``tests/codegen/crash_harness.py``), then
checks the folder as the next run finds it once it has undone what was half-done, and after that
run. OLD → NEW changes a toolset, adds one and removes one, so every kind of change is cut.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tooldesign.codegen.commit import STAGING_PREFIX, recover
from tooldesign.codegen.files import CATALOG_NAME
from tooldesign.generate import generate

from tests.codegen.test_output import SMALL
from tests.support import REPO, tree_bytes

pytestmark = pytest.mark.slow

OLD = SMALL
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
        [sys.executable, "-m", "tests.codegen.crash_harness", str(point), phase, "gen", str(design)]
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


def _gen(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tooldesign.cli", "gen", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)


@dataclass
class Trees:
    new_design: Path
    old_out: Path
    """The output of OLD, copied for each trial."""
    old: dict[str, bytes]
    new: dict[str, bytes]

    def fresh(self, out: Path) -> Path:
        """``out`` holding the output of OLD (whatever it held)."""
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(self.old_out, out)
        return out

    def half_written(self, out: Path) -> Path:
        """``out`` as a run killed while its files were moving into place left it."""
        total = _operations(_killed_run(0, "commit", self.new_design, self.fresh(out)))
        killed = _killed_run(total - 12, "commit", self.new_design, self.fresh(out))
        assert killed.returncode == -signal.SIGKILL
        assert list(out.glob(f"{STAGING_PREFIX}*/journal.json")), "the kill left it mixed"
        return out


@pytest.fixture
def trees(tmp_path: Path) -> Trees:
    old_design = tmp_path / "old.py"
    old_design.write_text(OLD)
    new_design = tmp_path / "new.py"
    new_design.write_text(NEW)
    generate([str(old_design)], tmp_path / "old_out")
    generate([str(new_design)], tmp_path / "new_out")
    old, new = tree_bytes(tmp_path / "old_out"), tree_bytes(tmp_path / "new_out")
    return Trees(new_design, tmp_path / "old_out", old, new)


def test_a_commit_killed_anywhere_is_undone_by_the_next_run(trees: Trees, tmp_path: Path) -> None:
    out = trees.fresh(tmp_path / "out")
    total = _operations(_killed_run(0, "commit", trees.new_design, out))
    assert tree_bytes(out) == trees.new and _no_staging(out)
    assert total > 20, "the commit makes every kind of change"
    for point in _points(total):
        killed = _killed_run(point, "commit", trees.new_design, trees.fresh(out))
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        # What the next run finds once it has undone what was left half-done: OLD, or NEW when
        # the kill came after the commit was complete.
        recover(out)
        assert tree_bytes(out) in (trees.old, trees.new), f"mixed after a kill at {point}"
        assert _no_staging(out), point
        generate([str(trees.new_design)], out)
        assert tree_bytes(out) == trees.new, point
        assert _no_staging(out), point


def test_the_next_run_undoes_a_killed_commit_itself(trees: Trees, tmp_path: Path) -> None:
    """Through the command line, as a user runs it: the run after the kill says what it undid."""
    out = trees.half_written(tmp_path / "out")
    staged = [p.name for p in out.glob(f"{STAGING_PREFIX}*/**/*") if p.is_file()]
    assert not [name for name in staged if name.endswith((".py", CATALOG_NAME))], (
        "nothing that searches the folder (export, diff, mypy) takes a staged copy for a file"
    )
    check = _gen(str(trees.new_design), "--out", str(out), "--check")
    assert check.returncode == 1 and "was interrupted left" in check.stderr
    again = _gen(str(trees.new_design), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "change(s) were undone" in again.stderr
    assert tree_bytes(out) == trees.new and _no_staging(out)


def test_a_recovery_killed_anywhere_is_finished_by_the_next_run(
    trees: Trees, tmp_path: Path
) -> None:
    half_done = trees.half_written(tmp_path / "half_done")
    out = tmp_path / "out"
    shutil.copytree(half_done, out)
    total = _operations(_killed_run(0, "recover", trees.new_design, out))
    assert tree_bytes(out) == trees.new
    for point in _points(total):
        shutil.rmtree(out)
        shutil.copytree(half_done, out)
        killed = _killed_run(point, "recover", trees.new_design, out)
        assert killed.returncode == -signal.SIGKILL, (point, killed.stderr)
        recover(out)
        assert tree_bytes(out) == trees.old, f"not undone after a kill at operation {point}"
        assert _no_staging(out), point
