"""Evaluate design sources into a validated IR: record → resolve → validate → bind → finalize."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from tooldesign.dsl.recorder import recording
from tooldesign.eval.builder.tools import build
from tooldesign.eval.load import UsageError, design_files, importable, run_designs
from tooldesign.ir.errors import DesignError, Issues
from tooldesign.ir.fingerprint import toolset_fingerprints
from tooldesign.ir.model import Design

__all__ = ["DesignError", "UsageError", "evaluate"]


def evaluate(
    sources: Sequence[str],
    *,
    known_valid: Callable[[str], bool] | None = None,
    cache_code: bool = True,
    app_dir: Path | None = None,
) -> Design:
    """The design declared by ``sources`` (files, folders or dotted modules).

    Raises :class:`DesignError` with every problem found, or :class:`UsageError` when a source
    is not a design at all. ``known_valid`` is asked, with a toolset's fingerprint, whether
    that exact toolset already passed validation: validation is a pure function of the
    fingerprinted content, so it need not run again. ``cache_code`` keeps the compiled code of
    design files in tooldesign's cache, as Python keeps bytecode (never when Python is told not
    to write bytecode). ``app_dir`` is the folder the application's code is imported from
    (default: the current directory).
    """
    issues = Issues()
    entries = design_files(sources)
    # The design's folder stays importable while building and binding: BindTo imports
    # application code, which may sit next to the design.
    with importable(entries, app_dir) as writes_bytecode, recording() as recorder:
        ran = run_designs(entries, issues, cache_code=cache_code and writes_bytecode)
        design = build(recorder.design, issues, ran)
        if not recorder.design.services and not issues:
            raise UsageError(f"{', '.join(sources)}: not a design: no Service is declared")
        # Before binding, fingerprints cover what validation reads. A toolset with bound tools
        # is fingerprinted with its plans, once bound, so it is never known valid here: it is
        # validated again (the cheap part of binding it).
        # A design with issues is not fingerprinted: it is never generated, and its text may
        # not even encode (a lone surrogate, reported).
        unbound = toolset_fingerprints(design, bound=False) if not issues else {}
        trusted = frozenset(
            key for key, fingerprint in unbound.items() if known_valid and known_valid(fingerprint)
        )
        toolsets = sum(len(service.toolsets) for service in design.services)
        if len(trusted) < toolsets or not toolsets:
            from tooldesign.eval.validate import validate

            validate(design, issues, trusted=trusted)
        # Last, so a tool is bound only if its own design passed every other check.
        if any(tool.binding is not None for tool in design.tools()):
            from tooldesign.binding.planner import bind  # a run with nothing bound needs none

            design = bind(design, issues)
    issues.raise_if_any()
    # Generation reads the binding plans too, so a changed method regenerates its toolset.
    bound = toolset_fingerprints(design, bound=True)
    return dataclasses.replace(design, fingerprints={**unbound, **bound})
