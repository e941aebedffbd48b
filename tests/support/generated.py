"""Designs generated into a temporary folder, imported, and checked as a user's project would."""

from __future__ import annotations

import importlib
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

from tooldesign.codegen import formatting
from tooldesign.codegen.pipeline import Report
from tooldesign.generate import generate

_counter = itertools.count()


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


class Generator:
    """Generates design texts into ``folder``, each into a package of its own that is importable
    until :meth:`close` (the ``gen_design`` fixtures, tests/conftest.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: list[Generated] = []

    def __call__(self, text: str) -> Generated:
        n = next(_counter)
        design = self.folder / f"design_{n}.py"
        design.write_text(textwrap.dedent(text), encoding="utf-8")
        package = f"tdgen_{n}_{self.folder.name.replace('-', '_')}"
        root = self.folder / f"root_{n}"
        report = generate([str(design)], root / package)
        sys.path.insert(0, str(root))
        importlib.invalidate_caches()
        self.made.append(Generated(root, package, report))
        return self.made[-1]

    def close(self) -> None:
        """Take what was generated off ``sys.path`` and out of ``sys.modules``."""
        for generated in self.made:
            if str(generated.root) in sys.path:
                sys.path.remove(str(generated.root))
            package = generated.package
            for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
                del sys.modules[name]


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
