"""``tooldesign export --provider P [--strict] [--api A] [--format json|prompt] SOURCE...``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_out_file
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
        write_out_file(Path(args.out), text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
