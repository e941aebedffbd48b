"""``tooldesign`` command line: the commands of ``tooldesign.commands``, each declaring its own
arguments next to its ``run``.

Exit codes (``tooldesign.contract.errors``): 0 success; 1 ``gen --check`` found files that would change;
2 a design or usage error (a clear message on stderr, no traceback); 130 interrupted (Ctrl-C);
141 the reader of standard output went away (a pipe into ``head``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import tooldesign
from tooldesign.commands import (
    audit,
    call,
    diff,
    docs,
    export,
    gen,
    import_mcp,
    import_python,
    init,
    mcp_config,
    serve_mcp,
    worker,
    workers,
)
from tooldesign.contract.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UserError,
    close_match,
)


class _Parser(argparse.ArgumentParser):
    given: Sequence[str] = ()
    """The command line being parsed, whose misspelt options a usage error names."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """A usage error: this command's usage, the message, and the option each misspelt one
        may have meant."""
        guesses = [f"{name}: did you mean {close}?" for name, close in self.near_misses()]
        if guesses:
            message += f" ({'; '.join(guesses)})"
        self.print_usage(sys.stderr)
        print(f"tooldesign: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)

    def unrecognized(self, extras: Sequence[str]) -> None:
        """The usage error for arguments this command does not take."""
        close = dict(self.near_misses())
        named = [
            f"{arg} (did you mean {close[name]}?)"
            if (name := arg.partition("=")[0]) in close
            else arg
            for arg in extras
        ]
        self.given = ()  # each near miss is named once
        self.error(f"unrecognized argument{'s' if len(extras) > 1 else ''}: {' '.join(named)}")

    def near_misses(self) -> list[tuple[str, str]]:
        """Each option of the command line that this command does not take, with the one of its
        options it is a near miss of."""
        options = [option for action in self._actions for option in action.option_strings]
        long_options = [option for option in options if option.startswith("--")]
        found: list[tuple[str, str]] = []
        for arg in self.given:
            name = arg.partition("=")[0]
            if not name.startswith("--") or any(o.startswith(name) for o in options):
                continue  # an option of this command, or the start of one (argparse takes those)
            close = close_match(name, long_options)
            if close is not None:
                found.append((name, close))
        return found


def build_parser() -> _Parser:
    parser = _Parser(
        prog="tooldesign",
        description="Design-first tools for LLM agents.",
        epilog="Start a project with: tooldesign init DIR. "
        "Each command takes -h for its own options.",
    )
    parser.add_argument(
        "--version", action="version", version=f"tooldesign {tooldesign.__version__}"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for command in (init, gen, call, export, serve_mcp, mcp_config, worker, workers):
        command.add_parser(commands)
    importing = commands.add_parser(
        "import", help="write a design from existing tools (Python code or an MCP server)"
    )
    kinds = importing.add_subparsers(dest="kind", required=True, parser_class=_Parser)
    for kind in (import_python, import_mcp):
        kind.add_parser(kinds)
    for command in (diff, docs, audit):
        command.add_parser(commands)
    # Each command's parser, in what it parses: arguments it does not take are its usage error
    # (the innermost parser's default wins: `import python`'s, not `import`'s).
    for choices in (commands.choices, kinds.choices):
        for command_parser in choices.values():
            command_parser.set_defaults(usage_of=command_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _Parser.given = list(sys.argv[1:] if argv is None else argv)
    # --help and usage errors end here, quickly.
    args, extras = parser.parse_known_args(argv)
    if extras:  # told by the command given, with its own usage
        command_parser: _Parser = getattr(args, "usage_of", parser)
        command_parser.unrecognized(extras)
    if args.command is None:  # a bare `tooldesign`: what it can do
        parser.print_help()
        return EXIT_OK
    try:
        return _run(args)
    except KeyboardInterrupt:
        # Whatever was being written is put back as it was (gen, export --out).
        print("tooldesign: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of standard output went away (`tooldesign export … | head`): stop quietly,
        # and keep Python from complaining when it flushes standard output at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _run(args: argparse.Namespace) -> int:
    from tooldesign.ir.errors import DesignError

    try:
        code: int = args.run(args)
    except DesignError as exc:
        sys.stdout.flush()  # what the command printed comes before its error (piped, too)
        print(f"tooldesign: {exc}", file=sys.stderr)
        _tell_causes(exc, full=getattr(args, "traceback", False))
        return EXIT_ERROR
    except UserError as exc:
        sys.stdout.flush()
        print(f"tooldesign: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return code


def _tell_causes(error: Exception, *, full: bool) -> None:
    """The tracebacks of the exceptions the design's own code raised, with ``--traceback``;
    otherwise one line saying how to see them."""
    from tooldesign.tracebacks import traceback_text

    causes = [issue.cause for issue in getattr(error, "issues", ()) if issue.cause is not None]
    if not causes:
        return
    if not full:
        print("tooldesign: gen --traceback shows the full traceback", file=sys.stderr)
        return
    for cause in causes:
        print(traceback_text(cause), end="", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
