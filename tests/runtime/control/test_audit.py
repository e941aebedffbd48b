"""The JSON-lines audit trail: each record chains the digest of the one before, so a record
edited, deleted, moved or inserted is named by its line; several threads and processes may
write one file and the chain still holds."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest
from tooldesign.runtime import AuditRecord, JsonLinesAudit, Principal, verify_audit
from tooldesign.runtime.control.audit import GENESIS, arguments_digest, chained_line


def record(index: int, who: str = "ann") -> AuditRecord:
    return AuditRecord(
        at="2026-11-28T09:00:00.000Z",
        call_id=f"call-{index}",
        tool="assistant.devices.restart_device",
        principal=Principal.of(who, ["devices:write"]),
        arguments=arguments_digest({"device_id": f"dev-{index:08x}"}),
        approval="granted",
        approved_by="lead",
        outcome="ok",
        error=False,
        duration_ms=1.5,
    )


def written(path: Path, count: int) -> list[str]:
    with JsonLinesAudit(path) as sink:
        for index in range(count):
            sink.record(record(index))
    return path.read_text().splitlines(keepends=True)


def test_a_trail_chains_each_record_to_the_one_before(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = [json.loads(line) for line in written(path, 3)]
    assert lines[0]["prev"] == GENESIS
    assert [line["prev"] for line in lines[1:]] == [line["digest"] for line in lines[:-1]]
    assert str(verify_audit(path)) == f"ok: 3 records, head {lines[-1]['digest']}"


def test_an_empty_trail_verifies(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.touch()
    assert verify_audit(path).ok and verify_audit(path).head == GENESIS


def test_a_new_sink_on_an_existing_trail_carries_its_chain_on(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    written(path, 2)
    written(path, 2)  # another process, later
    verified = verify_audit(path)
    assert verified.ok and verified.records == 4


def test_the_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    written(path, 1)
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("tamper", "line", "says"),
    [
        pytest.param(
            lambda lines: [*lines[:2], lines[2].replace('"ann"', '"eve"'), *lines[3:]],
            3,
            "the record was edited",
            id="edit-who",
        ),
        pytest.param(
            lambda lines: [
                *lines[:1],
                lines[1].replace('"outcome":"ok"', '"outcome":"x"'),
                *lines[2:],
            ],
            2,
            "the record was edited",
            id="edit-outcome",
        ),
        pytest.param(lambda lines: [*lines[:2], *lines[3:]], 3, "deleted", id="delete"),
        pytest.param(lambda lines: lines[1:], 1, "deleted", id="delete-first"),
        pytest.param(
            lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], 2, "moved", id="reorder"
        ),
        pytest.param(
            lambda lines: [*lines[:2], lines[1], *lines[2:]], 3, "inserted", id="duplicate"
        ),
        pytest.param(lambda lines: [*lines[:4], "garbage\n"], 5, "not a JSON record", id="junk"),
        pytest.param(lambda lines: [*lines[:4], lines[4][:30]], 5, "cut short", id="cut"),
    ],
)
def test_tampering_is_named_by_its_line(
    tmp_path: Path, tamper: object, line: int, says: str
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = written(path, 5)
    path.write_text("".join(tamper(lines)))  # type: ignore[operator]
    verified = verify_audit(path)
    assert not verified.ok
    assert verified.line == line and says in (verified.problem or "")
    assert str(verified).startswith(f"line {line}: ")


def test_an_edit_that_recomputes_its_digest_still_breaks_the_next_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lines = written(path, 3)
    forged = json.loads(lines[1])
    forged["principal"]["subject"] = "eve"
    body = {k: v for k, v in forged.items() if k not in ("prev", "digest")}
    line, _ = chained_line(body, forged["prev"])
    path.write_text(lines[0] + line.decode() + lines[2])
    verified = verify_audit(path)
    assert (verified.line, verified.ok) == (3, False)


def test_a_writer_that_died_mid_line_leaves_a_named_line_and_the_chain_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    lines = written(path, 2)
    path.write_text("".join(lines) + lines[1][:20])  # a crash mid-write
    written(path, 1)
    text = path.read_text().splitlines()
    assert len(text) == 4 and text[2] == lines[1][:20]
    assert verify_audit(path).line == 3  # named, and no later record hides it


def test_threads_writing_one_sink_keep_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with JsonLinesAudit(path) as sink:

        def write(start: int) -> None:
            for index in range(start, start + 100):
                sink.record(record(index))

        threads = [threading.Thread(target=write, args=(n * 100,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    verified = verify_audit(path)
    assert verified.ok and verified.records == 400


def _write_many(path: str, who: str, count: int) -> None:
    with JsonLinesAudit(path) as sink:
        for index in range(count):
            sink.record(record(index, who))


@pytest.mark.slow  # starts processes
def test_processes_writing_one_file_keep_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_write_many, args=(str(path), f"p{n}", 200)) for n in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    verified = verify_audit(path)
    assert verified.ok, str(verified)
    assert verified.records == 800
    writers = {json.loads(line)["principal"]["subject"] for line in path.read_text().splitlines()}
    assert writers == {"p0", "p1", "p2", "p3"}
