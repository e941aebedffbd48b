"""The files an import reads: each parsed in the encoding it declares, each made a toolset,
all made one design (a toolset per file, in one service)."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tooldesign.contract.errors import UserError
from tooldesign.importers.draft import (
    DraftDesign,
    DraftNamedType,
    DraftTool,
    DraftToolset,
    ImportResult,
    Notice,
)
from tooldesign.importers.python.tools import FileDraft, ToolReader
from tooldesign.importers.shared_types import renamed_named_type, renamed_tool, same_type
from tooldesign.importers.untrusted import untrusted_notices
from tooldesign.importers.values import pascal, sanitize_name, unique_name


def import_python(
    paths: Path | Sequence[Path],
    *,
    service: str | None = None,
    toolset: str | None = None,
    all_functions: bool = False,
) -> ImportResult:
    """The tools of the Python files at ``paths`` as one design draft, a toolset per file.

    Types of the same name and content in several files are one type; a type whose name
    another file already gave a different type is renamed after its file (``BillingCustomer``),
    and so is a tool whose name another tool has (``search_2``), each with a notice.
    """
    files = [paths] if isinstance(paths, Path) else list(paths)
    if not files:
        raise UserError("no Python file to import")
    if len(files) > 1:
        if toolset:
            raise UserError(
                "--toolset names the toolset of one file; each of several files is a toolset "
                "named after the file"
            )
        if not service:
            raise UserError("several files make one service: name it with --service")
        seen: set[Path] = set()
        for path in files:
            if path.resolve() in seen:
                raise UserError(f"{path}: given twice")
            seen.add(path.resolve())
    drafts = [ToolReader(path, _parse(path), all_functions).run(toolset) for path in files]
    return _one_design(drafts, sanitize_name(service or files[0].stem, identifier=True))


def _parse(path: Path) -> ast.Module:
    """The file's syntax tree, read in the encoding it declares (PEP 263; UTF-8 by default)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        line = _declaration_line(data)
        if line is not None:  # an unknown encoding, or one that disagrees with a BOM
            raise UserError(f"{path}:{line}: {exc.msg}") from None
        encoding = "utf-8"  # no declaration: the first lines are not UTF-8 (said below)
    try:
        source = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(
            f"{path}:{line}: not valid {encoding} text "
            f"(byte {data[exc.start]:#04x}): save the file as UTF-8 or declare its encoding "
            "(# -*- coding: ... -*-)"
        ) from None
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        raise UserError(f"{path}:{line}: not valid Python: a NUL byte (is it a binary file?)")
    try:
        return ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        line = exc.lineno or 1
        text = source.splitlines()[line - 1] if line <= source.count("\n") + 1 else ""
        if sys.version_info < (3, 12) and re.match(r"\s*type\s+\w+\s*(\[.*\])?\s*=", text):
            raise UserError(
                f"{path}:{line}: a `type` statement needs Python 3.12 to read (this is "
                f"{sys.version_info.major}.{sys.version_info.minor}): run tooldesign with "
                "Python 3.12 or later, or write the alias as `Name: TypeAlias = ...`"
            ) from None
        raise UserError(f"{path}:{line}: not valid Python: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise UserError(f"{path}: not valid Python: nested too deeply to read") from None


def _declaration_line(data: bytes) -> int | None:
    """The line (1 or 2) of a file's encoding declaration, if it has one."""
    for number, line in enumerate(data.splitlines()[:2], start=1):
        if re.match(rb"^[ \t\f]*#.*?coding[:=]", line):
            return number
    return None


def _one_design(drafts: list[FileDraft], service: str) -> ImportResult:
    """The files' toolsets in one service, with their types shared or named apart."""
    types: dict[str, DraftNamedType] = {}
    origins: dict[str, str] = {}  # design name → the class name in its file
    first_file: dict[str, str] = {}  # class name → the file that first defined it
    notices: list[Notice] = []
    toolsets: list[DraftToolset] = []
    tool_names: set[str] = set()
    toolset_names: set[str] = set()
    for draft in drafts:
        notices.extend(draft.notices)
        renamed = _share_types(draft, types, origins, first_file, notices)
        tools: list[DraftTool] = []
        for tool in draft.toolset.tools:
            name = unique_name(tool.name, tool_names)
            if name != tool.name:
                notices.append(
                    Notice(
                        f"tool {tool.name!r} ({tool.source})",
                        f"renamed to {name!r}: another tool has the name {tool.name!r}",
                    )
                )
            tool_names.add(name)
            tools.append(replace(renamed_tool(tool, renamed), name=name))
        toolset = unique_name(draft.toolset.name, toolset_names)
        if toolset != draft.toolset.name:
            notices.append(
                Notice(
                    f"toolset {draft.toolset.name!r} ({draft.path.name})",
                    f"renamed to {toolset!r}: another file's toolset has the name",
                )
            )
        toolset_names.add(toolset)
        toolsets.append(replace(draft.toolset, name=toolset, tools=tuple(tools)))
    names = ", ".join(d.path.name for d in drafts)
    design = DraftDesign(
        service=service,
        service_description=f"Tools imported from {names}",
        toolsets=tuple(toolsets),
        types=tuple(types.values()),
        header=(
            f"Tools of {names}, imported by `tooldesign import python`.\n\n"
            "Edit this design from now on; run `tooldesign gen` to generate the "
            + ("toolset." if len(drafts) == 1 else "toolsets.")
        ),
    )
    listed = [tool.name for toolset in toolsets for tool in toolset.tools]
    return ImportResult(design, [*notices, *untrusted_notices(design, listed)])


def _share_types(
    draft: FileDraft,
    types: dict[str, DraftNamedType],
    origins: dict[str, str],
    first_file: dict[str, str],
    notices: list[Notice],
) -> dict[str, str]:
    """Add a file's types to ``types``: the same as one there, shared; a different type of a
    name there, renamed. Returns the file's type names that changed (class name → design name)."""

    def same_origin(own: str, merged: str) -> bool:
        return origins.get(merged) == own

    shared: dict[str, str] = {}
    for name in draft.types:
        match = next(
            (
                existing
                for existing in types
                if origins[existing] == name
                and same_type(name, existing, draft.types, types, same_origin)
            ),
            None,
        )
        if match is not None:
            shared[name] = match
    renamed = dict(shared)
    for name in draft.types:
        if name in shared:
            continue
        new = name
        if name in types:
            new = unique_name(
                f"{pascal(draft.path.stem)}{name}", set(types) | set(renamed.values())
            )
            notices.append(
                Notice(
                    f"type {name!r} ({draft.path.name})",
                    f"not the same as the {name!r} of {first_file[name]}: written as {new!r}",
                )
            )
        renamed[name] = new
    for name, named in draft.types.items():
        if name not in shared:
            new = renamed[name]
            types[new] = renamed_named_type(named, renamed)
            origins[new] = name
            first_file.setdefault(name, draft.path.name)
    return {old: new for old, new in renamed.items() if old != new}
