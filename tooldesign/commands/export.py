"""``tooldesign export --provider P [--strict] [--api A] SOURCE...``, or ``--format prompt``."""

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

    _check_options(args)
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


def _check_options(args: argparse.Namespace) -> None:
    """Options that mean nothing together are refused, never ignored."""
    if args.format == "prompt":
        given = [
            flag
            for flag, value in (
                ("--provider", args.provider),
                ("--strict", args.strict),
                ("--api", args.api),
            )
            if value
        ]
        if given:
            verb, pronoun = ("applies", "it") if len(given) == 1 else ("apply", "them")
            raise UserError(
                f"--format prompt writes one listing for any model; {' and '.join(given)} "
                f"{verb} only to --format json (drop {pronoun})"
            )
    elif not args.provider:
        raise UserError(
            "--format json needs --provider (openai, anthropic, gemini or mcp); "
            "--format prompt writes a listing for any model"
        )
