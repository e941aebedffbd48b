"""``tooldesign init [DIR] [--name NAME]``: a working project to start from.

Writes a design (one service, one toolset, two tools bound to application code, with an
injected field and a bounded result), the application code, a ``runtime.py`` that builds the
``Runtime`` from every toolset generated (so renaming or replacing the example toolset needs no
change there), tests that call the tools through it, a README and the tools' settings
(``pyproject.toml``); then generates ``gen/`` and prints the next commands.

It never overwrites: if any file it would write exists, it writes nothing and says which.
The files are the templates in ``scaffold/`` (``${name}`` is the project's name).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import keyword
import re
import string
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tooldesign.contract.errors import EXIT_OK, UserError

if TYPE_CHECKING:
    from tooldesign.codegen.pipeline import Report

SCAFFOLD = Path(__file__).resolve().parent / "scaffold"

RESERVED = frozenset({"app", "gen", "design", "tests", "tooldesign", "pydantic"})
"""Names a project cannot take: its own folders, and packages it imports (the design's module
and the generated package are named after the project)."""

TOOLSET = "notes"
RUNTIME_TARGET = "app.runtime:build_runtime"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = commands.add_parser(
        "init", help="start a project: a design, application code, a runtime and tests"
    )
    init.add_argument(
        "folder",
        metavar="DIR",
        nargs="?",
        default=".",
        help="where to create the project (default: the current folder)",
    )
    init.add_argument(
        "--name",
        help="the project's name: its service, design file and generated package "
        "(default: DIR's name)",
    )
    init.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tooldesign.codegen.toolchain import check_toolchain

    check_toolchain("init")
    folder = Path(args.folder)
    name = project_name(args.name, folder)
    files = scaffold_files(name)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: is a file; init creates a project in a folder")
    taken = [path for path in [*files, f"gen/{name}"] if (folder / path).exists()]
    if taken:
        raise UserError(
            f"{folder}: {', '.join(taken)} already exist{'s' if len(taken) == 1 else ''}; "
            "init never overwrites files: choose a new folder (tooldesign init DIR) or "
            "another --name"
        )
    for path, text in files.items():
        target = folder / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{target}: cannot write the file: {exc.strerror or exc}") from None
    report = _generate(folder)
    _tell(folder, name, report.tools)
    return EXIT_OK


def project_name(given: str | None, folder: Path) -> str:
    """``--name``, or one made from the folder's name; checked to name a Python package."""
    if given is not None:
        name = given
        if not _is_package_name(name):
            raise UserError(
                f"--name {name!r}: a project's name names its Python packages: use lower-case "
                "letters, digits and '_', starting with a letter"
            )
    else:
        base = folder.resolve().name
        name = re.sub(r"[^a-z0-9_]+", "_", base.lower()).strip("_")
        if not _is_package_name(name):
            raise UserError(
                f"{folder}: {base!r} cannot name a Python package; give one with --name"
            )
    if name in RESERVED or name in sys.stdlib_module_names:
        raise UserError(
            f"the project's name {name!r} is taken by "
            f"{'a module Python has' if name in sys.stdlib_module_names else 'the project'} "
            "(its design module would hide it); choose another with --name"
        )
    return name


def _is_package_name(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z][a-z0-9_]*", name)) and not keyword.iskeyword(name)


def scaffold_files(name: str) -> dict[str, str]:
    """The project's files (relative path → text), the templates filled in for ``name`` (and
    ``install``: what installs this tooldesign)."""
    files: dict[str, str] = {}
    install = install_requirement("gen,mcp")
    for template in sorted(SCAFFOLD.rglob("*.tmpl")):
        relative = template.relative_to(SCAFFOLD).as_posix().removesuffix(".tmpl")
        relative = relative.replace("NAME", name)
        text = string.Template(template.read_text(encoding="utf-8")).substitute(
            name=name, install=install
        )
        files[relative] = text
    return files


def install_requirement(extras: str) -> str:
    """What installs the tooldesign that runs this, with ``extras``: from where it was installed
    (a clone, a built wheel: recorded by pip), else by name from the package index."""
    try:
        recorded = importlib.metadata.distribution("tooldesign").read_text("direct_url.json")
        url = json.loads(recorded).get("url") if recorded else None
    except (importlib.metadata.PackageNotFoundError, ValueError, AttributeError):
        url = None
    if isinstance(url, str) and url.startswith("file://"):
        return f"tooldesign[{extras}] @ {url}"
    return f"tooldesign[{extras}]"


def _generate(folder: Path) -> Report:
    """``tooldesign gen design --out gen``, run in the new project as its user would."""
    from tooldesign.generate import generate

    with _inside(folder):
        return generate(["design"], "gen")


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """Work from ``folder`` (the design imports ``app`` from there) and forget, afterwards, the
    modules imported from it: another project's ``app`` must not be found in their place."""
    import contextlib

    root = folder.resolve()
    before = set(sys.modules)
    try:
        with contextlib.chdir(root):
            yield
    finally:
        for module_name in set(sys.modules) - before:
            file = getattr(sys.modules[module_name], "__file__", None) or ""
            if file and Path(file).resolve().is_relative_to(root):
                del sys.modules[module_name]


def _tell(folder: Path, name: str, tools: int) -> None:
    """What was made, and the three commands to try next."""
    shown = folder.as_posix().rstrip("/") or "."
    made = {
        f"design/{name}.py": "the design: what models see and call",
        "app/notes.py": "the application code the tools are bound to",
        "app/handlers.py": "the code of tools without BindTo (none yet)",
        "app/runtime.py": "builds the Runtime from every toolset generated",
        "tests/test_tools.py": "calls the tools through the runtime",
    }
    commands = {
        "python -m unittest": "run the tests",
        f"tooldesign serve-mcp {RUNTIME_TARGET}": "serve the tools over MCP",
        "tooldesign export --provider openai gen": "the tools as OpenAI takes them",
    }
    width = max(map(len, made))
    head = f"tooldesign: created the {name} project in {shown}/ ({tools} tools in toolset "
    lines = [
        f"{head}{TOOLSET!r}, generated into gen/)",
        *(f"  {path:<{width}}  {what}" for path, what in made.items()),
        "",
        "Next:",
    ]
    if shown != ".":
        lines.append(f"  cd {shown}")
    width = max(map(len, commands))
    lines += [f"  {command:<{width}}  # {what}" for command, what in commands.items()]
    print("\n".join(lines))
