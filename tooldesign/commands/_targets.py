"""``MODULE:ATTR`` targets of the commands that run an application's runtime (``serve-mcp``,
``worker``): importing them, and calling a factory that builds one, with clear errors."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from tooldesign.contract.errors import UserError


def split_target(target: str, *, usage: str) -> tuple[str, str]:
    """``module:attr`` split in two; ``usage`` says what was expected (``serve-mcp takes …``)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{usage}, got {target!r}")
    return module_name, attr


def load(module_name: str, attr: str) -> Any:
    """``module_name``'s ``attr`` (a dotted path inside the module), with clear errors.

    The current directory is importable, as it is for ``python -m``.
    """
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(f"{missing}."):
            raise UserError(
                f"no module named {module_name!r} (looked in {os.getcwd()} and the installed "
                "packages; run from the folder that contains it)"
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
            f"{name} is a {type(value).__name__}, not {', '.join(kinds.values())} or a "
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
            f"{name} returned a {type(value).__name__}, not {' or '.join(kinds.values())}"
        )
    return value


def described(exc: BaseException) -> str:
    """``Type: message (file:line)`` of where ``exc`` was raised: enough to find it, no traceback."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"
