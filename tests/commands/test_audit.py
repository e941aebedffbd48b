"""``tooldesign audit verify PATH``: ok with the head digest, or the first broken line, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tooldesign.runtime import JsonLinesAudit

from tests.runtime.control.test_audit import record
from tests.support import REPO


def written(path: Path, count: int) -> list[str]:
    with JsonLinesAudit(path) as sink:
        for index in range(count):
            sink.record(record(index))
    return path.read_text().splitlines(keepends=True)


@pytest.mark.slow  # starts the CLI
def test_the_cli_verifies_a_trail_and_names_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = written(path, 3)

    def verify() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "tooldesign", "audit", "verify", str(path)]
        return subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)

    good = verify()
    assert good.returncode == 0 and good.stdout.startswith("ok: 3 records, head ")
    path.write_text(lines[0] + lines[2])
    bad = verify()
    assert bad.returncode == 1
    assert f"{path}:2: " in bad.stderr and "deleted, moved or inserted" in bad.stderr


@pytest.mark.slow  # starts the CLI
def test_a_missing_trail_is_a_usage_error(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tooldesign", "audit", "verify", str(tmp_path / "none")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 2 and "no file" in done.stderr
