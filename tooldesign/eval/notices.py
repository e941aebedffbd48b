"""What a design's author should know that is not an error: names changed for Python, an empty
service, a destructive tool nobody approves. Computed when the design is read; ``gen`` prints them.
"""

from __future__ import annotations

from tooldesign.contract.location import Location
from tooldesign.contract.naming import SHADOWED_MODULES, package_dir, python_identifier
from tooldesign.ir.errors import DesignNotice
from tooldesign.ir.model import Design, Service


def design_notices(design: Design) -> list[DesignNotice]:
    """Every notice of ``design``, service by service."""
    notices: list[DesignNotice] = []
    for service in design.services:
        notices.extend(_layout(service))
        notices.extend(_unapproved_destructive(service))
    return notices


def _layout(service: Service) -> list[DesignNotice]:
    """Where a name becomes another folder name than the design's, and an empty service."""
    notices: list[DesignNotice] = []
    if service.ident != service.name:
        # A name Python takes as it is was changed for the module it would shadow.
        shadows = (
            service.name in SHADOWED_MODULES or python_identifier(service.name) == service.name
        )
        notices.append(
            _renamed(service.name, service.ident, service.location, service.path, shadows=shadows)
        )
    if not service.toolsets:
        notices.append(
            DesignNotice(
                f"declares no toolsets: {service.ident}/ holds no toolset package and its "
                "tool_schemas.json lists no tools",
                service.location,
                service.path,
            )
        )
    for toolset in service.toolsets:
        if toolset.ident != toolset.name:
            notices.append(
                _renamed(
                    toolset.name,
                    package_dir(service.ident, toolset.ident),
                    toolset.location,
                    toolset.path,
                )
            )
    return notices


def _unapproved_destructive(service: Service) -> list[DesignNotice]:
    """A destructive tool whose calls no person approves: the hint alone stops nothing."""
    return [
        DesignNotice(
            "is annotated destructive=True, but nothing asks a person before it runs (the "
            "annotation is only a hint to clients): add Confirm(prompt=...) to have each call "
            "approved, or Confirm(..., when=...) for the risky ones",
            tool.location,
            tool.path,
        )
        for toolset in service.toolsets
        for tool in toolset.tools
        if tool.annotations.destructive and tool.confirm is None
    ]


def _renamed(
    name: str, folder: str, location: Location, path: str, *, shadows: bool = False
) -> DesignNotice:
    python_name = folder.rsplit("/", 1)[-1]
    if shadows:
        why = (
            f"{name!r} is also the name of a module (of Python's standard library, or one "
            "generated code imports), which its package would shadow"
        )
    else:
        why = f"{name!r} cannot name a Python package"
    return DesignNotice(f"{why}: it is generated as {python_name!r}, in {folder}/", location, path)
