"""Where in a design file something was declared: what the DSL records, the IR keeps and every
design issue names."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Location:
    """Where in a design file a DSL call was made."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{display_path(self.file)}:{self.line}"


def display_path(file: str) -> str:
    """A design file as messages name it: relative to the current directory when below it."""
    try:
        relative = os.path.relpath(file)
    except ValueError:  # another drive, on Windows
        return file
    return file if relative.startswith("..") else relative
