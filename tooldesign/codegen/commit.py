"""Writing into the output folder: one run at a time, and all of a generation's changes or none,
even when the process is killed part-way.

A run that writes locks the output folder (``flock`` on the folder itself: the system releases it
when the process ends, however it ends), puts back what an earlier run left half-done, and stages
the files it writes in a folder of its own *inside* the output folder: the same file system, so
every file moves into place with a rename, even when the output folder is a mount point.

A commit
1. writes every new file into ``<staging>/new`` and keeps every file it replaces or removes in
   ``<staging>/old`` (a hard link, or a copy), each under its number in the journal;
2. writes a journal of the changes it is about to make;
3. makes the missing folders, moves the new files into place and removes the files no longer
   generated, the manifest last;
4. deletes the journal: the commit is done.

A run killed between 2 and 4 leaves its journal behind, and the next run that writes into the
folder undoes every change it lists before it reads the folder. Undoing rather than completing
keeps a single rule: a generation that did not finish had no effect. Staging folders are
recognised by their name; one is stale once nobody holds the folder's lock.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Self

from tooldesign.codegen.output import (
    MANIFEST_NAME,
    OutputError,
    Plan,
    digest,
    inside,
)

STAGING_PREFIX = ".tooldesign-staging-"
"""Names the staging folders of runs, in the output folder (and nothing else)."""
JOURNAL = "journal.json"
_MOVING = ".tooldesign-moving"
"""Suffix of a copy on its way into place, when a rename cannot cross file systems."""


class OutputFolder:
    """The output folder of a run that writes: locked, recovered, and where it stages.

    Entered before the manifest is read, so a half-done earlier run is undone first. On leaving,
    the staging folder is removed (unless it holds what could not be put back), and the output
    folder too if this run created it and failed.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.notices: list[str] = []
        """What the user should know: an interrupted run that was undone, say."""
        self._lock: int | None = None
        self._created: list[Path] = []
        self._staging: Path | None = None

    def __enter__(self) -> Self:
        if self.out.is_dir():
            self._take_lock()
            try:
                self.notices.extend(recover(self.out))
            except BaseException:
                self._release()
                raise
        return self

    def staging(self) -> Path:
        """This run's staging folder (the output folder is created, if need be, and locked)."""
        if self._staging is not None:
            return self._staging
        try:
            _make_folders(self.out, self._created)
        except OSError as exc:
            raise OutputError(
                f"{self.out}: cannot create the output folder ({_detail(exc)})"
            ) from None
        self._take_lock()
        try:
            prefix = f"{STAGING_PREFIX}{os.getpid()}-"
            self._staging = Path(tempfile.mkdtemp(prefix=prefix, dir=self.out))
        except OSError as exc:
            raise OutputError(f"{self.out}: cannot write into the output folder ({_detail(exc)})")
        return self._staging

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            staging = self._staging
            if staging is not None and not (staging / JOURNAL).exists():
                shutil.rmtree(staging, ignore_errors=True)
            if exc_type is not None:
                for folder in reversed(self._created):
                    try:
                        folder.rmdir()
                    except OSError:
                        break  # not empty: it holds what a failure could not put back
        finally:
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            _HELD_LOCKS.discard(self._lock)
            os.close(self._lock)  # releases the lock
            self._lock = None

    def _take_lock(self) -> None:
        if self._lock is not None or sys.platform == "win32":
            return
        import fcntl

        try:
            fd = os.open(self.out, os.O_RDONLY)
        except OSError:
            return  # the writes that follow report what is wrong with the folder
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(
                f"{self.out}: another tooldesign gen is writing into this folder; "
                "run again once it has finished"
            ) from None
        except OSError:
            os.close(fd)
            return  # a file system without locks: writing is still all-or-nothing
        self._lock = fd
        _HELD_LOCKS.add(fd)


_HELD_LOCKS: set[int] = set()
"""Descriptors of the output folders this process has locked."""


def _drop_inherited_locks() -> None:
    # A forked child (a worker that renders toolsets) shares the parent's lock: were the parent
    # killed, a child still running would keep the folder locked. Children let go of it.
    for fd in _HELD_LOCKS:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD_LOCKS.clear()


if sys.platform != "win32":
    os.register_at_fork(after_in_child=_drop_inherited_locks)


def recover(out: Path) -> list[str]:
    """Undo what runs killed part-way left in ``out`` and remove their staging folders.

    Call it only while holding ``out``'s lock: then no staging folder there is in use.
    Returns a line for each interrupted run that was undone.
    """
    told: list[str] = []
    for folder in sorted(out.glob(f"{STAGING_PREFIX}*")):
        if folder.is_symlink() or not folder.is_dir():
            continue
        journal = _Journal.read(out, folder)
        if journal is not None:
            stuck = _roll_back(out, folder, journal)
            if stuck:
                raise OutputError(
                    f"a tooldesign gen that was interrupted left {out} half-written, and these "
                    f"files cannot be put back: {', '.join(stuck)} (their earlier contents are "
                    f"kept in {folder}, numbered as its journal lists them)"
                )
            told.append(
                f"a tooldesign gen that was interrupted had left {out} half-written: its "
                f"{len(journal.changes)} change(s) were undone"
            )
        shutil.rmtree(folder, ignore_errors=True)
    return told


def interrupted(out: Path) -> bool:
    """Whether a run killed part-way left ``out`` half-written (the next writing run undoes it)."""
    return any((folder / JOURNAL).is_file() for folder in out.glob(f"{STAGING_PREFIX}*"))


@dataclass(frozen=True)
class _Change:
    path: str
    existed: bool
    """Whether a file was there before (it is kept in ``<staging>/old``)."""
    new: str | None
    """The digest of the file written there, or ``None`` when the file is removed."""


@dataclass(frozen=True)
class _Journal:
    folders: tuple[str, ...]
    """Folders the commit creates, outermost first."""
    changes: tuple[_Change, ...]

    def write(self, staging: Path) -> None:
        data = {
            "folders": list(self.folders),
            "changes": [[c.path, c.existed, c.new] for c in self.changes],
        }
        temp = staging / f"{JOURNAL}.tmp"
        temp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temp, staging / JOURNAL)  # the journal is there whole, or not at all

    @classmethod
    def read(cls, out: Path, staging: Path) -> _Journal | None:
        """The journal in ``staging``; ``None`` when there is none (nothing was changed yet).

        Only paths inside ``out`` are read: a journal is a file in the output folder, which
        anyone may have edited.
        """
        try:
            data = json.loads((staging / JOURNAL).read_text(encoding="utf-8"))
            folders = tuple(str(f) for f in data["folders"] if inside(out, f))
            changes = tuple(
                _Change(str(path), bool(existed), None if new is None else str(new))
                for path, existed, new in data["changes"]
                if inside(out, path)
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise OutputError(
                f"{staging / JOURNAL}: cannot read the journal of an interrupted tooldesign gen "
                f"({exc}); check {out} and remove {staging}"
            ) from None
        return cls(folders, changes)


def commit(out: Path, staging: Path, changes: Plan) -> None:
    """Apply ``changes`` to ``out``: all of them, or (on a failure, or if killed) none."""
    writes = dict(changes.write)
    if changes.manifest is not None:
        writes[MANIFEST_NAME] = changes.manifest  # last: it records the files before it
    try:
        entries: list[_Change] = []
        for number, relpath in enumerate([*writes, *changes.remove]):
            content = writes.get(relpath)
            if content is not None:
                _staged(staging, "new", number).write_bytes(content)
            existed = (out / relpath).exists()
            if existed:
                _keep(out / relpath, _staged(staging, "old", number))
            entries.append(_Change(relpath, existed, None if content is None else digest(content)))
        journal = _Journal(_missing_folders(out, writes), tuple(entries))
        journal.write(staging)
    except OSError as exc:
        raise OutputError(
            f"cannot stage the generated files in {staging} ({_detail(exc)}); "
            f"{out} was left as it was"
        ) from exc
    try:
        for folder in journal.folders:
            (out / folder).mkdir(exist_ok=True)
        for number, change in enumerate(journal.changes):
            if change.new is not None:
                _move(_staged(staging, "new", number), out / change.path)
            else:
                (out / change.path).unlink()
        (staging / JOURNAL).unlink()  # done: from here on, nothing is undone
    except BaseException as exc:
        stuck = _roll_back(out, staging, journal)
        if not isinstance(exc, OSError):
            raise
        message = f"cannot write the generated files into {out} ({_detail(exc)})"
        if stuck:
            message += (
                "; these files could not be put back as they were: "
                + ", ".join(stuck)
                + f" (their earlier contents are kept in {staging}; the next tooldesign gen "
                f"into {out} puts them back)"
            )
        else:
            message += "; the folder was left as it was"
        raise OutputError(message) from exc
    for relpath in changes.remove:
        _prune_empty_dirs((out / relpath).parent, out)


def _staged(staging: Path, kind: str, number: int) -> Path:
    """Where the ``number``-th change of a commit keeps its new (``kind`` "new") or earlier
    ("old") content. Numbered, not named like the files: no tool that searches the output
    folder (for ``tool_schemas.json``, for Python modules) takes a staged copy for the file."""
    folder = staging / kind
    folder.mkdir(exist_ok=True)
    return folder / str(number)


def _roll_back(out: Path, staging: Path, journal: _Journal) -> list[str]:
    """Undo every change of ``journal`` that was made; the files that could not be, by path.

    Each step can run again: a file already put back has no copy left in ``<staging>/old``,
    and a file this commit wrote is removed only while it holds what the commit wrote. The
    journal is deleted once everything is as it was, and kept otherwise, to try again.
    """
    stuck: list[str] = []
    for number, change in reversed(list(enumerate(journal.changes))):
        target = out / change.path
        backup = staging / "old" / str(number)
        try:
            _moving(target).unlink(missing_ok=True)
            if change.existed:
                if backup.exists() and not _same_file(backup, target):
                    _move(backup, target)
            elif change.new is not None and _holds(target, change.new):
                target.unlink()
        except OSError:
            if not _as_it_was(change, target, backup):
                stuck.append(change.path)
    for folder in reversed(journal.folders):
        try:
            (out / folder).rmdir()
        except OSError:
            pass  # not empty: what it holds is not this commit's (or is named above)
    if not stuck:
        (staging / JOURNAL).unlink(missing_ok=True)
    return sorted(stuck)


def _as_it_was(change: _Change, target: Path, backup: Path) -> bool:
    """After a step of undoing ``change`` failed: whether ``target`` is as before the commit
    all the same (a failure to tidy up is no file left changed)."""
    if not change.existed:
        return change.new is None or not _holds(target, change.new)
    if not backup.exists():
        return True  # moved back already
    try:
        return backup.read_bytes() == target.read_bytes()
    except OSError:
        return False


def _keep(target: Path, backup: Path) -> None:
    """Keep ``target``'s current content at ``backup``: a hard link when the file system allows."""
    try:
        os.link(target, backup)
    except OSError:
        shutil.copy2(target, backup)


def _move(source: Path, target: Path) -> None:
    """Move ``source`` to ``target``, replacing it at once; across file systems (a mount point
    inside the output folder), by a copy beside ``target`` that is then renamed over it."""
    try:
        os.replace(source, target)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    temp = _moving(target)
    try:
        shutil.copy2(source, temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        source.unlink()
    except OSError:
        pass  # a copy left in the staging folder, which goes as a whole


def _moving(target: Path) -> Path:
    return target.with_name(f".{target.name}{_MOVING}")


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (a hard link whose original was never replaced)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _holds(path: Path, expected_digest: str) -> bool:
    try:
        return digest(path.read_bytes()) == expected_digest
    except OSError:
        return False


def _missing_folders(out: Path, paths: dict[str, bytes]) -> tuple[str, ...]:
    """The folders below ``out`` that writing ``paths`` creates, outermost first."""
    folders = {parent for relpath in paths for parent in PurePosixPath(relpath).parents}
    return tuple(
        f.as_posix()
        for f in sorted(folders, key=lambda f: (len(f.parts), f.as_posix()))
        if f.parts and not (out / f).is_dir()
    )


def _make_folders(folder: Path, created: list[Path]) -> None:
    """Create ``folder`` and any missing parents, recording each one created."""
    missing: list[Path] = []
    while not folder.is_dir():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        created.append(path)


def _prune_empty_dirs(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _detail(exc: OSError) -> str:
    return f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)
