"""Server data as a catalog lists it: typed data a tool emits for observers, never for the model
(the ``server_data`` key of a ``tool_schemas.json`` entry, :mod:`tooldesign.contract.catalog`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tooldesign.contract.schema_check import checked_schema


class ServerDataDefinition(Protocol):
    """A kind of server data as a catalog lists it (what :class:`CatalogServerData` and the
    runtime's and code generation's views of one have in common)."""

    @property
    def kind(self) -> str: ...

    @property
    def description(self) -> str | None: ...

    @property
    def default(self) -> str: ...

    @property
    def schema(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class CatalogServerData:
    """Typed data a tool emits for observers, never for the model."""

    kind: str
    description: str | None
    default: Literal["on", "off"]
    schema: Mapping[str, Any]


def parse_server_data(value: Any, where: str, problems: list[str]) -> tuple[CatalogServerData, ...]:
    if not isinstance(value, list):
        problems.append(f"{where}: 'server_data' must be a list")
        return ()
    out: list[CatalogServerData] = []
    for index, item in enumerate(value):
        at = f"{where}.server_data[{index}]"
        if not isinstance(item, Mapping):
            problems.append(f"{at}: not a JSON object")
            continue
        kind, description, default = item.get("kind"), item.get("description"), item.get("default")
        if not isinstance(kind, str) or not kind:
            problems.append(f"{at}: 'kind' must be a non-empty string")
        if description is not None and not isinstance(description, str):
            problems.append(f"{at}: 'description' must be a string or null")
        if default not in ("on", "off"):
            problems.append(f'{at}: \'default\' must be "on" or "off"')
        schema = checked_schema(item.get("schema"), f"{at}.schema", problems)
        if schema is not None and isinstance(kind, str) and default in ("on", "off"):
            out.append(
                CatalogServerData(
                    kind=kind,
                    description=description if isinstance(description, str) else None,
                    default="on" if default == "on" else "off",
                    schema=schema,
                )
            )
    return tuple(out)
