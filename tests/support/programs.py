"""The system programs some tests run: a Redis ≥ 7 server and Debian's Chromium.

Where one is missing, the tests that need it are skipped, saying which program and how to
install it, and the run's summary counts them (tests/conftest.py). In CI (``CI`` set), which
installs both (.ci/run), a missing program fails those tests instead: a gate never passes by
running less than it should.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from typing import NoReturn

import pytest

NOT_INSTALLED = "is not installed"
"""In the reason of every skip for a missing program (the summary groups those skips)."""


def missing(program: str, needed_for: str, install: str) -> NoReturn:
    """Skip the test (fail it in CI): ``program`` is not on this machine."""
    reason = f"{program} {NOT_INSTALLED}: {needed_for} need it ({install})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; .ci/run installs it", pytrace=False)
    pytest.skip(reason)


@functools.cache
def _redis_major(binary: str) -> int:
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False)
    found = re.search(r"\bv=(\d+)\.", done.stdout)
    return int(found.group(1)) if found else 0


def redis_binary() -> str:
    """``redis-server`` on PATH, version 7 or later (the streams commands the transport uses)."""
    install = "apt-get install redis-server"
    binary = shutil.which("redis-server")
    if binary is None:
        missing("redis-server (Redis ≥ 7)", "the Redis transport's tests", install)
    if _redis_major(binary) < 7:
        missing("Redis ≥ 7", "the Redis transport's tests", f"{binary} is older; {install}")
    return binary


BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def chromium() -> str | None:
    """The system's Chromium (never a downloaded one), or None."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None
