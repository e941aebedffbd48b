"""``tooldesign export --provider P [--strict] [--api A] [--fallback] SOURCE...``, or
``--format prompt``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tooldesign.cli import EXIT_OK
from tooldesign.commands._output import write_out_file
from tooldesign.errors import UserError

if TYPE_CHECKING:
    from tooldesign.runtime.providers import ProviderAdapter


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
            provider = adapter(
                args.provider,
                tools,
                strict=args.strict,
                api=args.api,
                fallback=getattr(args, "fallback", False),
            )
        except ValueError as exc:  # an option that does not apply to the provider
            if isinstance(exc, UserError):
                raise
            raise UserError(str(exc)) from None
        text = json.dumps(provider.tools(), indent=2, ensure_ascii=False) + "\n"
        _note_fallbacks(provider)
    if args.out:
        write_out_file(Path(args.out), text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _note_fallbacks(provider: ProviderAdapter) -> None:
    """Name, on standard error, the tools exported in the plain form, and why."""
    fallbacks = provider.fallbacks
    if not fallbacks:
        return
    count = f"{len(fallbacks)} tool" if len(fallbacks) == 1 else f"{len(fallbacks)} tools"
    lines = [f"  - {problem}" for problems in fallbacks.values() for problem in problems]
    print(
        f"tooldesign: note: {count} exported {provider.fallback_form}, because of:",
        *lines,
        sep="\n",
        file=sys.stderr,
    )


def _check_options(args: argparse.Namespace) -> None:
    """Options that mean nothing together are refused, never ignored."""
    if args.format == "prompt":
        given = [
            flag
            for flag, value in (
                ("--provider", args.provider),
                ("--strict", args.strict),
                ("--api", args.api),
                ("--fallback", getattr(args, "fallback", False)),
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
