"""Evaluate design sources into a validated IR: record → resolve → validate → bind → finalize."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from tooldesign.dsl.recorder import recording
from tooldesign.ir.binding import bind
from tooldesign.ir.build import build
from tooldesign.ir.errors import DesignError, Issues
from tooldesign.ir.fingerprint import toolset_fingerprint, toolset_fingerprints, toolset_key
from tooldesign.ir.load import UsageError, design_files, importable, run_designs
from tooldesign.ir.model import Design

__all__ = ["DesignError", "UsageError", "evaluate"]


def evaluate(sources: Sequence[str], *, known_valid: Callable[[str], bool] | None = None) -> Design:
    """The design declared by ``sources`` (files, folders or dotted modules).

    Raises :class:`DesignError` with every problem found, or :class:`UsageError` when a source
    is not a design at all. ``known_valid`` is asked, with a toolset's fingerprint, whether
    that exact toolset already passed validation: validation is a pure function of the
    fingerprinted content, so it need not run again.
    """
    issues = Issues()
    entries = design_files(sources)
    # The design's folder stays importable while building and binding: BindTo imports
    # application code, which may sit next to the design.
    with importable(entries), recording() as recorder:
        ran = run_designs(entries, issues)
        design = build(recorder.design, issues, ran)
        if not recorder.design.services and not issues:
            raise UsageError(f"{', '.join(sources)}: not a design: no Service is declared")
        # Before binding, fingerprints cover what validation reads; a toolset with bound tools
        # was recorded with its plans, so it is validated again (the cheap part of binding it).
        content = toolset_fingerprints(design)
        trusted = frozenset(
            key
            for key, fingerprint in content.items()
            if not issues and known_valid and known_valid(fingerprint)
        )
        if len(trusted) < len(content) or not content:
            from tooldesign.ir.validate import validate

            validate(design, issues, trusted=trusted)
        # Last, so a tool is bound only if its own design passed every other check.
        design = bind(design, issues)
    issues.raise_if_any()
    return dataclasses.replace(design, fingerprints=_with_plans(design, content))


def _with_plans(design: Design, content: dict[str, str]) -> dict[str, str]:
    """Generation reads the binding plans too, so a changed method regenerates its toolset:
    toolsets with bound tools are fingerprinted again (the others are as they were)."""
    fingerprints = dict(content)
    for service in design.services:
        for toolset in service.toolsets:
            if any(tool.binding is not None for tool in toolset.tools):
                key = toolset_key(service, toolset)
                fingerprints[key] = toolset_fingerprint(design, service, toolset)
    return fingerprints
