"""Running model-written code in a sandbox, every call it makes through ``Runtime.execute``.

The code runs in pydantic-monty (a Python interpreter written in Rust, in worker processes of
its own): no filesystem, no network, no imports but a few pure modules, its time and memory
bounded by the worker. It never runs in the agent's process. Each call the code makes to a
tool stops the interpreter; the host runs the call through the runtime — decoding with repairs,
injected values from the run's metadata, limits, interceptors, approval, events and spans (the
code run's span is their parent) — and resumes the code with the result as plain JSON, or
with an exception the code can catch:

- ``ValueError``: the arguments were invalid; its message is the retry hint's text;
- ``PermissionError``: the tool is direct-only, or a person declined the call;
- ``RuntimeError``: the tool failed (its answer's text).

A call that waits for a person's approval pauses the run: the interpreter is dumped, and the
run is answered as awaiting that approval (the same request a direct call would make). The
same code presented again with the decision resumes where it stopped; the calls it made before
are not made again. An approver that decides at once (the runtime's, MCP elicitation) lets the
code wait inline instead.

What stops a run, uncatchably: its time (the interpreter's own, and the wall clock of the whole
run), its memory, the number of calls, and the size of what it prints and returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from tooldesign.runtime import answers
from tooldesign.runtime.approval import Decisions
from tooldesign.runtime.codemode.api import api_for_specs
from tooldesign.runtime.codemode.policy import Access, access_for, checked_overrides
from tooldesign.runtime.control.approvals import ApprovalRequest
from tooldesign.runtime.control.interceptors import deadline
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.reasons import Recovery, RetryReason
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.spec.specs import ToolSpec


@dataclass(frozen=True, slots=True)
class CodeLimits:
    """What one code run may use. Each stops the run when it is exceeded; the code cannot catch
    it. ``seconds`` is the interpreter's own time (it stops while a tool runs), ``wall_seconds``
    the whole run's, tool calls included, waiting for a person excluded when the run pauses."""

    seconds: float = 5.0
    wall_seconds: float = 60.0
    memory_bytes: int = 64 * 1024 * 1024
    calls: int = 50
    output_bytes: int = 20_000
    """What the code prints and returns, together, as the model reads it."""


@dataclass(slots=True)
class CodeRun:
    """What a finished run gives back: its value, what it printed, and the calls it made."""

    value: Any
    printed: str
    calls: int
    """Tool calls the code made (before a pause too)."""
    results: list[ToolResult] = field(default_factory=list)
    """The answers of the calls made since the run last started or resumed."""


@dataclass(slots=True)
class _Paused:
    code_hash: str
    approval: ApprovalRequest
    blob: bytes
    name: str
    payload: dict[str, Any]
    printed: list[str]
    calls: int
    at: float


class _Stop(Exception):
    """The run ends now, with this text for the model (a limit, or a paused run)."""

    def __init__(self, message: str, result: ToolResult | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.result = result


class CodeMode:
    """Runs code against a runtime's tools. ``tools`` picks them (names or ids; all the
    runtime's tools by default, resolved on each run); ``access`` changes a tool's access
    (``call``, ``approve`` or ``direct``, see :mod:`.policy`).

    ``inline_seconds``: how the host waits for the sandbox between two tool calls. The
    interpreter runs in a worker process either way. ``0``, the default, waits in a thread:
    the event loop never waits on code a model wrote, so one run's code cannot stall other
    calls, lease renewals or keep-alives. A process that serves one caller may opt in to
    waiting on the loop's own thread while a run's turns (from a tool's answer to the code's
    next call) take less than ``inline_seconds`` (say 0.02): that saves two thread switches per
    call, the most of what a call from code costs over a direct one, at the price of the loop
    being held for a long turn (within ``CodeLimits.seconds``) when one comes after short ones.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        tools: Sequence[str] | None = None,
        access: Mapping[str, str] | None = None,
        limits: CodeLimits | None = None,
        exclude: Sequence[str] = (),
        inline_seconds: float = 0.0,
    ) -> None:
        self.runtime = runtime
        self.tools = tuple(tools) if tools is not None else None
        self.access: dict[str, Access] = checked_overrides(access or {})
        self.limits = limits or CodeLimits()
        self.exclude = frozenset(exclude)
        self.inline_seconds = inline_seconds
        # By the approval it waits for and the run's owner (its code of its call): runs of two
        # sessions waiting on an equal call (the same approval id) are two paused runs.
        self._paused: OrderedDict[tuple[str, str], _Paused] = OrderedDict()

    def specs(self) -> list[ToolSpec[Any, Any]]:
        """The tools this code mode shows, in registration order."""
        specs = [
            s
            for s in self.runtime.specs()
            if s.id not in self.exclude and s.name not in self.exclude
        ]
        if self.tools is not None:
            wanted = set(self.tools)
            specs = [s for s in specs if s.id in wanted or s.name in wanted]
        return specs

    def access_of(self, spec: ToolSpec[Any, Any]) -> Access:
        return access_for(spec, self.access)

    def api(self, title: str = "Tools you can call from code") -> str:
        """The typed API of the tools, as the model reads it."""
        return api_for_specs(self.specs(), self.access, title=title)

    async def run(
        self,
        code: str,
        meta: ToolCallMeta | None = None,
        decisions: Decisions | None = None,
        *,
        tool_id: str = "run_code",
    ) -> CodeRun | ToolResult:
        """Run ``code``: its result, or the answer of a run waiting for a person's approval.

        A run that fails (the code raised, a limit stopped it, the sandbox is missing) raises
        :class:`~tooldesign.runtime.ToolFailure` with the text the model reads.
        """
        meta = meta or ToolCallMeta()
        decisions = decisions or Decisions()
        try:
            import pydantic_monty as monty
        except ImportError as error:  # pragma: no cover - the extra is missing
            raise ToolFailure(
                "Code mode is not available here (the sandbox is not installed).",
                recovery=Recovery.FINISH,
            ) from error
        limits = self.limits
        # A paused run resumes only for the same code of the same call (its session, run and
        # call ids): another session holding an equal decision starts its own run.
        owner = (meta.session_id, meta.run_id, meta.tool_call_id, code)
        code_hash = hashlib.sha256(json.dumps(owner).encode()).hexdigest()
        paused = self._resumable(code_hash, decisions)
        if paused is None and (waiting := self._waiting(code_hash)) is not None:
            # The same call again while it waits (a framework that runs a tool again when it
            # resumes, a client retrying): its answer again, without running the code again.
            return answers.awaiting_approval(tool_id, waiting.approval)
        printed: list[str] = list(paused.printed) if paused else []
        sizes = [sum(len(p) for p in printed)]
        results: list[ToolResult] = []
        specs = {s.name: s for s in self.specs()}
        direct = {name for name, spec in specs.items() if self.access_of(spec) == "direct"}

        def on_print(_stream: str, text: str) -> None:
            sizes[0] += len(text)
            if sizes[0] <= limits.output_bytes:
                printed.append(text)

        count = paused.calls if paused else 0
        drive = _Drive(self.inline_seconds)
        try:
            async with deadline(limits.wall_seconds), _sandbox(monty, limits, drive) as session:
                if paused is not None:
                    snap: Any = await drive.thread(
                        session.load_snapshot, paused.blob, print_callback=on_print
                    )
                    # The call that waited, now with its decision.
                    result = await self._call(paused.name, paused.payload, meta, decisions, count)
                    results.append(result)
                    snap = await self._resume(
                        drive,
                        snap,
                        result,
                        code_hash,
                        paused.name,
                        paused.payload,
                        printed,
                        count,
                        tool_id,
                    )
                else:
                    snap = await drive.thread(session.feed_start, code, print_callback=on_print)
                while not isinstance(snap, monty.MontyComplete):
                    if sizes[0] > limits.output_bytes:
                        raise _Stop(self._too_much(sizes[0]))
                    if not isinstance(snap, monty.FunctionSnapshot):
                        snap = await drive(snap.resume_auto)  # a name lookup: undefined
                        continue
                    name = str(snap.function_name)
                    spec = specs.get(name)
                    if spec is None:
                        snap = await self._not_a_tool(drive, snap, name, specs)
                        continue
                    if name in direct:
                        refusal = PermissionError(
                            f"{name} cannot be called from code: call it directly, "
                            "one call per turn"
                        )
                        snap = await drive(snap.resume, _raise(refusal))
                        continue
                    payload = _payload(snap.args, snap.kwargs)
                    if isinstance(payload, Exception):
                        snap = await drive(snap.resume, _raise(payload))
                        continue
                    count += 1
                    if count > limits.calls:
                        raise _Stop(
                            f"The code made more than {limits.calls} tool calls; the run "
                            "was stopped. Make fewer calls (filter with the tools' "
                            "arguments, or do part of the work in another run)."
                        )
                    result = await self._call(name, payload, meta, decisions, count)
                    results.append(result)
                    snap = await self._resume(
                        drive, snap, result, code_hash, name, payload, printed, count, tool_id
                    )
                value = snap.output
        except _Stop as stop:
            if stop.result is not None:
                return stop.result
            raise ToolFailure(stop.message, recovery=Recovery.REPLAN) from None
        except TimeoutError:
            raise ToolFailure(
                f"The code ran longer than {limits.wall_seconds:g} s with its tool calls; the run "
                "was stopped.",
                recovery=Recovery.REPLAN,
            ) from None
        except monty.MontyError as error:
            raise ToolFailure(_failure_text(error, count), recovery=Recovery.REPLAN) from None
        text = "".join(printed)
        if _deeper_than(value, MAX_VALUE_DEPTH):
            raise ToolFailure(_TOO_DEEP, recovery=Recovery.REPLAN)
        try:
            shown = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            shown = repr(value)
            value = shown
        if sizes[0] + len(shown) > limits.output_bytes:
            raise ToolFailure(self._too_much(sizes[0] + len(shown)), recovery=Recovery.REPLAN)
        return CodeRun(value=value, printed=text, calls=count, results=results)

    @staticmethod
    async def _not_a_tool(drive: _Drive, snap: Any, name: str, specs: Mapping[str, Any]) -> Any:
        """A call of something else than a tool: the sandbox's own answer (no files, no
        network, no imports of its host), or a ``NameError`` listing the tools."""
        if snap.is_os_function or not name.isidentifier():
            return await drive(snap.resume_not_handled)
        known = ", ".join(specs) or "none"
        error = NameError(f"name {name!r} is not defined (tools: {known})")
        return await drive(snap.resume, _raise(error))

    def _too_much(self, size: int) -> str:
        return (
            f"The code printed and returned {size} characters, more than the "
            f"{self.limits.output_bytes} allowed; the run was stopped. Return only what the "
            "answer needs (counts, ids, a few fields)."
        )

    def _waiting(self, code_hash: str) -> _Paused | None:
        """The paused run of this code of this call, if one waits for a decision."""
        for paused in reversed(self._paused.values()):
            if paused.code_hash == code_hash:
                return paused
        return None

    def _resumable(self, code_hash: str, decisions: Decisions) -> _Paused | None:
        """The paused run of this code that one of ``decisions`` decides, taken out."""
        for decision in decisions.given:
            paused = self._paused.pop((decision.id, code_hash), None)
            if paused is not None:
                return paused
        return None

    async def _call(
        self,
        name: str,
        payload: dict[str, Any],
        meta: ToolCallMeta,
        decisions: Decisions,
        index: int,
    ) -> ToolResult:
        """One call of the code, through the whole pipeline, as a child of the run."""
        parent = meta.tool_call_id or "code"
        stable = meta.stable_id()
        inner = ToolCallMeta(
            run_id=meta.run_id,
            session_id=meta.session_id,
            turn_id=meta.turn_id,
            tool_call_id=f"{parent}.{index}",
            parent_tool_call_id=meta.tool_call_id,
            labels=meta.labels,
            server_data=meta.server_data,
            call_id=f"{stable}.{index}" if stable else None,
            trace=meta.trace,
            principal=meta.principal,  # code calls for its caller: held to the same scopes
        )
        request = ToolRequest(name, payload, inner)
        return await self.runtime.execute(
            request, approvals=decisions.given, approver=decisions.approver
        )

    async def _resume(
        self,
        drive: _Drive,
        snap: Any,
        result: ToolResult,
        code_hash: str,
        name: str,
        payload: dict[str, Any],
        printed: list[str],
        count: int,
        tool_id: str,
    ) -> Any:
        if result.awaiting_approval and result.approval is not None:
            blob = await drive(snap.dump)
            self._paused[(result.approval.id, code_hash)] = _Paused(
                code_hash, result.approval, blob, name, payload, list(printed), count, time.time()
            )
            while len(self._paused) > 256:  # the oldest paused runs are forgotten
                self._paused.popitem(last=False)
            raise _Stop("paused", answers.awaiting_approval(tool_id, result.approval))
        if result.ok:
            text = result.result_json
            value = pydantic_core.from_json(text) if text else result.result
            return await drive(snap.resume, _returned(value))
        text = result.for_model()
        hint = result.retry_hint
        if hint is not None and hint.reason in (RetryReason.INVALID_ARGUMENTS,):
            return await drive(snap.resume, _raise(ValueError(text)))
        if result.telemetry.outcome == "approval_denied":
            return await drive(snap.resume, _raise(PermissionError(text)))
        return await drive(snap.resume, _raise(RuntimeError(text)))


class _Drive:
    """Runs the sandbox's blocking steps: on the event loop's thread while the run's turns stay
    shorter than ``inline_seconds``, in a worker thread otherwise."""

    __slots__ = ("busy", "inline", "limit")

    def __init__(self, inline_seconds: float) -> None:
        self.limit = inline_seconds
        self.inline = inline_seconds > 0
        self.busy = False
        """A step runs in a thread now (the run, if it ends, must stop the worker)."""

    async def __call__(self, step: Callable[..., Any], *args: Any) -> Any:
        started = time.perf_counter()
        try:
            if not self.inline:
                return await self.thread(step, *args)
            return step(*args)
        finally:
            # A long turn sends the next one to a thread; a short one brings it back (a turn
            # that took long because the machine was busy does not end waiting inline).
            self.inline = 0 < time.perf_counter() - started <= self.limit

    async def thread(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A step of unknown length (the code's start, a restored run, a turn after a long
        one): in a thread."""
        self.busy = True
        try:
            result = await asyncio.to_thread(step, *args, **kwargs)
        except Exception:
            self.busy = False  # the step ended (it raised); cancelled, it may still run
            raise
        self.busy = False
        return result


@contextlib.asynccontextmanager
async def _sandbox(monty: Any, limits: CodeLimits, drive: _Drive) -> AsyncIterator[Any]:
    """A session of a one-worker pool of the sandbox, closed in a thread even when the run is
    cancelled or its wall clock ran out: a worker still in a turn then is killed, so the run
    ends now rather than when the interpreter's own time runs out."""
    pool = monty.Monty(request_timeout=limits.wall_seconds + 5, max_processes=1)
    await asyncio.to_thread(pool.__enter__)
    session: Any = None
    worker: int | None = None
    try:
        session = pool.checkout(
            script_name="code.py",
            limits={
                "max_feed_duration_secs": limits.seconds,
                "max_memory": limits.memory_bytes,
                "max_suspensions": limits.calls + 10,
            },
            os_policy={"sleep": "zero"},
        )
        await asyncio.to_thread(session.__enter__)
        worker = session.worker_pid  # read while no turn runs (it is None during one)
        yield session
    finally:
        # (A step still in a thread: the run was cancelled, or its deadline passed, mid-turn.)
        if drive.busy and worker is not None:
            with contextlib.suppress(OSError):
                os.kill(worker, signal.SIGKILL)
        await asyncio.shield(asyncio.to_thread(_close, session, pool))


def _close(session: Any, pool: Any) -> None:
    try:
        if session is not None:
            with contextlib.suppress(monty_errors()):
                session.__exit__(None, None, None)  # a killed worker's session
    finally:
        pool.__exit__(None, None, None)


def monty_errors() -> type[Exception]:
    import pydantic_monty

    error: type[Exception] = pydantic_monty.MontyError
    return error


def _returned(value: Any) -> Any:
    return {"return_value": value}


def _raise(error: BaseException) -> Any:
    return {"exception": error}


def _payload(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | Exception:
    """The arguments of a call: keyword arguments (``None`` leaves one out), or one dict."""
    if args:
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            return {k: v for k, v in args[0].items() if v is not None}
        return TypeError("call tools with keyword arguments (or one dict of them)")
    return {k: v for k, v in kwargs.items() if v is not None}


MAX_VALUE_DEPTH = 200
"""How deep a code run's value may nest lists and dicts: JSON encoders stop a little past it
(pydantic's at 255 levels, Python's at its recursion limit), and no answer needs it."""

_TOO_DEEP = (
    f"The code's value nests lists or dicts more than {MAX_VALUE_DEPTH} levels deep, too deep "
    "to return; the run was stopped. Return a flatter value: counts, ids, a few fields."
)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists, tuples or dicts more than ``limit`` levels deep (walked
    without recursion: the value may be nested past Python's own limit)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _failure_text(error: Exception, calls: int) -> str:
    """What the model reads when its code failed: the exception as the sandbox shows it."""
    display = getattr(error, "display", None)
    try:
        text = display("traceback") if callable(display) else str(error)
    except Exception:  # noqa: BLE001 - a rendering problem must not hide the failure
        text = str(error)
    text = text.strip()
    if len(text) > 2000:
        text = text[:1000] + "\n…\n" + text[-1000:]
    made = f" after {calls} tool call{'s' if calls != 1 else ''}" if calls else ""
    kind = type(error).__name__
    if kind == "MontySyntaxError":
        lead = "The code does not parse"
    elif kind == "MontyTypingError":
        lead = "The code does not type-check"
    elif kind == "MontyCrashedError":
        lead = "The sandbox stopped"
    else:
        lead = "The code raised an exception"
    ran = f"\nThe {calls} tool call{'s' if calls != 1 else ''} before it did run." if calls else ""
    return f"{lead}{made}:\n{text}{ran}"
