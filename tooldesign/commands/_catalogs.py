"""Catalog sources of the commands that read ``tool_schemas.json`` (``export``, ``docs``,
``diff``): a design given where a catalog is due is told as what it is."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tooldesign.contract.catalog import CATALOG_NAME
from tooldesign.contract.errors import UserError


def refuse_designs(sources: Iterable[str | None]) -> None:
    """Raise a clear error for a source that is a design (a ``.py`` file, or a folder of them
    with no catalog below): it must be generated first, and its catalogs given instead."""
    for source in sources:
        if source is None:
            continue
        path = Path(source)
        if path.is_file() and path.suffix == ".py":
            what = "is a design file, not a tool catalog"
        elif path.is_dir() and _designs_only(path):
            what = "holds design files, not tool catalogs"
        else:
            continue
        raise UserError(
            f"{source}: {what}; generate the design first "
            f"(tooldesign gen {source} --out gen), then give the generated folder (gen) "
            f"or a {CATALOG_NAME} in it"
        )


def _designs_only(folder: Path) -> bool:
    """A folder holding design files at its top and no catalog anywhere below."""
    has_designs = any(p.name != "__init__.py" for p in folder.glob("*.py"))
    return has_designs and next(folder.rglob(CATALOG_NAME), None) is None
