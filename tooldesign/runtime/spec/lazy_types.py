"""A generated toolset's models, imported when first needed.

A toolset's ``types.py`` holds its pydantic models; creating their classes is most of what
importing a toolset costs. Listing tools, exporting schemas and serving ``tools/list`` need only
the JSON schemas, which ``specs.py`` holds as literals, so generated ``specs.py`` and
``transforms.py`` reach the models through a :class:`LazyTypes`: the module is imported the first
time a model is read (decoding a call, checking a result, a transform building one, a user
reading ``spec.payload.model``), not when the toolset is imported or its tools are listed.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)


class TypesImportError(ImportError):
    """A generated toolset's models could not be imported when first needed (a broken import in
    the module, or a ``types.py`` older than its ``specs.py``: regenerate)."""


class LazyTypes:
    """A generated toolset's ``types`` module, imported when one of its names is first read.

    ``t.Device`` imports the module the first time and keeps ``Device`` on the handle, so later
    reads are plain attribute reads. Two threads reading at once get the same class: the import
    system makes the second wait for the module the first is importing.
    """

    def __init__(self, module: str, *, service: str, toolset: str) -> None:
        # Names of the handle's own start with "_": a model's never does, so none is shadowed.
        self._module_ = module
        self._owner_ = f"toolset {toolset!r} of service {service!r}"

    def _load_(self) -> Any:
        """The module, imported if it is not yet; a failure says whose models and which module."""
        try:
            return importlib.import_module(self._module_)
        except Exception as exc:
            raise TypesImportError(
                f"{self._owner_}: its models could not be imported from {self._module_}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def __getattr__(self, name: str) -> Any:
        # Reached only for names not read yet. "_" names are the handle's own, or probes
        # (copy, pickle, inspect) that must not import anything.
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._load_(), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        state = "imported" if self._module_ in sys.modules else "not imported yet"
        return f"<models of {self._owner_}: {self._module_}, {state}>"


class ModelRef(Generic[ModelT]):
    """A model of a generated toolset, by its name in the toolset's ``types`` module: what a
    generated ``TypeSpec`` holds until the model is first needed (``TypeSpec.model``)."""

    __slots__ = ("name", "types")

    def __init__(self, types: LazyTypes, name: str) -> None:
        self.types = types
        self.name = name

    def resolve(self) -> type[ModelT]:
        """The model class, its module imported on first use."""
        try:
            model: type[ModelT] = getattr(self.types, self.name)
        except AttributeError:
            raise TypesImportError(
                f"{self.types._owner_}: {self.types._module_} has no model {self.name!r}; "
                "its generated package is out of date (run tooldesign gen again)"
            ) from None
        return model

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelRef):
            return NotImplemented
        return (self.types._module_, self.name) == (other.types._module_, other.name)

    def __hash__(self) -> int:
        return hash((self.types._module_, self.name))

    def __repr__(self) -> str:
        return f"ModelRef({self.types._module_}.{self.name})"
