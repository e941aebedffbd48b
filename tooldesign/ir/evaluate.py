"""Evaluate design sources into a validated IR: record → resolve → validate → finalize."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from tooldesign.dsl.recorder import recording
from tooldesign.ir.build import build
from tooldesign.ir.errors import DesignError, Issues
from tooldesign.ir.fingerprint import toolset_fingerprints
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
    # The design's folder stays importable while building: BindTo imports application code,
    # which may sit next to the design.
    with importable(entries), recording() as recorder:
        ran = run_designs(entries, issues)
        design = build(recorder.design, issues, ran)
    if not recorder.design.services and not issues:
        raise UsageError(f"{', '.join(sources)}: not a design: no Service is declared")
    design = dataclasses.replace(design, fingerprints=toolset_fingerprints(design))
    trusted = frozenset(
        key
        for key, fingerprint in design.fingerprints.items()
        if not issues and known_valid and known_valid(fingerprint)
    )
    if len(trusted) < len(design.fingerprints) or not design.fingerprints:
        from tooldesign.ir.validate import validate

        validate(design, issues, trusted=trusted)
    issues.raise_if_any()
    return design
