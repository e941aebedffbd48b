"""The command line itself: each command's arguments, and a ``--help`` that stays quick."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import REPO

# What commands need only when they run: loading them would make every `tooldesign --help`,
# and every usage error, wait for them.
HEAVY = ("tooldesign.runtime", "tooldesign.importers", "tooldesign.codegen", "tooldesign.eval",
         "tooldesign.ir", "tooldesign.binding", "pydantic", "asyncio", "mcp", "uvicorn")  # fmt: skip


def test_help_loads_none_of_what_the_commands_run_on() -> None:
    script = (
        "import json, sys\n"
        "from tooldesign.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert [m for m in loaded if m.startswith(HEAVY)] == []
