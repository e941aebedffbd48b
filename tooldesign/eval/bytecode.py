"""A design file's compiled code, cached by the hash of its source.

Compiling is the largest part of evaluating a long design module (about a third of a
regeneration with nothing changed, at 1,000 tools written out). Python's own bytecode cache
cannot be used: it trusts a cached file whose source has the same size and whole-second
modification time, so a design edited within the second it last ran would generate stale code;
and generation writes nothing beside the user's files.

So the code is cached in tooldesign's cache folder, one entry per design file, and used only
when the SHA-256 of the source, the interpreter's bytecode version and the optimization level
all match: the cached code is exactly what compiling the source would give.

The folder is ``$TOOLDESIGN_CACHE_DIR``, else ``$XDG_CACHE_HOME/tooldesign``, else
``~/.cache/tooldesign``. Nothing is written when Python is told not to write bytecode
(``PYTHONDONTWRITEBYTECODE``, ``-B``); a folder that cannot be written is skipped silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from types import CodeType

CACHE_DIR_ENV = "TOOLDESIGN_CACHE_DIR"


def cache_folder() -> Path:
    """Where tooldesign keeps what it caches between runs (the user's, never shared)."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tooldesign"


def design_code(path: str, source: bytes, *, write: bool) -> CodeType:
    """The code of the design file ``path`` whose text is ``source``; cached unless not ``write``."""
    entry = _entry(path)
    key = _key(source)
    code = _read(entry, key)
    if code is None:
        code = compile(source, path, "exec", dont_inherit=True)
        if write:
            _write(entry, key, code)
    return code


def _entry(path: str) -> Path:
    # One entry per design file (named by its path), replaced when the design changes.
    name = hashlib.sha256(os.fsencode(path)).hexdigest()[:32]
    return cache_folder() / "designs" / f"{name}.{sys.implementation.cache_tag}.bin"


def _key(source: bytes) -> bytes:
    optimize = sys.flags.optimize.to_bytes(1, "little")
    return importlib.util.MAGIC_NUMBER + optimize + hashlib.sha256(source).digest()


def _read(entry: Path, key: bytes) -> CodeType | None:
    try:
        data = entry.read_bytes()
    except OSError:
        return None
    if data[: len(key)] != key:
        return None
    try:
        code = marshal.loads(memoryview(data)[len(key) :])
    except (EOFError, ValueError, TypeError):
        return None  # a damaged entry: compile again, and replace it
    return code if isinstance(code, CodeType) else None


def _write(entry: Path, key: bytes, code: CodeType) -> None:
    # Written beside the entry, then renamed over it: a reader sees the old entry or the new.
    temporary = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(key + marshal.dumps(code))
        os.replace(temporary, entry)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
