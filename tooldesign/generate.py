"""``tooldesign gen`` from end to end: read the design (eval), check it against its targets, write
its packages (codegen).

It sits above both stages, so neither calls the other: evaluation never knows it is read for
generation, and code generation starts from an IR it is given.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from tooldesign.codegen.pipeline import Output, Progress, Report
from tooldesign.contract.collector import cycle_collector_paused
from tooldesign.eval.evaluate import evaluate
from tooldesign.eval.notices import design_notices
from tooldesign.ir.errors import DesignNotice
from tooldesign.ir.model import Design

__all__ = ["Report", "generate"]


def generate(
    sources: Sequence[str],
    out: str | Path,
    *,
    check: bool = False,
    targets: Sequence[str] = (),
    server_name: str | None = None,
    progress: Progress | None = None,
    app_dir: str | Path | None = None,
) -> Report:
    """Generate the packages of ``sources`` into ``out``. With ``check``, write nothing.

    Before anything is written, every service's tools are checked against the targets its
    ``Targets(...)`` declares (a design error) and against ``targets`` (notices; counted under
    the MCP server name ``server_name``, default each service's). ``progress`` is told each
    phase as it starts, and each toolset rendered. ``app_dir`` is the folder the application
    the design binds to is imported from (default: the current directory).
    """
    started = time.perf_counter()
    # A run that writes locks the folder, and undoes a killed run's half-done commit, before it
    # reads the manifest.
    with Output(out, check=check, progress=progress) as output:
        report = output.report
        with cycle_collector_paused():
            with report.phase("evaluate"):
                design = evaluate(
                    sources,
                    known_valid=output.known_valid,
                    cache_code=not check,
                    app_dir=Path(app_dir).resolve() if app_dir is not None else None,
                )
            report.notices.extend(design_notices(design))
            report.notices.extend(_targets_checked(design, targets, server_name))
            return output.write(design, started=started)


def _targets_checked(
    design: Design, targets: Sequence[str], server_name: str | None
) -> list[DesignNotice]:
    """What the targets the design declares, and ``targets``, say of its tools."""
    if not targets and all(service.targets is None for service in design.services):
        return []  # most designs: nothing to check, and no views to build for it
    from tooldesign.codegen.targets import target_check

    return target_check(targets, server=server_name)(design)
