"""``tooldesign import python``: code-first tool functions read into a design draft."""

from tooldesign.importers.python.annotations import ImportResult, import_python

__all__ = ["ImportResult", "import_python"]
