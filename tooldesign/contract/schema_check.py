"""Checking a catalog's schemas against the JSON Schema meta-schema, each distinct one once.

Read by the catalog loader (:mod:`tooldesign.contract.catalog`): a schema that is not valid
JSON Schema is a catalog problem naming where.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any


def checked_schema(schema: Any, where: str, problems: list[str]) -> Mapping[str, Any] | None:
    """``schema`` when it is a valid JSON Schema; else ``None``, its problem added."""
    if not isinstance(schema, Mapping):
        problems.append(f"{where}: missing, or not a JSON object")
        return None
    try:
        text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data (parsed catalogs always are)
        text = None
    error = _schema_error(text) if text is not None else _meta_error(schema)
    if error is not None:
        at, message = error
        problems.append(f"{where}{'/' + at if at else ''}: not a valid JSON Schema: {message}")
        return None
    return schema


@lru_cache(maxsize=4096)
def _schema_error(text: str) -> tuple[str, str] | None:
    """The meta-schema's verdict on a schema, by its JSON text.

    Catalogs repeat schemas (a service's tools share result shapes, a service catalog lists its
    toolsets' tools again), and meta-validation is most of the time a load takes: each distinct
    schema is checked once.
    """
    return _meta_error(json.loads(text))


@lru_cache(maxsize=1)
def _meta_validator() -> Any:
    # Imported when a catalog is first read: generating one never needs jsonschema.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


def _meta_error(schema: Any) -> tuple[str, str] | None:
    from jsonschema.exceptions import best_match

    error = best_match(_meta_validator().iter_errors(schema))
    if error is None:
        return None
    return "/".join(str(p) for p in error.absolute_path), error.message


__all__ = ["checked_schema"]
