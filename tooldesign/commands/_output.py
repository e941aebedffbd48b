"""Writing a command's ``--out`` file: whole or not at all, never a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tooldesign.errors import UserError


def write_out_file(path: Path, text: str, *, replace: bool = True) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed over it).

    With ``replace=False`` an existing file is left alone and named in the error (the import
    commands ask for ``--force``, so a design someone edited by hand is not lost).
    """
    if path.is_dir():
        raise UserError(f"{path}: is a folder; --out takes a file")
    if path.exists() and not replace:
        raise UserError(f"{path}: already exists; pass --force to replace it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise UserError(f"{path}: cannot write the file: {exc.strerror or exc}") from None
