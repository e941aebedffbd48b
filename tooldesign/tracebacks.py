"""Where an exception came from, told in the user's own files.

An error raised while tooldesign runs the user's code (a design, the application it imports, a
runtime factory) is reported without a traceback, but with the innermost line of the user's own
code that it passed through: tooldesign's modules, the standard library and installed packages
are not the user's to fix.
"""

from __future__ import annotations

import linecache
import os
import sysconfig
import traceback
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tooldesign.contract.location import display_path

_PACKAGE_DIR = str(Path(__file__).resolve().parent) + os.sep


@dataclass(frozen=True, slots=True)
class UserFrame:
    """One line of the user's code in a traceback: its file, line, function and source text."""

    file: str
    line: int
    function: str
    source: str

    def __str__(self) -> str:
        where = f"{display_path(self.file)}:{self.line}"
        at = f" in {self.function}" if self.function != "<module>" else ""
        return f"{where}{at}: {self.source}" if self.source else f"{where}{at}"


def user_frame(exc: BaseException) -> UserFrame | None:
    """The innermost frame of ``exc``'s traceback that is in the user's own files, if any."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if is_user_file(frame.filename):
            source = (frame.line or linecache.getline(frame.filename, frame.lineno or 0)).strip()
            return UserFrame(frame.filename, frame.lineno or 0, frame.name, source)
    return None


def traceback_text(exc: BaseException) -> str:
    """``exc``'s traceback, from the first frame of the user's own code on (what tooldesign
    did to get there is left out)."""
    tb = exc.__traceback__
    while tb is not None and not is_user_file(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


def is_user_file(file: str) -> bool:
    """Whether ``file`` is the user's: not tooldesign's, the standard library's, an installed
    package's, or code without a file (``<frozen …>``, ``<string>``)."""
    if not file or file.startswith("<"):
        return False
    resolved = os.path.realpath(file)
    return not resolved.startswith((_PACKAGE_DIR, *_library_dirs()))


@cache
def _library_dirs() -> tuple[str, ...]:
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    paths = sysconfig.get_paths()
    return tuple(
        dict.fromkeys(os.path.realpath(paths[name]) + os.sep for name in names if name in paths)
    )


def described(exc: BaseException) -> str:
    """``Type: message (file:line)``, the line being the innermost of the user's own code:
    enough to find it, no traceback."""
    frame = user_frame(exc)
    where = f" ({display_path(frame.file)}:{frame.line})" if frame is not None else ""
    return f"{type(exc).__name__}: {exc}{where}"
