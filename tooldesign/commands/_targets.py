"""``MODULE:ATTR`` targets of the commands that run an application's runtime (``serve-mcp``,
``worker``, ``call``, ``mcp-config``): importing them, and calling a factory that builds one,
with clear errors.

A target is ``module.path:attr`` or ``path/to/file.py:attr``. A file inside a package (folders
with ``__init__.py``) is imported under its dotted name, from the folder above the package, so
its own imports work as they do when the application runs.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldesign.contract.errors import UserError
from tooldesign.tracebacks import described


def split_target(target: str, *, usage: str) -> tuple[str, str]:
    """``module:attr`` split in two; ``usage`` says what was expected (``serve-mcp takes …``)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{usage}, got {target!r}")
    return module_name, attr


@dataclass(frozen=True, slots=True)
class Target:
    """Where a target's value is: ``module`` (dotted) and ``attr``, importable from ``folder``."""

    module: str
    attr: str
    folder: Path

    @property
    def spelled(self) -> str:
        """The target as ``module:attr``, for a command started from :attr:`folder`."""
        return f"{self.module}:{self.attr}"


def parse_target(given: str, *, usage: str, app_dir: str | None = None) -> Target:
    """``given`` (``module:attr`` or ``path/to/file.py:attr``) as a :class:`Target`.

    ``app_dir`` is the folder the application is imported from (default: the current one); a
    relative file path is read from there too. ``usage`` says what was expected.
    """
    folder = Path(app_dir).expanduser() if app_dir else Path.cwd()
    if app_dir is not None and not folder.is_dir():
        raise UserError(f"--app-dir {app_dir}: no such folder")
    folder = folder.resolve()
    place, sep, attr = given.rpartition(":")
    if place.endswith(".py"):
        if not sep or not attr:
            raise UserError(f"{usage}, got {given!r}")
        return _file_target(folder / Path(place).expanduser(), attr, given)
    module_name, attr = split_target(given, usage=usage)
    return Target(module_name, attr, folder)


def _file_target(file: Path, attr: str, given: str) -> Target:
    """The module a ``.py`` file is imported as: its dotted name within its package, if any."""
    if not file.is_file():
        raise UserError(f"{given}: no such file {str(file)!r}")
    file = file.resolve()
    parts = [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    if not all(part.isidentifier() for part in parts):
        raise UserError(f"{given}: {'.'.join(parts)!r} cannot be imported as a Python module")
    return Target(".".join(parts), attr, folder)


def load_target(target: Target) -> Any:
    """The value ``target`` names, imported from its folder (see :func:`load`)."""
    return load(target.module, target.attr, folder=target.folder)


def load(module_name: str, attr: str, *, folder: Path | None = None) -> Any:
    """``module_name``'s ``attr`` (a dotted path inside the module), with clear errors.

    ``folder`` (default: the current directory) is importable, as the current directory is for
    ``python -m``.
    """
    where = str(folder) if folder is not None else os.getcwd()
    if folder is not None:
        if where in sys.path:
            sys.path.remove(where)
        sys.path.insert(0, where)
    elif "" not in sys.path and where not in sys.path:
        sys.path.insert(0, where)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(f"{missing}."):
            raise UserError(
                f"no module named {module_name!r} (looked in {where} and the installed "
                "packages; run from the folder that contains it, or give --app-dir)"
            ) from None
        raise UserError(f"importing {module_name!r} failed: {described(exc)}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the application's module may raise anything
        raise UserError(f"importing {module_name!r} failed: {described(exc)}") from None
    value: Any = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise UserError(f"module {module_name!r} has no attribute {attr!r}")
        value = getattr(value, part)
    return value


async def built(value: Any, name: str, kinds: dict[type, str]) -> Any:
    """``value`` if it is one of ``kinds``, else what calling it (and awaiting) returns.

    ``name`` is the target as given; ``kinds`` maps each accepted type to how errors call it
    (``{Runtime: "a Runtime"}``).
    """
    accepted = tuple(kinds)
    if isinstance(value, accepted):
        return value
    if not callable(value):
        raise UserError(
            f"{name} is {_a(type(value).__name__)}, not {', '.join(kinds.values())} or a "
            "function returning one"
        )
    import inspect

    try:
        value = value()
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:  # noqa: BLE001 - the application's factory may raise anything
        raise UserError(f"calling {name} failed: {described(exc)}") from None
    if not isinstance(value, accepted):
        raise UserError(
            f"{name} returned {_a(type(value).__name__)}, not {' or '.join(kinds.values())}"
        )
    return value


def _a(noun: str) -> str:
    """``noun`` with its article: ``an int``, ``a dict``."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
