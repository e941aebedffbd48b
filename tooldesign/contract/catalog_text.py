"""A catalog document as the text ``tooldesign gen`` writes (:func:`catalog_text`), one tool per
line; :mod:`tooldesign.contract.catalog` re-exports it."""

from __future__ import annotations

import json
from typing import Any


def catalog_text(catalog: dict[str, Any]) -> str:
    """The catalog as JSON with one tool per line.

    Diffs stay per tool, and each line is written by the C encoder (``indent`` would force the
    pure-Python one, slow on catalogs of thousands of tools).
    """
    head = {key: value for key, value in catalog.items() if key != "tools"}
    lines = [_compact(tool) for tool in catalog["tools"]]
    body = ",\n".join(lines)
    return (
        f'{_compact(head)[:-1]}, "tools": [\n{body}\n]}}\n'
        if lines
        else f'{_compact(head)[:-1]}, "tools": []}}\n'
    )


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
