"""The calls a runtime ran under a person's approval: an approval unlocks one run of one call.

Frameworks replay: LangGraph runs a node again from its start when the graph resumes, so a tool
node with two calls that each waited for a person runs the first one again when the second is
approved; a client may send the same call again after a lost answer. Each approved run is kept
here by its approval id and the call's stable id (``ToolCallMeta.stable_id``), and the same call
presented again with its approval is answered with the result of its one run. A ``once``
decision (the default for a destructive tool), once used, unlocks no other call.

A run is claimed when it starts: the same call presented again while it still runs (a client
retrying after a timeout) waits for that run's answer instead of running it again, and a
``once`` decision is used from the moment its call starts. A run stopped by a ``Timeout`` is
answered as that ``Timeout`` answered its caller, copies included (waiting, or sent after); a
run stopped otherwise (its caller cancelled) has no answer, and may have taken effect: a copy,
waiting or sent after, is told its outcome is unknown (:meth:`ApprovedRuns.stopped`), and is
not run again.

Kept in memory, the most recent runs first, up to ``size`` (calls older than that are no longer
recognised). A call without a stable id (no ``call_id``, or not both ``run_id`` and
``tool_call_id``) cannot be recognised as the same call again.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any

from tooldesign.runtime.control.approvals import ApprovalDecision
from tooldesign.runtime.result import ToolResult

DEFAULT_SIZE = 10_000
"""Approved runs remembered by default."""

REPLAYED_KEY = "replayed"
"""The telemetry entry (``telemetry.extra``) of an answer given from an earlier run."""


class ApprovedRuns:
    """What ran under which approval (see the module doc)."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._runs: OrderedDict[tuple[str, str], ToolResult] = OrderedDict()
        self._used: OrderedDict[str, None] = OrderedDict()
        self._running: dict[tuple[str, str], Future[ToolResult | None]] = {}
        self._stopped: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()  # runtimes run calls on several event loops (sync calls)

    def replayed(self, approval_id: str, call_id: str | None) -> ToolResult | None:
        """The answer to a call that already ran under this approval, given again (``None``:
        it did not). A copy, marked in its telemetry as replayed."""
        if call_id is None:
            return None
        result = self._runs.get((approval_id, call_id))
        if result is None:
            return None
        telemetry = dataclasses.replace(
            result.telemetry, extra={**result.telemetry.extra, REPLAYED_KEY: True}
        )
        return dataclasses.replace(result, telemetry=telemetry)

    def stopped(self, approval_id: str, call_id: str | None) -> bool:
        """Whether this call's run under this approval was stopped midway without an answer
        (cancelled): it may have taken effect, so it does not run again."""
        return call_id is not None and (approval_id, call_id) in self._stopped

    def running(self, approval_id: str, call_id: str | None) -> Future[ToolResult | None] | None:
        """The run of this call under this approval still going, if there is one: its future
        is its result (``None``: it ended without one, cancelled)."""
        if call_id is None:
            return None
        with self._lock:
            return self._running.get((approval_id, call_id))

    def begin(
        self, decision: ApprovalDecision, once: bool, call_id: str | None
    ) -> Future[ToolResult | None] | None:
        """The call ``call_id`` starts under ``decision``: claimed until :meth:`record` (or
        :meth:`abandon`); a ``once`` decision is used from now on. A copy that claimed it
        first (meanwhile) is returned instead: then this one must not run, but wait for it."""
        with self._lock:
            if once:
                self._used[decision.nonce] = None
                _bound(self._used, self._size)
            if call_id is not None:
                going = self._running.get((decision.id, call_id))
                if going is not None:
                    return going
                self._running[decision.id, call_id] = Future()
        return None

    def settle(
        self,
        decision: ApprovalDecision,
        once: bool,
        call_id: str | None,
        answer: ToolResult | None,
    ) -> None:
        """The run begun was stopped midway and answered ``answer`` (a ``Timeout``'s: a copy
        gets the run's own answer, as its caller did), or nothing (``None``: :meth:`abandon`)."""
        if answer is None:
            self.abandon(decision, call_id)
        else:
            self.record(decision, once, call_id, answer)

    def abandon(self, decision: ApprovalDecision, call_id: str | None) -> None:
        """The run begun ended without a result (cancelled): who waits for it gets ``None``,
        and a copy sent after is :meth:`stopped`."""
        if call_id is not None:
            with self._lock:
                self._stopped[decision.id, call_id] = None
                _bound(self._stopped, self._size)
        self._settle(decision.id, call_id, None)

    def _settle(self, approval_id: str, call_id: str | None, result: ToolResult | None) -> None:
        if call_id is None:
            return
        with self._lock:
            future = self._running.pop((approval_id, call_id), None)
        if future is not None and not future.done():
            future.set_result(result)

    def used(self, decision: ApprovalDecision) -> bool:
        """Whether ``decision``, a ``once`` one, has already let a call run."""
        return decision.nonce in self._used

    def record(
        self, decision: ApprovalDecision, once: bool, call_id: str | None, result: ToolResult
    ) -> None:
        """The call ``call_id`` ran under ``decision`` and was answered ``result``."""
        with self._lock:
            if once:
                self._used[decision.nonce] = None
                _bound(self._used, self._size)
            if call_id is not None:
                self._runs[(decision.id, call_id)] = result
                _bound(self._runs, self._size)
        self._settle(decision.id, call_id, result)


def _bound(entries: OrderedDict[Any, Any], size: int) -> None:
    """Forget the oldest entries past ``size``."""
    while len(entries) > size:
        entries.popitem(last=False)
