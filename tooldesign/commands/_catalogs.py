"""Catalog sources of the commands that read ``tool_schemas.json`` (``export``, ``docs``,
``diff``): a design, or the application's code, given where a catalog is due is told as what
it is."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tooldesign.contract.catalog import CATALOG_NAME
from tooldesign.contract.errors import UserError


def refuse_designs(sources: Iterable[str | None]) -> None:
    """Raise a clear error for a source that is Python rather than a catalog: a design (a
    ``.py`` file that uses the DSL, or a folder of them with no catalog below) must be generated
    first, and its catalogs given instead; other Python (the application's code) is told as
    such."""
    for source in sources:
        if source is None:
            continue
        path = Path(source)
        if path.is_file() and path.suffix == ".py":
            designs = [path] if _is_design(path) else []
            what = "is a design file" if designs else "is a Python file"
            what += ", not a tool catalog"
        elif path.is_dir() and (python := _python_only(path)):
            designs = [file for file in python if _is_design(file)]
            what = (
                "holds design files, not tool catalogs"
                if designs
                else "holds Python files (no design, no tool catalog)"
            )
        else:
            continue
        if designs:
            fix = (
                f"generate the design first (tooldesign gen {source} --out gen), then give the "
                f"generated folder (gen) or a {CATALOG_NAME} in it"
            )
        else:
            fix = (
                f"give the folder tooldesign gen wrote (gen, say) or a {CATALOG_NAME} in it, "
                "or generate a design first (tooldesign gen design --out gen)"
            )
        raise UserError(f"{source}: {what}; {fix}")


def _python_only(folder: Path) -> list[Path]:
    """The Python files at the top of ``folder`` (``__init__.py`` aside), when no catalog is
    anywhere below it; otherwise none."""
    files = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    if not files or next(folder.rglob(CATALOG_NAME), None) is not None:
        return []
    return files


_READ = 100_000
"""How much of a Python file is read to tell a design (which imports the DSL) from other code."""


def _is_design(file: Path) -> bool:
    try:
        with file.open(encoding="utf-8", errors="replace") as text:
            return "tooldesign.dsl" in text.read(_READ)
    except OSError:
        return False
