"""``tooldesign workers [status|prune|dead|replay|drop] [--redis URL] [--prefix P] [--json]``.

Looks after the workers serving toolsets over Redis (``tooldesign worker``): per toolset and
version, the live workers and the calls each holds, the queue, stale consumers, dead letters
(``status``, the default); removes stale consumers holding no call (``prune``); lists dead
letters (``dead``), queues their calls again (``replay ID...|--all``) or deletes them
(``drop ID...|--all``). ``--json`` prints what a script reads.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Coroutine
from typing import Any

from tooldesign.commands.worker import DEFAULT_REDIS
from tooldesign.contract.errors import UserError

EXIT_OK = 0


def _common(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=default if suppress else os.environ.get("TOOLDESIGN_REDIS_URL", DEFAULT_REDIS),
        help=f"the Redis server (default $TOOLDESIGN_REDIS_URL or {DEFAULT_REDIS})",
    )
    parser.add_argument(
        "--prefix",
        default=default if suppress else "tooldesign",
        help="the prefix of every key (default tooldesign)",
    )
    parser.add_argument(
        "--toolset",
        action="append",
        default=default if suppress else [],
        metavar="NAME",
        help="only this toolset (TOOLSET or SERVICE.TOOLSET; repeatable)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=default if suppress else False,
        help="print JSON, for scripts",
    )


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``workers`` to the command line's subcommands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "workers",
        help="look after the workers serving toolsets over Redis: status, dead letters",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    _common(parser, suppress=False)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    helps = {
        "status": "live workers, calls held, queues, stale consumers, dead letters (default)",
        "prune": "remove stale consumers that hold no call",
        "dead": "list dead letters",
        "replay": "queue the calls of dead letters again (a fresh deadline), then delete them",
        "drop": "delete dead letters",
    }
    for name, text in helps.items():
        action = actions.add_parser(name, help=text)
        _common(action, suppress=True)
        if name == "dead":
            action.add_argument(
                "--count", type=int, default=100, metavar="N", help="per toolset (default 100)"
            )
        if name in ("replay", "drop"):
            action.add_argument("ids", nargs="*", metavar="ID", help="dead letters, by id")
            action.add_argument("--all", action="store_true", help="every dead letter")
        if name == "replay":
            action.add_argument(
                "--timeout",
                type=float,
                default=60.0,
                metavar="S",
                help="seconds each replayed call may take (default 60)",
            )
    parser.set_defaults(run=run, action=None)
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        from tooldesign.runtime.transports import redis_admin
        from tooldesign.runtime.transports.redis_client import open_server
        from tooldesign.runtime.transports.redis_keys import RedisKeys
    except ModuleNotFoundError as exc:
        raise UserError(
            f"tooldesign workers needs the redis extra (pip install 'tooldesign[redis]'): {exc}"
        ) from None
    import asyncio

    action = args.action or "status"
    if action in ("replay", "drop") and not (args.ids or args.all):
        raise UserError(f"workers {action} takes dead-letter ids, or --all")
    keys = RedisKeys(args.prefix)
    only = args.toolset

    async def main() -> Any:
        client, _ = await open_server(args.redis, connections=4)
        try:
            steps: dict[str, Callable[[], Coroutine[Any, Any, Any]]] = {
                "status": lambda: redis_admin.fleet(client, keys, only),
                "prune": lambda: redis_admin.prune(client, keys, only),
                "dead": lambda: redis_admin.dead_letters(client, keys, only, args.count),
                "replay": lambda: redis_admin.replay(
                    client, keys, args.ids, only, args.all, args.timeout
                ),
                "drop": lambda: redis_admin.drop(client, keys, args.ids, only, args.all),
            }
            return await steps[action]()
        finally:
            await client.aclose()

    result = asyncio.run(main())
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for line in _text(action, result):
            print(line)
    return EXIT_OK


def _text(action: str, result: Any) -> list[str]:
    if action == "status":
        return _status(result)
    if action == "prune":
        return [f"removed {r['worker']} ({r['toolset']} {r['version']})" for r in result] or [
            "no stale consumer without calls"
        ]
    if action == "dead":
        lines = []
        for letter in result:
            fields = letter["fields"]
            lines.append(
                f"{letter['letter']}  {letter['toolset']}  {fields.get('reason', '?')}  "
                f"(call {fields.get('id', '?')} of {fields.get('tool', '?')}, "
                f"deliveries {fields.get('deliveries', '?')}, worker {fields.get('worker', '?')})"
            )
        return lines or ["no dead letters"]
    if action == "replay":
        return [
            f"{r['letter']}: replayed as call {r['call']} (entry {r['entry']})"
            if r["replayed"] == "yes"
            else f"{r['letter']}: not replayed ({r['why']})"
            for r in result
        ]
    return [f"dropped {letter_id}" for letter_id in result] or ["nothing dropped"]


def _status(state: dict[str, Any]) -> list[str]:
    lines = []
    for toolset in state["toolsets"]:
        lines.append(f"{toolset['toolset']}  (dead letters: {toolset['dead_letters']})")
        for version in toolset["versions"]:
            lines.append(
                f"  version {version['version']}: {version['waiting']} waiting, "
                f"{version['held']} held"
            )
            for worker in version["workers"]:
                state_word = "taking calls" if worker["taking_calls"] else "stopping"
                lines.append(
                    f"    {worker['worker']}  live, {state_word}, holds {worker['holds']} "
                    f"(lease {worker['lease_left_s']:g} s)"
                )
            for worker in version["stale"]:
                lines.append(
                    f"    {worker['worker']}  stale (no lease), holds {worker['holds']}, "
                    f"idle {worker['idle_s']:g} s"
                )
    return lines or ["no toolset has been served"]
