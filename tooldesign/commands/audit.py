"""``tooldesign audit verify PATH``: check the hash chain of a JSON-lines audit trail
(``tooldesign.runtime.JsonLinesAudit``); exit 1 naming the first broken line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tooldesign.contract.errors import EXIT_DRIFT, EXIT_OK, UserError


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "audit",
        help="check an audit trail",
        description="Check a runtime's JSON-lines audit trail (JsonLinesAudit).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify = actions.add_parser(
        "verify",
        help="check that no record was edited, deleted, moved or inserted",
        description="Check the hash chain of an audit trail: print 'ok', the number of records "
        "and the last digest (keep it elsewhere: a chain cannot see its own tail cut off), or "
        "name the first broken line and exit 1.",
    )
    verify.add_argument("path", metavar="PATH", help="the trail (a .jsonl file)")
    verify.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from tooldesign.runtime.control.audit import verify_audit

    path = Path(args.path)
    if not path.is_file():
        raise UserError(f"audit verify: no file {str(path)!r}")
    try:
        verified = verify_audit(path)
    except OSError as exc:
        raise UserError(f"audit verify: cannot read {str(path)!r}: {exc.strerror}") from exc
    if verified.ok:
        print(verified)
        return EXIT_OK
    print(f"{path}:{verified.line}: {verified.problem}", file=sys.stderr)
    print(
        f"tooldesign: the audit trail is broken ({verified.records} good records before it)",
        file=sys.stderr,
    )
    return EXIT_DRIFT
