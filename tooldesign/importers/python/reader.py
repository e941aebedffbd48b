"""The file being read: its classes and the kind of each, its module-level names and the
values they hold, the design types read so far, the notices, and where reading is."""

from __future__ import annotations

import ast
from functools import cached_property
from pathlib import Path
from typing import Any

from tooldesign.importers.draft import DraftNamedType, Notice
from tooldesign.importers.python.discovery import is_context_type
from tooldesign.importers.python.syntax import (
    NO_VALUE,
    call_name,
    dotted,
    enum_members,
    is_dataclass,
    is_enum,
    is_typed_dict,
    last_name,
    literal_value,
    module_constants,
)
from tooldesign.importers.values import pascal, unique_name

# pathlib's and pydantic's path types: a string (pydantic's "path" format is not one designs check).
PATHS = frozenset(
    {"Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath",
     "FilePath", "DirectoryPath", "NewPath"}
)  # fmt: skip
# How many module-level names one name is followed through (``A = B``, ``B = Field(...)``).
_CONSTANT_DEPTH = 8


class FileReader:
    """What reading one file keeps: the parts of the file found once, and the state of the
    reading. The readers of annotations, classes and tools build on it."""

    def __init__(self, path: Path, module: ast.Module) -> None:
        self.path = path
        self.module = module
        self.notices: list[Notice] = []
        self.classes = local_classes(module)  # qualified name (``Tank.Shrimp``) → class
        self.qualified_names = {id(node): name for name, node in self.classes.items()}
        self.type_names = type_names(self.classes)  # qualified name → design type name
        self.constants = module_constants(module)
        self.types: dict[str, DraftNamedType | None] = {}  # None while being built
        self.where = ""
        self.scope = ""  # the class whose body (or method) is being read
        self.expanding: set[str] = set()  # type aliases being read (a recursive one stops)
        self.constant_values: dict[str, Any] = {}  # module-level names' values, once read

    def notice(self, message: str, where: str | None = None) -> None:
        self.notices.append(Notice(where or self.where, message))

    # ── module-level names and values ─────────────────────────────────────────────────────

    def resolved(self, node: ast.expr) -> ast.expr:
        """``node``, or what a module-level name it is was bound to (``LIMIT = Field(...)``,
        ``Status = Literal[...]``, ``DESCRIPTION = "..."``), followed a few names deep."""
        for _ in range(_CONSTANT_DEPTH):
            if not isinstance(node, ast.Name) or node.id not in self.constants:
                break
            node = self.constants[node.id]
        return node

    def value(self, node: ast.expr) -> Any:
        """A literal's value, with a local Enum's members as their values (``Priority.LOW`` →
        ``"low"``, what code-first libraries put in a schema) and module-level names read
        through; ``NO_VALUE`` if it is not one."""
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constant_value(node.id)
        value = literal_value(node, NO_VALUE)
        if value is not NO_VALUE:
            return value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            qualified = self.class_named(node.value)
            enum = self.classes.get(qualified) if qualified is not None else None
            if enum is not None and is_enum(enum):
                return enum_members(enum).get(node.attr, NO_VALUE)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self.value(item) for item in node.elts]
            if any(item is NO_VALUE for item in items):
                return NO_VALUE
            return sorted(items, key=repr) if isinstance(node, ast.Set) else items
        if isinstance(node, ast.Dict) and None not in node.keys:
            keys = [self.value(key) for key in node.keys if key is not None]
            values = [self.value(item) for item in node.values]
            if NO_VALUE in keys or any(item is NO_VALUE for item in values):
                return NO_VALUE
            return dict(zip(keys, values, strict=True))
        if (
            isinstance(node, ast.Call)
            and call_name(node) in PATHS
            and len(node.args) == 1
            and not node.keywords
        ):  # Path("out"): a path is its text
            path = self.value(node.args[0])
            return path if isinstance(path, str) else NO_VALUE
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # PREFIX + "text"
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
        return NO_VALUE

    def constant_value(self, name: str) -> Any:
        """The value of a module-level name, worked out once; ``NO_VALUE`` for one bound to
        an expression of itself (``A = A + "x"``), which has none."""
        if name not in self.constant_values:
            self.constant_values[name] = NO_VALUE  # while it is worked out: a cycle ends
            self.constant_values[name] = self.value(self.constants[name])
        return self.constant_values[name]

    def call_options(self, call: ast.Call) -> dict[str, Any]:
        """The keyword arguments of a call whose values are literals (others are skipped)."""
        out: dict[str, Any] = {}
        for keyword in call.keywords:
            if keyword.arg is not None:
                value = self.value(keyword.value)
                if value is not NO_VALUE:
                    out[keyword.arg] = value
        return out

    # ── the file's classes ────────────────────────────────────────────────────────────────

    def class_named(self, node: ast.expr) -> str | None:
        """The qualified name of the file's class ``node`` names, if it names one: ``Shrimp``
        inside ``class Tank`` is ``Tank.Shrimp``; ``models.Item`` is the file's ``Item``."""
        name = dotted(node)
        if name is None:
            return None
        scope = self.scope.split(".") if self.scope else []
        for depth in range(len(scope), -1, -1):
            candidate = ".".join([*scope[:depth], name])
            if candidate in self.classes:
                return candidate
        last = name.rsplit(".", 1)[-1]
        return last if last in self.classes else None

    def base_class(self, node: ast.ClassDef, base: ast.expr) -> str | None:
        """The qualified name of the file's class that ``node`` derives from as ``base``."""
        own = self.qualified_names[id(node)]
        saved, self.scope = self.scope, own.rpartition(".")[0]
        try:
            parent = self.class_named(base)
        finally:
            self.scope = saved
        return parent if parent != own else None

    def is_model(self, node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """A pydantic model: it derives from ``BaseModel`` (or ``RootModel``), perhaps
        through other classes of the file."""
        for base in node.bases:
            if last_name(base) in ("BaseModel", "RootModel"):
                return True
            parent = self.base_class(node, base)
            if (
                parent is not None
                and parent not in seen
                and self.is_model(self.classes[parent], seen | {parent})
            ):
                return True
        return False

    def is_data(self, node: ast.ClassDef) -> bool:
        """A class the design can take as a type: a pydantic model, a TypedDict, a dataclass
        or an Enum."""
        return self.is_model(node) or is_typed_dict(node) or is_dataclass(node) or is_enum(node)

    @cached_property
    def data_class_names(self) -> frozenset[str]:
        """The names of the file's classes the design can take as types (read once)."""
        return frozenset(
            name.rsplit(".", 1)[-1] for name, c in self.classes.items() if self.is_data(c)
        )

    def is_context(self, node: ast.expr | None) -> bool:
        """A framework's parameter type, unless this file defines a type of that name (a
        pydantic model called ``Request`` or ``Context`` is the model's)."""
        return is_context_type(None if node is None else self.resolved(node), self.data_class_names)


def local_classes(module: ast.Module) -> dict[str, ast.ClassDef]:
    """The module's classes and the classes nested in them, by qualified name (``Tank.Shrimp``)."""
    found: dict[str, ast.ClassDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                found[f"{prefix}{node.name}"] = node
                visit(node.body, f"{prefix}{node.name}.")

    visit(module.body, "")
    return found


def type_names(classes: dict[str, ast.ClassDef]) -> dict[str, str]:
    """A design type name per class: its own name (as pydantic names its schema), or, for a
    nested class whose name another class has, its qualified name in one word
    (``TankShrimp``). Module-level classes keep theirs."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for qualified in sorted(classes, key=lambda q: q.count(".")):
        name = qualified.rsplit(".", 1)[-1]
        if name in taken:
            name = unique_name(pascal(qualified), taken)
        names[qualified] = name
        taken.add(name)
    return names
