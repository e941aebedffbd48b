"""The example agent: a scripted model acts on each failure's recovery (it repairs a call from its
retry hint, replans after a refusal), reads bounds, gets a restart approved, watches progress."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO

pytestmark = pytest.mark.slow  # the example agent in a subprocess


def run_example(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "examples.netops.agent", *options],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_the_example_agent_repairs_its_call_and_reads_the_bounded_result() -> None:
    done = run_example()
    out = done.stdout
    turns = out.split("── turn ")
    # Turn 1: the model forgets site_id and is told exactly that, with an example.
    assert 'the model calls list_devices({"status": "offline", "limit": 5})' in turns[1]
    assert "site_id: required field is missing (expected string) — Site identifier" in turns[1]
    assert "retry hint: reason=missing_fields, missing=['site_id']" in turns[1]
    # Turn 2: the repaired call keeps what was sent and adds the missing field.
    assert '"status": "offline", "limit": 5, "site_id": "hq"' in turns[2]
    assert "bounds: returned=5 total=8 truncated=True" in turns[2]
    assert "refinement hint: 8 offline devices match: raise limit to 8 to see them all." in turns[2]
    # Turn 3: the restart waits for the operator, who approves exactly that call; then it runs.
    assert "the operator is asked: Restart dev-f1bbcd88? It drops traffic" in turns[3]
    assert 'exact call: restart_device({"device_id": "dev-f1bbcd88"' in turns[3]
    assert "approved by operator alice; the call ran" in turns[3]
    assert '{"accepted":true,"job_id":"restart-dev-f1bbcd88"}' in turns[3]
    # Turn 4: an unknown device answers replan; turn 5 takes another way, the runbooks.
    assert "recovery: replan" in turns[4]
    assert "the model calls search_docs(" in turns[5] and '"doc_id":"rb-7"' in turns[5]
    # Server data reaches observers, not the model.
    assert "server data for observers: atlas.time_series (TimeSeries)" in out
    chart = out.split("get_time_series with the chart data switched on")[1]
    model_text = chart.split("server data for observers")[0]
    assert '"points":12' in model_text and '"value"' not in model_text
    # A long tool's progress reaches an event subscriber.
    assert "progress: 1/5 probe 1 of 5 sent to core.hq" in out
    assert "progress: 5/5 probe 5 of 5 sent to core.hq" in out
    # An agent as a tool: its inner calls nest under it, its restart waits for the operator.
    diagnosis = out.split("── diagnose_site, a tool whose implementation is an agent")[1]
    assert "the operator is asked: Restart dev-f1bbcd88?" in diagnosis
    assert "inner call: list_devices (inside t-9)" in diagnosis
    assert "inner call: restart_device (inside t-9)" in diagnosis
    assert '"action":"restart"' in diagnosis
    assert done.stderr == ""


@pytest.mark.parametrize("framework", ["pydantic-ai", "openai-agents", "langchain"])
def test_the_example_agent_runs_in_each_framework_offline(framework: str) -> None:
    done = run_example("--framework", framework)
    out = done.stdout
    turns = out.split("── turn ")
    # Turn 1: the model reads the retry hint.
    assert "site_id: required field is missing (expected string)" in turns[1]
    # Turn 2: three calls; bounds, server data and the discarded session id reach the
    # application only.
    assert "get_profile" in turns[2] and "get_time_series" in turns[2]
    assert "the application: bounds returned=5 total=8 truncated=True" in turns[2]
    assert '"user_id":"u-alice"' in turns[2]
    assert "the application: discarded the model's session_id" in turns[2]
    assert "the application: server data atlas.time_series, atlas.thresholds" in turns[2]
    # Turn 3: the restart the design confirms waited for the operator, who approved exactly
    # that call; then it ran.
    assert "restart_device" in turns[3]
    assert '{"accepted":true,"job_id":"restart-dev-00000000"}' in turns[3]
    assert (
        "approved: Restart dev-00000000? It drops traffic for about a minute. Reason: stuck port"
        in turns[3].replace("approved by operator alice:", "approved:")
    )
    # Turn 4: diagnose_site, implemented by an agent: its inner run's restart waited for the
    # operator (the framework's own flow, or the runtime's approver in the Agents SDK), and the
    # resumed tool answered with the typed diagnosis.
    assert "diagnose_site" in turns[4]
    assert '"action":"restart"' in turns[4] and "3 device(s) offline at nyc" in turns[4]
    assert (
        "the operator approves: Restart dev-08d12dfd? It drops traffic for about a minute. "
        "Reason: offline, seen by diagnose_site"
    ) in out
    assert out.rstrip().endswith(
        "── the model answers: 5 of the 8 offline devices at hq are listed; "
        "raise the limit to 8 to see them all."
    )
    assert done.stderr == ""
