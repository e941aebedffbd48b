"""``tooldesign worker MODULE:ATTR --redis URL [--concurrency N] [--claim-timeout S] …``.

Serves the local toolsets of a ``Runtime`` (``MODULE:ATTR`` names one, or a function returning
one, sync or async) to agents over Redis Streams, until SIGTERM or Ctrl-C: then it stops taking
calls, lets running ones finish for up to ``--grace`` seconds, hands the rest back and exits 0.
It exits 1 when one of its loops failed, 2 for a usage error or a server it cannot use (one
older than Redis 7). The current directory is importable, as it is for ``python -m``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from tooldesign.commands._targets import built, load_target, parse_target
from tooldesign.contract.errors import UserError

EXIT_OK = 0
EXIT_LOOP_FAILED = 1

DEFAULT_REDIS = "redis://localhost:6379/0"


def add_parser(
    subparsers: argparse._SubParsersAction[Any],
) -> argparse.ArgumentParser:
    """Add ``worker`` to the command line's subcommands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "worker", help="serve a Runtime's toolsets to agents over Redis Streams"
    )
    parser.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Runtime, or a function returning one (sync or async), by import path",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=os.environ.get("TOOLDESIGN_REDIS_URL", DEFAULT_REDIS),
        help=f"the Redis (≥ 7) or Valkey server (default $TOOLDESIGN_REDIS_URL or {DEFAULT_REDIS})",
    )
    parser.add_argument(
        "--concurrency", type=int, default=64, metavar="N", help="calls run at once (default 64)"
    )
    parser.add_argument(
        "--claim-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds a worker that stopped heartbeating keeps its calls before others take "
        "them over (default 5)",
    )
    parser.add_argument(
        "--tool-concurrency",
        action="append",
        default=[],
        metavar="TOOL=N",
        help="run at most N calls of TOOL (name or id) at once (repeatable)",
    )
    parser.add_argument(
        "--wait-replicas",
        type=int,
        default=0,
        metavar="N",
        help="before running a call, wait until N replicas have its start mark (WAIT), so a "
        "failover cannot run it twice (default 0)",
    )
    parser.add_argument(
        "--max-deliveries",
        type=int,
        default=5,
        metavar="N",
        help="deliveries of one call before it is dead-lettered (default 5)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=30.0,
        metavar="S",
        help="on SIGTERM, seconds running calls may take to finish (default 30)",
    )
    parser.add_argument(
        "--toolset",
        action="append",
        default=[],
        metavar="NAME",
        help="serve only this toolset (TOOLSET or SERVICE.TOOLSET; repeatable)",
    )
    parser.add_argument(
        "--prefix", default="tooldesign", help="the prefix of every key (default tooldesign)"
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="(default INFO)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    # A supervisor may stop a worker while it still starts (imports the application, builds its
    # runtime): that is a stop as asked, not a death by signal.
    asked: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _: asked.append(signum))
    try:
        from tooldesign.runtime.transports.redis_worker import (
            RedisWorker,
            WorkerFailed,
            run_until_stopped,
        )
    except ModuleNotFoundError as exc:
        raise UserError(
            f"tooldesign worker needs the redis extra (pip install 'tooldesign[redis]'): {exc}"
        ) from None
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=args.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
        )
    target = load_target(
        parse_target(
            args.target,
            usage="worker takes MODULE:ATTR (for example examples.netops.worker:runtime)",
        )
    )

    import asyncio

    from tooldesign.runtime.runtime import Runtime

    limits = {}
    for item in args.tool_concurrency:
        tool, _, count = item.partition("=")
        if not tool or not count.isdigit() or int(count) < 1:
            raise UserError(f"--tool-concurrency takes TOOL=N with N ≥ 1, got {item!r}")
        limits[tool] = int(count)

    async def serve() -> None:
        runtime = await built(target, args.target, {Runtime: "a Runtime"})
        worker = RedisWorker(
            runtime,
            args.redis,
            prefix=args.prefix,
            toolsets=args.toolset,
            concurrency=args.concurrency,
            claim_timeout=args.claim_timeout,
            max_deliveries=args.max_deliveries,
            grace=args.grace,
            tool_concurrency=limits,
            wait_replicas=args.wait_replicas,
        )
        await run_until_stopped(worker, asked=asked)

    try:
        asyncio.run(serve())
    except WorkerFailed as exc:
        print(f"tooldesign: worker stopped: {exc}", file=sys.stderr)
        return EXIT_LOOP_FAILED
    return EXIT_OK
