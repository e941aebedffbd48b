"""Designs generated into a temporary folder, imported, and checked as a user's project would."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tooldesign.codegen import formatting
from tooldesign.codegen.pipeline import Report


class Generated:
    """A design generated into a temporary folder, importable under a unique package name."""

    def __init__(self, root: Path, package: str, report: Report) -> None:
        self.root = root
        self.package = package
        self.report = report

    @property
    def out(self) -> Path:
        return self.root / self.package

    def module(self, dotted: str) -> ModuleType:
        """``svc.toolsets.ts.codecs`` → that generated module."""
        return importlib.import_module(f"{self.package}.{dotted}")


def lint(
    generated: Generated,
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """``ruff check`` and ``mypy --strict`` run over a generated package, from the folder that
    holds it, as in a user's project (run from this repository, ruff would take tooldesign for
    a first-party package)."""
    ruff = subprocess.run(
        [formatting.ruff_binary(), "check", "--isolated", generated.package],
        capture_output=True,
        text=True,
        check=False,
        cwd=generated.root,
    )
    mypy = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--explicit-package-bases",
            generated.package,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=generated.root,
    )
    return ruff, mypy
