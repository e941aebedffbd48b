"""Phase 1 of evaluation: run design files so their DSL calls are recorded.

A design runs as ``python design.py`` would: its own folder and the current directory (or the
application's folder, when one is given) are importable, so it can import the application code
it binds to and sibling design files. Exceptions raised by the design are reported at the
design's own line; an import of application code that is not importable says where that code
is, when it sits in a folder above the design.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import CodeType

from tooldesign.contract.errors import UserError, close_match
from tooldesign.contract.location import Location
from tooldesign.dsl.recorder import current
from tooldesign.eval.bytecode import design_code
from tooldesign.ir.errors import Issues
from tooldesign.tracebacks import user_frame


class UsageError(UserError):
    """The command was given something that is not a design (a missing path, a text file…)."""


def design_files(sources: Sequence[str]) -> list[tuple[str, Path | None]]:
    """Each source as ``(label, file)``; a dotted module gives ``(module, None)``."""
    out: list[tuple[str, Path | None]] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.glob("*.py") if p.name != "__init__.py")
            if not files:
                raise UsageError(f"{source}: not a design: the folder has no .py design files")
            out.extend((str(f), f) for f in files)
        elif path.is_file():
            if path.suffix != ".py":
                raise UsageError(
                    f"{source}: not a design: expected a .py file, a folder of them, or a module"
                )
            out.append((source, path))
        elif path.suffix == ".py" or os.sep in source or "/" in source:
            raise UsageError(f"{source}: no such file or folder")
        elif source.replace(".", "").replace("_", "").isalnum():
            out.append((source, None))
        else:
            raise UsageError(f"{source}: no such file, folder or module")
    return out


@contextmanager
def importable(
    entries: Sequence[tuple[str, Path | None]], app_dir: Path | None = None
) -> Iterator[bool]:
    """Make each design's own folder and the current directory (or ``app_dir``, the folder the
    application is imported from) importable; forget designs after.

    A design imports its siblings the same way whether it is named by path or as a dotted
    module: its folder comes first on ``sys.path``, then the application's folder. Yields
    whether the user lets Python write bytecode (turned off inside the block).
    """
    saved_path = list(sys.path)
    before = set(sys.modules)
    folders = design_folders(entries)
    application = app_dir if app_dir is not None else Path(os.getcwd())
    _put_first_on_path([*folders, application])
    # Generation writes only into its output folder: no __pycache__ beside the user's design
    # or application code.
    saved_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        # Found only now that the application's folder is importable (finding a dotted module
        # imports its parent packages, which are forgotten with the rest afterwards).
        dotted = [_module_folder(label) for label, file in entries if file is None]
        module_folders = [folder for folder in dotted if folder is not None]
        _put_first_on_path(module_folders)
        folders.extend(module_folders)
        yield not saved_bytecode
    finally:
        sys.path[:] = saved_path
        sys.dont_write_bytecode = saved_bytecode
        # Design modules must run again on the next evaluation (their DSL calls record then).
        roots = tuple(str(f.resolve()) + os.sep for f in folders)
        for name in set(sys.modules) - before:
            module = sys.modules.get(name)
            places = [getattr(module, "__file__", None) or "", *getattr(module, "__path__", ())]
            dotted_parent = any(label.startswith(f"{name}.") for label in _dotted_designs)
            if (
                name in _dotted_designs
                or dotted_parent
                or any(f"{place}{os.sep}".startswith(roots) for place in places if place)
            ):
                del sys.modules[name]
        _dotted_designs.clear()


def _put_first_on_path(folders: Sequence[Path]) -> None:
    entries = [str(f.resolve()) for f in folders]
    sys.path[:0] = [p for p in dict.fromkeys(entries) if p not in sys.path]


def _module_folder(name: str) -> Path | None:
    """The folder of the dotted module ``name`` (not run), or ``None`` if it cannot be found."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - a parent package failed; importing the design reports it
        return None
    if spec is None or not spec.has_location or not spec.origin:
        return None
    return Path(spec.origin).resolve().parent


# Dotted-module designs imported during the current evaluation (forgotten after it).
_dotted_designs: set[str] = set()


def design_folders(entries: Sequence[tuple[str, Path | None]]) -> list[Path]:
    return sorted({f.parent for _, f in entries if f is not None})


def run_designs(
    entries: Sequence[tuple[str, Path | None]], issues: Issues, *, cache_code: bool
) -> list[str]:
    """Run every design source, recording DSL calls. Returns the design files that ran.

    Call it inside :func:`importable` for the entries' folders. With ``cache_code``, the
    compiled code of design files is kept in tooldesign's cache (see ``eval/bytecode.py``).
    """
    ran: list[str] = []
    design_paths = {str(f.resolve()) for _, f in entries if f is not None}
    for label, file in entries:
        try:
            if file is None:
                # Already imported (by the application, say)? Run it again so its calls record.
                loaded = sys.modules.get(label)
                module = (
                    importlib.reload(loaded)
                    if loaded is not None
                    else importlib.import_module(label)
                )
                _dotted_designs.add(label)
                ran.append(getattr(module, "__file__", None) or label)
            else:
                _run_file(file, cache_code=cache_code)
                ran.append(str(file))
        except ModuleNotFoundError as exc:
            if file is None and exc.name and label.startswith(exc.name):
                raise UsageError(f"{label}: no such file, folder or module") from None
            _report(exc, issues, design_paths)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - design code may raise anything
            _report(exc, issues, design_paths)
        finally:
            current().stack.clear()
    return ran


def _run_file(file: Path, *, cache_code: bool) -> None:
    resolved = str(file.resolve())
    name = file.stem
    existing = sys.modules.get(name)
    if existing is not None:
        if getattr(existing, "__file__", None) == resolved:
            return  # another design file imported it already; its calls are recorded
        name = f"_tooldesign_design_{abs(hash(resolved)):x}_{file.stem}"
    spec = importlib.util.spec_from_file_location(
        name, resolved, loader=_DesignLoader(name, resolved, cache_code=cache_code)
    )
    if spec is None or spec.loader is None:
        raise UsageError(f"{file}: cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


class _DesignLoader(importlib.machinery.SourceFileLoader):
    """Loads a design file's code from its source, or from tooldesign's cache of the code of
    that exact source (never from Python's own bytecode cache: see ``eval/bytecode.py``)."""

    def __init__(self, fullname: str, path: str, *, cache_code: bool) -> None:
        super().__init__(fullname, path)
        self.cache_code = cache_code

    def get_code(self, fullname: str) -> CodeType:
        return design_code(self.path, self.get_data(self.path), write=self.cache_code)


def _report(exc: BaseException, issues: Issues, design_paths: set[str]) -> None:
    """Report an exception raised by design code at the design's own line, without a traceback.

    When it was raised deeper, in the application code the design imports, the innermost line
    of the user's own code is named too, with its source; the exception is kept as the issue's
    cause (``gen --traceback`` shows it whole).
    """
    if isinstance(exc, SyntaxError) and exc.filename:
        issues.add(f"SyntaxError: {exc.msg}", Location(exc.filename, exc.lineno or 0), "")
        return
    location: Location | None = None
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in design_paths:
            location = Location(frame.filename, frame.lineno or 0)
            break
    raised = user_frame(exc)
    if location is None and raised is not None:
        location = Location(raised.file, raised.line)
    message = f"{type(exc).__name__}: {exc}" + _keyword_guess(exc)
    if raised is not None and location != Location(raised.file, raised.line):
        message += f"\n      raised at {raised}"
    if isinstance(exc, ModuleNotFoundError) and location is not None:
        message += _where_the_module_is(exc, Path(location.file))
    issues.add(message, location, "", cause=exc)


_FOLDERS_UP = 4
"""How many folders above a design file are searched for the application it imports."""


def _where_the_module_is(exc: ModuleNotFoundError, design: Path) -> str:
    """For a design that imports application code Python cannot find (``from app.notes import
    …`` run from outside the project): the folder above the design that holds it, and how to
    make it importable."""
    top = (exc.name or "").partition(".")[0]
    if not top.isidentifier() or top in sys.modules:
        return ""  # a missing module inside a package that was found: not a question of folders
    for folder in list(design.resolve().parents)[:_FOLDERS_UP]:
        holds = (folder / top).is_dir() or (folder / f"{top}.py").is_file()
        if holds and str(folder) not in sys.path:
            shown = _shown_folder(folder)
            return (
                f"\n      {top!r} is in {shown}/, which is not importable from here: run from "
                f"{shown}/, or give --app-dir {shown}"
            )
    return ""


def _shown_folder(folder: Path) -> str:
    """``folder`` as the user may type it: relative to the current directory when below it."""
    try:
        relative = folder.relative_to(Path.cwd())
    except ValueError:
        return str(folder)
    return str(relative) if relative.parts else "."


_UNEXPECTED_KEYWORD = re.compile(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'")


def _keyword_guess(exc: BaseException) -> str:
    """For a DSL call given a keyword it does not take (``Tool(..., titel=...)``), the one it
    may have meant."""
    found = _UNEXPECTED_KEYWORD.fullmatch(str(exc)) if isinstance(exc, TypeError) else None
    if found is None:
        return ""
    import tooldesign.dsl

    call = getattr(tooldesign.dsl, found[1], None)
    if not callable(call):
        return ""
    try:
        keywords = list(inspect.signature(call).parameters)
    except (TypeError, ValueError):
        return ""
    close = close_match(found[2], keywords)
    return f"; did you mean {close}=?" if close else ""
