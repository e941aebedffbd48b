"""``tooldesign`` that kills itself (SIGKILL) just before its Nth file operation in a phase.

    python -m tests.codegen.crash_harness N PHASE ARGS...

PHASE is ``commit`` (the commit of a generation) or ``recover`` (undoing a killed run's commit).
The operations counted are the renames, removals, links and folder creations and removals the
phase makes. A run that was not killed prints ``operations: <count>`` to stderr, so a test
knows how many points there are to kill at. Used by tests/codegen/test_output_crash.py.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from tooldesign.codegen import commit as commit_module

OPERATIONS = ("replace", "rename", "unlink", "link", "mkdir", "rmdir")


def main() -> int:
    kill_at, phase, *argv = sys.argv[1:]
    state = {"active": False, "count": 0}

    def counted(real: Callable[..., Any]) -> Callable[..., Any]:
        def operation(*args: Any, **kwargs: Any) -> Any:
            if state["active"]:
                state["count"] += 1
                if state["count"] == int(kill_at):
                    os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)

        return operation

    def watched(real: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            state["active"] = True
            try:
                return real(*args, **kwargs)
            finally:
                state["active"] = False

        return run

    for name in OPERATIONS:
        setattr(os, name, counted(getattr(os, name)))
    setattr(commit_module, phase, watched(getattr(commit_module, phase)))
    from tooldesign.cli import main as tooldesign

    code = tooldesign(argv)
    print(f"operations: {state['count']}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
