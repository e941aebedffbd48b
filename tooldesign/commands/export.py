"""``tooldesign export --provider P [--strict] [--api A] [--format json|prompt] SOURCE...``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.errors import UserError


def run(args: argparse.Namespace) -> int:
    from tooldesign.runtime.providers import adapter, load_tools, prompt_listing

    tools = load_tools(args.sources)
    if not tools:
        raise UserError("the catalogs list no tools")
    if args.format == "prompt":
        text = prompt_listing(tools)
    else:
        try:
            exported = adapter(args.provider, tools, strict=args.strict, api=args.api).tools()
        except ValueError as exc:  # an option that does not apply to the provider
            if isinstance(exc, UserError):
                raise
            raise UserError(str(exc)) from None
        text = json.dumps(exported, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        try:
            _write_atomically(Path(args.out), text)
        except OSError as exc:
            raise UserError(f"{args.out}: cannot write the file: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _write_atomically(path: Path, text: str) -> None:
    if path.is_dir():
        raise UserError(f"{path}: is a folder; --out takes a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
