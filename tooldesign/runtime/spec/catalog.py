"""Loading ``tool_schemas.json`` catalogs: parsed, checked, and re-read only when they change.

A catalog is what ``tooldesign gen`` writes for each service and toolset. :func:`load_catalog`
returns it as a :class:`Catalog` after checking everything a consumer relies on: the shape of
every entry, ``count``, that ``hash`` is the sha256 of the compact JSON of ``tools`` (and
``version`` its first 12 hex digits), that tool ids and names are unique, and that every schema
is a valid JSON Schema 2020-12 document.

Reloading is cheap: a call first compares the file's ``stat`` (size, mtime, inode) with the
last read, then, if that moved, the sha256 of its bytes; only new content is parsed and checked.
A corrupt, truncated or inconsistent file raises :class:`CatalogError`, and the last good catalog
of that path stays in use:

- ``error.last_good`` carries it, for callers of :func:`load_catalog` that want to go on;
- a :class:`CatalogLoader` keeps serving it from :meth:`CatalogLoader.current` (and records the
  error in :attr:`CatalogLoader.last_error`) until the file is good again.

Catalog objects are shared between callers: treat them, and the schemas in them, as read-only.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

# The catalog format (entries, reading, checking, the hash) is defined once, in the contract;
# this module keeps catalog files loaded, and offers the format's names to users beside it.
from tooldesign.contract.catalog import (
    DIALECT,
    Catalog,
    CatalogError,
    CatalogTool,
    CatalogType,
    ToolDefinition,
    catalog_entry,
    catalog_hash,
    parse_catalog,
    toolset_version,
)
from tooldesign.contract.server_data import CatalogServerData

__all__ = [
    "DIALECT",
    "Catalog",
    "CatalogError",
    "CatalogLoader",
    "CatalogServerData",
    "CatalogTool",
    "CatalogType",
    "ToolDefinition",
    "catalog_entry",
    "catalog_hash",
    "load_catalog",
    "parse_catalog",
    "toolset_version",
]


class CatalogLoader:
    """Keeps one catalog file loaded, re-reading it only when its content changes.

    :meth:`load` returns the current catalog or raises :class:`CatalogError` when the file is
    bad (the error carries ``last_good``). :meth:`current` never fails once a good catalog was
    loaded: while the file is bad it keeps serving the last good one and records the error in
    :attr:`last_error`. Thread-safe.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._good: Catalog | None = None
        self._good_digest: str | None = None
        self._stat_key: tuple[int, int, int, int] | None = None
        self._bad: tuple[tuple[int, int, int, int], str, CatalogError] | None = None
        self.last_error: CatalogError | None = None
        """The error of the latest check, or ``None`` when the file was good."""

    @property
    def last_good(self) -> Catalog | None:
        """The last catalog successfully loaded, if any."""
        return self._good

    def load(self) -> Catalog:
        """The catalog as the file holds it now; raises :class:`CatalogError` if it is bad."""
        with self._lock:
            return self._load()

    def current(self) -> Catalog:
        """The newest good catalog: the file's, or the last good one while the file is bad.

        Raises :class:`CatalogError` only when no good catalog was ever loaded.
        """
        with self._lock:
            try:
                return self._load()
            except CatalogError:
                if self._good is not None:
                    return self._good
                raise

    def _load(self) -> Catalog:
        source = str(self.path)
        try:
            stat = os.stat(self.path)
        except OSError as exc:
            return self._fail(CatalogError(source, [f"cannot read the file: {exc.strerror}"]))
        key = (stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns)
        if self._good is not None and key == self._stat_key:
            self.last_error = None
            return self._good
        if self._bad is not None and self._bad[0] == key:
            return self._fail(self._bad[2])
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            return self._fail(CatalogError(source, [f"cannot read the file: {exc.strerror}"]))
        digest = hashlib.sha256(data).hexdigest()
        if self._good is not None and digest == self._good_digest:
            # Touched or rewritten with the same bytes: nothing to parse again.
            self._stat_key = key
            self.last_error = None
            return self._good
        if self._bad is not None and self._bad[1] == digest:
            self._bad = (key, digest, self._bad[2])
            return self._fail(self._bad[2])
        try:
            catalog = parse_catalog(data, source=source, path=self.path)
        except CatalogError as exc:
            self._bad = (key, digest, exc)
            return self._fail(exc)
        self._good, self._good_digest, self._stat_key = catalog, digest, key
        self._bad = None
        self.last_error = None
        return catalog

    def _fail(self, error: CatalogError) -> Catalog:
        error.last_good = self._good
        self.last_error = error
        raise error


_loaders: dict[Path, CatalogLoader] = {}
_loaders_lock = threading.Lock()


def load_catalog(path: str | os.PathLike[str]) -> Catalog:
    """The catalog at ``path``, parsed and checked; re-read only when the file changed.

    Calls for the same file share one :class:`CatalogLoader`: an unchanged file costs one
    ``stat``. Raises :class:`CatalogError` when the file is missing, corrupt, partial or
    inconsistent; ``error.last_good`` then holds the last good catalog loaded from that path.
    """
    resolved = Path(path).resolve()
    with _loaders_lock:
        loader = _loaders.get(resolved)
        if loader is None:
            loader = _loaders[resolved] = CatalogLoader(resolved)
    return loader.load()
