"""`tooldesign gen` never touches what it does not own: paths a manifest lists outside the output
folder, files changed since tooldesign wrote them, a folder another run is writing into. And
what the file system refuses (another device, a full disk) is told as it is, with exit 2."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from tooldesign.codegen.commit import STAGING_PREFIX, OutputFolder
from tooldesign.codegen.output import MANIFEST_NAME
from tooldesign.generate import generate

from tests.codegen.test_output import SMALL, write
from tests.support import run_cli, tree_bytes

WITHOUT_BETA = SMALL.split('    with Toolset("beta"')[0]


def generated(tmp_path: Path, text: str = SMALL) -> tuple[Path, Path]:
    design = write(tmp_path / "design.py", text)
    out = tmp_path / "out"
    generate([str(design)], out)
    return design, out


def list_in_manifest(out: Path, entries: dict[str, str]) -> None:
    path = out / MANIFEST_NAME
    manifest = json.loads(path.read_text())
    manifest["files"].update(entries)
    path.write_text(json.dumps(manifest))


# ── a manifest is a file anyone may edit ────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "listed",
    ["../victim.txt", "svc/../../victim.txt", "svc/./../../victim.txt", "ABSOLUTE"],
)
def test_a_manifest_path_outside_the_output_folder_is_never_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], listed: str
) -> None:
    design, out = generated(tmp_path)
    victim = write(tmp_path / "victim.txt", "precious\n")
    listed = str(victim) if listed == "ABSOLUTE" else listed
    from tooldesign.codegen.output import digest

    list_in_manifest(out, {listed: digest(victim.read_bytes())})  # even with the right digest
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    assert victim.read_text() == "precious\n"
    assert f"lists {listed!r}, which is not inside {out}: it was not touched" in err
    assert listed not in json.loads((out / MANIFEST_NAME).read_text())["files"]


def test_a_manifest_path_through_a_symbolic_link_out_of_the_folder_is_never_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    victim = write(elsewhere / "victim.txt", "precious\n")
    (out / "link").symlink_to(elsewhere, target_is_directory=True)
    list_in_manifest(out, {"link/victim.txt": "0" * 64})
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    assert victim.read_text() == "precious\n"
    assert "lists 'link/victim.txt', which is not inside" in err


def test_generated_files_are_never_written_through_a_link_out_of_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    (out / "svc").symlink_to(elsewhere, target_is_directory=True)
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 2
    assert "leads outside" in err and "through a symbolic link" in err
    assert list(elsewhere.iterdir()) == []


def test_a_listed_file_that_was_changed_is_kept_and_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    changed = out / "svc" / "toolsets" / "beta" / "specs.py"
    changed.write_text(changed.read_text() + "# my own addition\n")
    notes = write(out / "notes.txt", "mine\n")
    list_in_manifest(out, {"notes.txt": "0" * 64})  # a file of the user's, listed by mistake
    write(design, WITHOUT_BETA)
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    assert changed.read_text().endswith("# my own addition\n")
    assert notes.read_text() == "mine\n"
    assert f"{changed} is no longer generated, but it was changed since tooldesign wrote it" in err
    assert f"{notes} is no longer generated" in err
    assert not (out / "svc" / "toolsets" / "beta" / "types.py").exists(), "unchanged ones go"
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert (code, err) == (0, ""), "told once: the manifest no longer lists them"


# ── one run at a time; what an earlier run left behind ──────────────────────────────────────


def test_a_folder_another_run_is_writing_into_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fcntl = pytest.importorskip("fcntl")
    design, out = generated(tmp_path)
    before = tree_bytes(out)
    other = write(out / f"{STAGING_PREFIX}1-busy" / "new" / "x.py", "in use\n").parents[1]
    write(design, WITHOUT_BETA)
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running generation holds
        code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    finally:
        os.close(fd)
    assert code == 2
    assert "another tooldesign gen is writing into this folder" in err
    assert (other / "new" / "x.py").read_text() == "in use\n"
    assert tree_bytes(out) == {**before, f"{other.name}/new/x.py": b"in use\n"}


def test_a_forked_worker_does_not_keep_the_folder_locked(tmp_path: Path) -> None:
    """Rendering forks workers while the folder is locked: were the run killed, a worker that
    lives on must not keep the next run out."""
    fcntl = pytest.importorskip("fcntl")
    import multiprocessing

    out = tmp_path / "out"
    out.mkdir()
    context = multiprocessing.get_context("fork")
    started = context.Event()
    with OutputFolder(out):
        worker = context.Process(target=_work, args=(started,))
        worker.start()
    assert started.wait(30)
    try:
        fd = os.open(out, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the worker held it
        finally:
            os.close(fd)
    finally:
        worker.kill()
        worker.join()


def _work(started: Any) -> None:
    started.set()
    time.sleep(60)


def test_stale_staging_folders_are_removed_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    stale = write(out / f"{STAGING_PREFIX}12345-abcd" / "format" / "x.py", "x\n").parents[1]
    theirs = write(out / ".tooldesign-notes" / "keep.txt", "mine\n")
    beside = tmp_path / ".out.tooldesign-abcd1234"  # never ours to judge: outside --out
    beside.mkdir()
    code, _ = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    assert not stale.exists()
    assert theirs.read_text() == "mine\n" and beside.is_dir()


def test_check_tells_of_an_interrupted_run_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    write(out / f"{STAGING_PREFIX}12345-abcd" / "journal.json", '{"folders": [], "changes": []}')
    before = tree_bytes(out)
    code, err = run_cli(["gen", str(design), "--out", str(out), "--check"], capsys)
    assert code == 0 and "was interrupted left" in err
    assert tree_bytes(out) == before
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0 and "its 0 change(s) were undone" in err
    assert not list(out.glob(f"{STAGING_PREFIX}*"))


def test_a_tampered_journal_cannot_remove_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    victim = write(tmp_path / "victim.txt", "precious\n")
    notes = write(out / "notes.txt", "mine\n")
    journal = {
        "folders": ["../elsewhere"],
        "changes": [["../victim.txt", False, None], ["notes.txt", False, "0" * 64]],
    }
    write(out / f"{STAGING_PREFIX}1-x" / "journal.json", json.dumps(journal))
    code, _ = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0
    assert victim.read_text() == "precious\n" and notes.read_text() == "mine\n"


# ── what the file system refuses ────────────────────────────────────────────────────────────


def _cross_device(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Renames and links between folders fail as between two file systems (EXDEV), as when the
    output folder, or a folder in it, is a mount point."""
    refused: list[str] = []
    real_replace, real_link = os.replace, os.link

    def between_folders(name: str, real: Any) -> Any:
        def operation(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
            if Path(src).parent != Path(dst).parent:
                refused.append(f"{name} {src} {dst}")
                raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src), None, str(dst))
            return real(src, dst, *args, **kwargs)

        return operation

    monkeypatch.setattr(os, "replace", between_folders("replace", real_replace))
    monkeypatch.setattr(os, "link", between_folders("link", real_link))
    return refused


def test_an_output_folder_on_another_device_is_written_by_copying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    write(design, WITHOUT_BETA.replace("Say hello", "Say hi"))
    fresh = tmp_path / "fresh"
    generate([str(design)], fresh)
    refused = _cross_device(monkeypatch)
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 0, err
    assert refused, "the moves did cross folders"
    assert tree_bytes(out) == tree_bytes(fresh)
    assert not [p for p in out.rglob("*") if "tooldesign-" in p.name and p.name != MANIFEST_NAME]


def test_a_failure_on_another_device_says_the_folder_was_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    design, out = generated(tmp_path)
    before = tree_bytes(out)
    write(design, WITHOUT_BETA.replace("Say hello", "Say hi"))
    _cross_device(monkeypatch)
    real_unlink = os.unlink

    def full_disk_on_removal(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path) == out / "svc/toolsets/beta/types.py":  # after the new files moved in
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", full_disk_on_removal)
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 2
    assert "Input/output error" in err and "the folder was left as it was" in err
    assert "could not be put back" not in err
    assert tree_bytes(out) == before


@pytest.mark.parametrize(
    ("writer", "where", "told"),
    [
        ("write_text", "tooldesign-format-", "cannot format the generated files"),
        ("write_bytes", STAGING_PREFIX, "cannot stage the generated files"),
    ],
    ids=["formatting", "staging the commit"],
)
def test_a_full_disk_while_preparing_files_is_an_output_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    writer: str,
    where: str,
    told: str,
) -> None:
    design, out = generated(tmp_path)
    before = tree_bytes(out)
    write(design, SMALL.replace("Say hello", "Say hi"))
    real = getattr(Path, writer)

    def full_disk(self: Path, *args: Any, **kwargs: Any) -> int:
        if where in str(self):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return int(real(self, *args, **kwargs))

    monkeypatch.setattr(Path, writer, full_disk)
    code, err = run_cli(["gen", str(design), "--out", str(out)], capsys)
    assert code == 2
    assert told in err and "No space left on device" in err
    assert f"{out} was left as it was" in err
    assert tree_bytes(out) == before
