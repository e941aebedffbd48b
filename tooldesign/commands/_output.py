"""What commands write: an `--out` file whole or not at all, and an import's design file."""

from __future__ import annotations

import argparse
import os
import secrets
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tooldesign.contract.errors import UserError

if TYPE_CHECKING:
    from tooldesign.importers.draft import ImportResult


def write_out_file(path: Path, text: str, *, replace: bool = True) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed over it).

    A new file gets the usual mode (``0o666`` less the umask); a replaced one keeps its mode,
    and a symbolic link keeps pointing where it did (the file it points to is replaced).
    With ``replace=False`` an existing file is left alone and named in the error (the import
    commands ask for ``--force``, so a design someone edited by hand is not lost).
    """
    if path.is_dir():
        raise UserError(f"{path}: is a folder; --out takes a file")
    if path.exists() and not replace:
        raise UserError(f"{path}: already exists; pass --force to replace it")
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            kept_mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            kept_mode = None
        temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        # Created like any new file (0o666 less the umask); mkstemp's 0600 would stay on it.
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            if kept_mode is not None:
                os.chmod(temporary, kept_mode)
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise UserError(f"{path}: cannot write the file: {exc.strerror or exc}") from None


def write_imported_design(result: ImportResult, args: argparse.Namespace, origin: str) -> None:
    """An import's design file to ``--out`` (or standard output), its warnings to stderr."""
    from tooldesign.importers.writer import render

    text = render(result.design)
    for notice in result.notices:
        print(f"tooldesign: warning: {notice}", file=sys.stderr)
    if not args.out:
        sys.stdout.write(text)
        return
    write_out_file(Path(args.out), text, replace=args.force)
    tools = sum(len(t.tools) for t in result.design.toolsets)
    print(f"tooldesign: imported {tools} tool(s) from {origin} into {args.out}", file=sys.stderr)
