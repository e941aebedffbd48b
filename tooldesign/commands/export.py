"""``tooldesign export --provider P [--strict] [--api A] [--fallback] SOURCE...``, or
``--format prompt``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tooldesign.commands._loading import add_plan_arguments, plan_flags_given, plan_from
from tooldesign.commands._wording import in_cli_words
from tooldesign.contract.errors import EXIT_OK, UserError
from tooldesign.contract.providers import APIS, PROVIDERS

if TYPE_CHECKING:
    from tooldesign.runtime.providers import ProviderAdapter


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser(
        "export", help="write the tool definitions a provider takes, or a prompt listing of tools"
    )
    export.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a tool_schemas.json, or a folder searched for them (a gen/ folder)",
    )
    export.add_argument(
        "--provider", choices=PROVIDERS, help="whose tool definitions (needed for --format json)"
    )
    export.add_argument("--strict", action="store_true", help="strict schemas (OpenAI, Anthropic)")
    export.add_argument(
        "--api",
        choices=[api for apis in APIS.values() for api in apis],
        help="the shape within a provider: OpenAI chat (default) or responses; "
        "Gemini parameters (default, the OpenAPI subset) or json_schema",
    )
    export.add_argument(
        "--fallback",
        action="store_true",
        help="with --strict (or Gemini's parameters): the plain form for the tools that "
        "cannot take it, named on stderr, instead of an error",
    )
    export.add_argument(
        "--format",
        choices=("json", "prompt"),
        default="json",
        help="json: the provider's tool definitions; prompt: a readable list for system prompts",
    )
    export.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    add_plan_arguments(export, namespaces=True)
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from tooldesign.commands._catalogs import refuse_designs
    from tooldesign.commands._output import write_out_file
    from tooldesign.runtime.providers import adapter, load_tools, prompt_listing

    _check_options(args)
    refuse_designs(args.sources)
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
        except ValueError as exc:  # an option that does not apply, or tools that cannot go
            raise UserError(in_cli_words(str(exc)) + _fallback_hint(exc, args)) from None
        exported = _planned(provider, tools, args) or provider.tools()
        text = json.dumps(exported, indent=2, ensure_ascii=False) + "\n"
        _note_fallbacks(provider)
        _note_restated_rules(provider)
        if args.provider == "anthropic" and args.strict:
            _warn_request_limits(exported)
    if args.out:
        write_out_file(Path(args.out), text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _planned(
    provider: ProviderAdapter, tools: list[Any], args: argparse.Namespace
) -> list[dict[str, Any]] | None:
    """The loading plan of the flags (``--defer``…), else the design's when it defers tools
    (``Loading("deferred")``): the provider's hosted tool search, or the builtin
    ``search_tools`` added where it has none."""
    from tooldesign.runtime.providers import SEARCH_TOOL_ID, LoadingPlan, adapter, deferred_export
    from tooldesign.runtime.providers.deferred import native_search

    plan = plan_from(args)
    if (
        plan is not None
        and plan.namespaces
        and not (args.provider == "openai" and args.api == "responses")
    ):
        raise UserError(
            "--namespaces groups deferred tools for OpenAI Responses (--provider openai --api "
            "responses); other providers have no namespaces"
        )
    if plan is None and not any(tool.loading == "deferred" for tool in provider.index):
        return None
    plan = plan or LoadingPlan()
    if not any(plan.loading(tool) == "deferred" for tool in provider.index):
        plan.check(provider.index)  # a selector naming no tool is said before anything else
        return None
    if native_search(provider) is None and provider.index.get(SEARCH_TOOL_ID) is None:
        from tooldesign.builtin.gen.builtin.toolsets.tool_index.specs import SEARCH_TOOLS_SPEC

        provider = adapter(
            args.provider,
            [*tools, SEARCH_TOOLS_SPEC],
            strict=args.strict,
            api=args.api,
            fallback=getattr(args, "fallback", False),
        )
    made = deferred_export(provider, plan)
    how = "the provider's tool search" if made.search == "native" else "search_tools"
    why = "the loading flags" if plan_from(args) is not None else "Loading in the design"
    print(
        f"tooldesign: note: {len(made.deferred)} deferred tool(s) ({why}), found through {how}",
        file=sys.stderr,
    )
    return made.tools


def _fallback_hint(error: ValueError, args: argparse.Namespace) -> str:
    """Where strict mode (or Gemini's parameters) cannot take some tools' schemas: how to
    export them anyway. Names are no schema problem: the plain form would not take them either."""
    problems = getattr(error, "problems", ())
    schemas = [p for p in problems if p.kind not in ("duplicate_name", "invalid_name")]
    can_fall_back = args.strict or (args.provider == "gemini" and args.api != "json_schema")
    if not schemas or not can_fall_back or getattr(args, "fallback", False):
        return ""
    return "\n(--fallback exports those tools in the plain form, and the others as asked)"


def _note_fallbacks(provider: ProviderAdapter) -> None:
    """Name, on standard error, the tools exported in the plain form, and why."""
    fallbacks = provider.fallbacks
    if not fallbacks:
        return
    count = f"{len(fallbacks)} tool" if len(fallbacks) == 1 else f"{len(fallbacks)} tools"
    lines = [
        f"  - {in_cli_words(str(problem))}"
        for problems in fallbacks.values()
        for problem in problems
    ]
    print(
        f"tooldesign: note: {count} exported {provider.fallback_form}, because of:",
        *lines,
        sep="\n",
        file=sys.stderr,
    )


def _note_restated_rules(provider: ProviderAdapter) -> None:
    """Name, on standard error, the rules across arguments the form asked for cannot state,
    said in their tools' descriptions instead (the decoder checks them either way)."""
    restated = provider.restated_rules
    if not restated:
        return
    label = provider.label or provider.provider
    lines = [f"  - {ident}: {rule.dsl}" for ident, rules in restated.items() for rule in rules]
    print(
        f"tooldesign: note: {label} takes no rules across arguments (allOf, if/then/else); "
        "these are said in their tools' descriptions, and the decoder checks them:",
        *lines,
        sep="\n",
        file=sys.stderr,
    )


def _warn_request_limits(exported: list[dict[str, object]]) -> None:
    """Say on standard error which of Anthropic's per-request limits on strict tools the
    export exceeds: each is a valid definition, but the set cannot go in one request."""
    from tooldesign.runtime.providers.anthropic import strict_request_limits

    for exceeded in strict_request_limits(exported):
        print(
            f"tooldesign: warning: {exceeded} (send fewer strict tools per request, or "
            "export without --strict)",
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
                *((flag, True) for flag in plan_flags_given(args)),
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
            f"--format json needs --provider ({', '.join(PROVIDERS[:-1])} or {PROVIDERS[-1]}); "
            "--format prompt writes a listing for any model"
        )
