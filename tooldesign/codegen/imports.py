"""Sort a generated module's leading import block the way ruff's isort rule (I001) expects.

The model generator emits its imports unsorted; formatting does not sort them, and a second
ruff process just for that would double the formatting cost. The block is small and regular,
so it is rebuilt here: ``__future__``, standard library, third party, then relative imports,
one blank line between sections, straight imports before ``from`` imports, names ordered
constants → classes → others. The application's own packages (``first_party``) get a section of
their own between third-party and relative imports, as ruff sorts them in the application's
project.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict

WRAP_AT = 88
"""Longer ``from`` imports are split one name a line, as ruff's isort splits them at its default
line length: generated code then passes ``ruff check`` in a project with the default settings
as well as in one with longer lines (the trailing comma keeps the split)."""


def _name_key(name: str) -> tuple[int, str, str]:
    if len(name) > 1 and name.isupper():
        kind = 0  # CONSTANT
    elif name[:1].isupper():
        kind = 1  # Class
    else:
        kind = 2  # function or variable
    return kind, name.lower(), name


def _section(module: str, level: int, first_party: frozenset[str]) -> int:
    if level:
        return 4
    if module == "__future__":
        return 0
    top = module.split(".")[0]
    if top in sys.stdlib_module_names:
        return 1
    return 3 if top in first_party else 2


def sort_imports(source: str, first_party: frozenset[str] = frozenset()) -> str:
    tree = ast.parse(source)
    body = list(tree.body)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
    ):
        body = body[1:]  # a module docstring
    block: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        block.append(node)
    if not block:
        return source
    straight: dict[int, set[str]] = defaultdict(set)
    from_names: dict[tuple[int, str, int], set[str]] = defaultdict(set)
    for node in block:
        if isinstance(node, ast.Import):
            for alias in node.names:
                text = alias.name + (f" as {alias.asname}" if alias.asname else "")
                straight[_section(alias.name, 0, first_party)].add(text)
        else:
            module = node.module or ""
            key = (_section(module, node.level, first_party), module, node.level)
            for alias in node.names:
                from_names[key].add(alias.name + (f" as {alias.asname}" if alias.asname else ""))
    sections: list[list[str]] = []
    for section in range(5):
        lines = [f"import {name}" for name in sorted(straight[section], key=str.lower)]
        modules = sorted(
            (k for k in from_names if k[0] == section), key=lambda k: (-k[2], k[1].lower())
        )
        for _, module, level in modules:
            names = sorted(
                from_names[(section, module, level)], key=lambda n: _name_key(n.split(" as ")[0])
            )
            plain = [n for n in names if " as " not in n]
            head = f"from {'.' * level}{module} import"
            if plain:
                line = f"{head} {', '.join(plain)}"
                if len(line) > WRAP_AT:
                    line = f"{head} (\n" + "".join(f"    {n},\n" for n in plain) + ")"
                lines.append(line)
            # An aliased name keeps a statement of its own (isort's combine-as-imports is off).
            lines.extend(f"{head} {n}" for n in names if " as " in n)
        if lines:
            sections.append(lines)
    rendered = "\n\n".join("\n".join(lines) for lines in sections)
    lines = source.splitlines(keepends=True)
    start, end = block[0].lineno - 1, (block[-1].end_lineno or block[-1].lineno)
    rest = "".join(lines[end:])
    # As isort spaces them: one blank line before a statement that is no definition (a type
    # alias, say), which the formatter keeps; before a class or function it adds the second.
    after = rest.lstrip("\n")
    if after and not after.startswith(("class ", "def ", "async def ", "@")):
        rest = "\n" + after
    return "".join(lines[:start]) + rendered + "\n" + rest
