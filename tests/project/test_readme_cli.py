"""The CLI page's synopsis lists every command, flag and choice ``tooldesign --help`` has."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest
from tooldesign.cli import build_parser

from tests.support import REPO

CLI_PAGE = REPO / "docs" / "cli.md"


def _synopsis() -> list[str]:
    text = CLI_PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Synopsis\n", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the CLI section has no synopsis block"
    return block.group(1).splitlines()


def _commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subcommands:
        yield prefix, parser
    for action in subcommands:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*prefix, name))


COMMANDS = list(_commands(build_parser()))


@pytest.mark.parametrize(("command", "parser"), COMMANDS, ids=[" ".join(c) for c, _ in COMMANDS])
def test_every_flag_and_choice_is_in_the_synopsis(
    command: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    head = "tooldesign " + " ".join(command) + " "
    lines = [line for line in _synopsis() if line.startswith(head)]
    assert lines, f"no synopsis line for {head.strip()!r}"
    text = " ".join(lines)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        flags = [o for o in action.option_strings if o.startswith("--")]
        if flags:
            assert any(re.search(rf"{re.escape(f)}\b", text) for f in flags), (
                f"{head.strip()}: {flags[0]} is missing from the synopsis in docs/cli.md"
            )
        for choice in action.choices or ():
            assert re.search(rf"\b{re.escape(str(choice))}\b", text), (
                f"{head.strip()}: {choice!r} ({flags or action.dest}) is missing from the synopsis"
            )
