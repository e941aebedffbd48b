"""Where exported tools come from on disk: ``tool_schemas.json`` files, or folders of them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tooldesign.contract.catalog import CATALOG_NAME, CatalogTool
from tooldesign.contract.errors import UserError
from tooldesign.runtime.spec.catalog import load_catalog


def load_tools(paths: Iterable[str | os.PathLike[str]]) -> list[CatalogTool]:
    """The tools of catalogs: each path a ``tool_schemas.json`` or a folder holding some.

    A folder (a ``gen/`` folder, say) is searched below; a service's catalog and its toolsets'
    catalogs list the same tools, so each tool is taken once (from the catalog nearest the top,
    which lists the most). A missing path, a folder without catalogs and a corrupt catalog are
    errors naming the file.
    """
    tools: dict[str, CatalogTool] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(path.rglob(CATALOG_NAME), key=lambda p: (len(p.parts), p.as_posix()))
            if not found:
                raise UserError(f"{path}: no {CATALOG_NAME} below this folder")
        elif path.is_file():
            found = [path]
        else:
            raise UserError(f"{path}: no such file or folder")
        for catalog_path in found:
            for tool in load_catalog(catalog_path):
                tools.setdefault(tool.id, tool)
    return list(tools.values())
