"""Step 1 of a call, resolve: the registered tools by id and by provider-facing name, each with
its interceptor chain composed once, and the answer for a name that is no tool.

Registering a toolset checks that its tool ids and names clash with no registered one (models
call tools by name), fixes each tool's limits (the runtime's, with the design's over them) and
the example its invalid calls show, and composes its chain: the runtime's interceptors, then
the toolset's, then the rest of the pipeline.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

from tooldesign.contract.catalog import toolset_version
from tooldesign.jsonschema.text import clipped, quoted, shown
from tooldesign.runtime import answers
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
)
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.frozen import freeze
from tooldesign.runtime.spec.limits import Limits
from tooldesign.runtime.spec.narrowing import narrowing_hint
from tooldesign.runtime.spec.specs import ToolSpec
from tooldesign.runtime.validation.examples import example_from_schema
from tooldesign.runtime.workers import WorkerThreadInvoke

log = logging.getLogger("tooldesign.runtime")

_MAX_NAME_SHOWN = 80


@dataclass(frozen=True, slots=True)
class ToolsetInfo:
    service: str
    toolset: str
    tools: tuple[str, ...]
    remote: bool = False
    """Served by workers in other processes (a remote registration)."""
    live: bool | None = True
    """Whether it can take calls: always for a local toolset; for a remote one, whether a worker
    of its version was live when last seen (``None`` before the first look)."""


class RegisteredTool:
    """A registered tool: its binding, its limits, its example, its precomposed call chain."""

    __slots__ = (
        "_cursor",
        "_version",
        "binding",
        "chain",
        "example",
        "example_line",
        "injected",
        "intercepted",
        "limits",
        "registration",
        "spec",
    )

    def __init__(
        self,
        binding: ToolBinding,
        registration: ToolsetRegistration,
        chain: CallNext,
        limits: Limits,
        *,
        intercepted: bool,
    ) -> None:
        self.binding = binding
        self.spec = binding.spec
        self.registration = registration
        self.injected = binding.spec.injected
        self.chain = chain
        self.intercepted = intercepted
        """Interceptors run before the tool (they see its calls by id)."""
        self._version: str | None = None
        # The runtime's limits, with those the tool's design sets over them.
        self.limits = limits.for_tool(binding.spec.limits)
        if binding.spec.bounded and self.limits.ask_for_less is None:
            # How to ask for less, from the tool's own arguments (a service's hint wins).
            cursor = binding.spec.bounds.cursor_field if binding.spec.bounds else None
            hint = narrowing_hint(binding.spec.payload.schema, cursor)
            self.limits = replace(self.limits, ask_for_less=hint)
        payload = binding.spec.payload
        # The design's Example(), else one built from the fields' own examples: frozen, so its
        # line in an invalid call's hint is written once.
        self.example = (
            payload.example
            if payload.example is not None
            else freeze(example_from_schema(payload.schema))
        )
        self.example_line = answers.example_line(self.example)
        # The payload attribute that takes a paging cursor, by its wire name in the spec: looked
        # up on the first call that needs it ("" when there is none), as the payload's model is
        # imported only then.
        bounds = binding.spec.bounds
        self._cursor: str | None = None if bounds is not None and bounds.cursor_field else ""

    def gave_cursor(self, args: Any) -> bool:
        """Whether decoded arguments carry a paging cursor: the call asked for a later page."""
        if self._cursor is None:
            wire = self.spec.bounds.cursor_field if self.spec.bounds is not None else None
            fields = self.spec.payload.model.model_fields
            self._cursor = next(
                (attr for attr, info in fields.items() if (info.alias or attr) == wire), ""
            )
        return bool(self._cursor) and getattr(args, self._cursor, None) is not None

    def version(self) -> str:
        """The catalog version of the tool's toolset (what an approval is bound to)."""
        if self._version is None:
            self._version = toolset_version(b.spec for b in self.registration.tools)
        return self._version


class _Link:
    """One interceptor in a chain: calling it runs the interceptor with the rest as ``call_next``."""

    __slots__ = ("interceptor", "rest")

    def __init__(self, interceptor: Interceptor, rest: CallNext) -> None:
        self.interceptor = interceptor
        self.rest = rest

    def __call__(self, request: ToolRequest, meta: ToolCallMeta) -> Any:
        return self.interceptor(request, meta, self.rest)


def _chain(interceptors: Sequence[Interceptor], last: CallNext) -> CallNext:
    call = last
    for interceptor in reversed(interceptors):
        call = _Link(interceptor, call)
    return call


class Registry:
    """The tools a runtime runs, by id and by provider-facing name."""

    def __init__(
        self,
        *,
        interceptors: Sequence[Interceptor],
        end_of_chain: CallNext,
        limits: Limits,
        workers: Executor,
    ) -> None:
        self._interceptors = tuple(interceptors)
        self._end_of_chain = end_of_chain
        self._limits = limits
        self._workers = workers
        self.registrations: dict[str, ToolsetRegistration] = {}
        self._tools: dict[str, RegisteredTool] = {}  # by id and by provider-facing name
        self._near_names: dict[str, list[str]] | None = None
        self._listeners: list[Callable[[], None]] = []

    def resolve(self, name: object) -> RegisteredTool | None:
        """The tool called ``name`` (its id or its provider-facing name), if there is one."""
        try:
            return self._tools.get(name)  # type: ignore[call-overload, no-any-return]
        except TypeError:  # a name that is not even hashable (a list)
            return None

    def add(self, registration: ToolsetRegistration) -> None:
        if registration.key in self.registrations:
            raise RegistrationError(f"toolset {registration.key} is already registered")
        added: dict[str, RegisteredTool] = {}
        interceptors = (*self._interceptors, *registration.interceptors)
        chain = _chain(interceptors, self._end_of_chain)
        for binding in registration.tools:
            for key in (binding.spec.id, binding.spec.name):
                other = self._tools.get(key) or added.get(key)
                if other is not None and other.spec.id != binding.spec.id:
                    raise RegistrationError(
                        f"tool name {binding.spec.name!r} of {binding.spec.id} clashes with {other.spec.id}: "
                        "models call tools by name, so names must be unique in a runtime"
                    )
            if isinstance(binding.invoke, WorkerThreadInvoke):
                binding = replace(binding, invoke=binding.invoke.on(self._workers))
            tool = RegisteredTool(
                binding, registration, chain, self._limits, intercepted=bool(interceptors)
            )
            added[binding.spec.id] = added[binding.spec.name] = tool
        self.registrations[registration.key] = registration
        self._tools.update(added)
        self._changed()

    def remove(self, service: str, toolset: str) -> None:
        registration = self.registrations.pop(f"{service}.{toolset}", None)
        if registration is None:
            return
        for binding in registration.tools:
            self._tools.pop(binding.spec.id, None)
            self._tools.pop(binding.spec.name, None)
        self._changed()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self) -> None:
        self._near_names = None
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("a registration listener failed")

    def toolsets(self) -> list[ToolsetInfo]:
        return [
            ToolsetInfo(
                r.service,
                r.toolset,
                tuple(b.spec.name for b in r.tools),
                remote=r.remote is not None,
                live=True if r.remote is None else r.remote.live(),
            )
            for r in self.registrations.values()
        ]

    def specs(self, toolset: str | None = None) -> Iterable[ToolSpec[Any, Any]]:
        for registration in self.registrations.values():
            if toolset is None or toolset in (registration.toolset, registration.key):
                yield from (b.spec for b in registration.tools)

    # ── a name that is no tool ────────────────────────────────────────────────────────────

    def unknown(self, name: object) -> ToolResult:
        """The answer to a call of ``name``, which no registered tool has: the valid names, and
        the ones it was probably meant as."""
        names = sorted({t.spec.name for t in self._tools.values()})
        if isinstance(name, str):
            label = clipped(name, _MAX_NAME_SHOWN)
            close = self._near_misses(name)
        else:
            label, close = shown(name), []
        # No interceptor sees an unknown name (LogCalls included): the runtime logs it.
        log.warning("no tool named %s; answered tool_unavailable", quoted(label))
        return answers.unknown_tool(name, label, names, close)

    def _near_misses(self, name: str) -> list[str]:
        """Tool names ``name`` was probably meant as: the same but for case, spacing, ``-`` for
        ``_``, a prefix or call parentheses; else the closest spellings."""
        if len(name) > _MAX_NAME_SHOWN:
            return []
        if self._near_names is None:
            index: dict[str, list[str]] = {}
            for spec_name in sorted({t.spec.name for t in self._tools.values()}):
                index.setdefault(_plain_name(spec_name), []).append(spec_name)
            self._near_names = index
        plain = _plain_name(name)
        same = self._near_names.get(plain)
        if same:
            return same[:3]
        close = difflib.get_close_matches(plain, self._near_names, n=3, cutoff=0.8)
        return [spec_name for key in close for spec_name in self._near_names[key]][:3]


def _plain_name(name: str) -> str:
    """A tool name reduced to what a near miss keeps: ``Devices.List-Devices()`` → ``list_devices``."""
    name = name.strip().removesuffix("()").rsplit(".", 1)[-1]
    return _SEPARATORS.sub("_", name.strip().lower())


_SEPARATORS = re.compile(r"[\s\-]+")
