"""Evaluate design sources into a validated IR: record → resolve → validate → finalize."""

from __future__ import annotations

from collections.abc import Sequence

from tooldesign.dsl.recorder import recording
from tooldesign.ir.build import build
from tooldesign.ir.errors import DesignError, Issues
from tooldesign.ir.load import UsageError, design_files, design_folders, importable, run_designs
from tooldesign.ir.model import Design
from tooldesign.ir.validate import validate

__all__ = ["DesignError", "UsageError", "evaluate"]


def evaluate(sources: Sequence[str]) -> Design:
    """The design declared by ``sources`` (files, folders or dotted modules).

    Raises :class:`DesignError` with every problem found, or :class:`UsageError` when a source
    is not a design at all.
    """
    issues = Issues()
    entries = design_files(sources)
    # The design's folder stays importable while building: BindTo imports application code,
    # which may sit next to the design.
    with importable(design_folders(entries)), recording() as recorder:
        ran = run_designs(entries, issues)
        design = build(recorder.design, issues, ran)
    if not recorder.design.services and not issues:
        raise UsageError(f"{', '.join(sources)}: not a design: no Service is declared")
    validate(design, issues)
    issues.raise_if_any()
    return design
