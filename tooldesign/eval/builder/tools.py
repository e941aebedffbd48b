"""Services, toolsets and tools: the design's tree, each name checked, each tool built whole.

An element whose name is rejected (invalid, or taken) is still built, so the problems inside it
are reported too: services, toolsets and tools stay in the IR (a design with issues is never
generated), while a repeated type or attribute goes to ``Design.rejected``, which validation
checks like the rest.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any, TypeVar

from tooldesign.contract.annotations import ANNOTATION_NAMES, ANNOTATIONS, ToolAnnotations
from tooldesign.contract.asks import Whom, asks_problem
from tooldesign.contract.code_access import CodeAccess, code_access_problem
from tooldesign.contract.content import ContentKind, content_kinds, content_problem
from tooldesign.contract.errors import close_match
from tooldesign.contract.limits import LIMIT_NAMES, ToolLimits, check_limit
from tooldesign.contract.loading import LOADINGS, Loading
from tooldesign.contract.location import Location
from tooldesign.contract.naming import SHADOWED_MODULES, pascal_case
from tooldesign.contract.scopes import needed_scopes, scope_problem
from tooldesign.contract.tasks import DEFAULT_KEEP_MS, DEFAULT_POLL_MS, TaskSupport, task_problem
from tooldesign.dsl.records import (
    BindRecord,
    DesignRecord,
    Record,
    ServiceRecord,
    TargetsRecord,
    ToolRecord,
    ToolsetRecord,
)
from tooldesign.eval.builder import control, messages, prompts, values
from tooldesign.eval.builder.bounded import bounded
from tooldesign.eval.builder.fields import TypeBuilder
from tooldesign.eval.builder.mcp import mcp_server_spec, remote_name
from tooldesign.eval.builder.names import GROUP_NAME, TOOL_NAME, UniqueNames, ident
from tooldesign.eval.builder.rules import injected_rules
from tooldesign.eval.nesting import check_types
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    Binding,
    Design,
    ObjectType,
    Service,
    ServiceTargets,
    Tool,
    Toolset,
)
from tooldesign.tracebacks import described

GroupT = TypeVar("GroupT", ServiceRecord, ToolsetRecord)


def build(record: DesignRecord, issues: Issues, sources: Iterable[str] = ()) -> Design:
    """Phase 2 of evaluation: the design's records as the IR, every problem in ``issues``."""
    for issue in record.issues:
        issues.add(issue.message, issue.location, issue.path)
    values.report_unencodable_text(record, issues)
    types = TypeBuilder(issues)
    types.user_types(record.types)
    if not check_types(types.types, issues):
        issues.raise_if_any()  # every later step walks the types
    services = _TreeBuilder(types).services(record.services)
    return Design(
        services=services,
        types=dict(types.types),
        sources=tuple(sources),
        rejected=tuple(types.rejected),
    )


class _TreeBuilder:
    def __init__(self, types: TypeBuilder) -> None:
        self.types = types
        self.issues = types.issues
        self.content = prompts.Seen()

    def _text(self, value: Any, rec: Record, what: str) -> str | None:
        return values.text(value, rec, what, self.issues)

    def services(self, records: list[ServiceRecord]) -> tuple[Service, ...]:
        out: list[Service] = []
        # Service packages sit at the top of the output folder: none may take the name of a
        # module the program imports (the standard library's, the runtime's, the application's).
        shadowed = SHADOWED_MODULES | _bound_packages(records)
        # A Runtime serves the tools of every service generated together by name.
        tool_names: dict[str, tuple[Tool, Toolset, str]] = {}
        for rec in self._checked_groups(records, "service", shadowed):
            repairs = control.repairs_default(rec.repairs, self.issues)
            toolsets = tuple(
                self._toolset(t, rec.name, repairs)
                for t in self._checked_groups(rec.toolsets, "toolset")
            )
            for toolset in toolsets:
                for tool in toolset.tools:
                    first = tool_names.setdefault(tool.name, (tool, toolset, rec.name))
                    self._unique_tool(tool, toolset, rec.name, *first)
            desc = self._text(rec.description, rec, "description")
            out.append(
                Service(
                    rec.name,
                    ident(rec.name, "service_", shadowed),
                    desc,
                    toolsets,
                    rec.location,
                    rec.path,
                    self._targets(rec.targets),
                )
            )
        return tuple(out)

    def _targets(self, rec: TargetsRecord | None) -> ServiceTargets | None:
        """``Targets(...)`` as the IR keeps it: names and server as text (which names exist is
        checked at generation, where the targets' rules are)."""
        if rec is None:
            return None
        names = tuple(
            name
            for name in (self._text(value, rec, "target") for value in rec.names)
            if name is not None
        )
        server = self._text(rec.server, rec, "server") if rec.server is not None else None
        budget = rec.eager_tokens
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget < 1
        ):
            self.issues.add(
                f"Targets eager_tokens= must be a positive number of tokens, got {budget!r}",
                rec.location,
                rec.path,
            )
            budget = None
        return ServiceTargets(names, server, rec.location, rec.path, eager_tokens=budget)

    def _loading(self, given: tuple[Any, Location] | None, rec: Record) -> Loading | None:
        """``Loading(...)`` checked: ``"eager"`` or ``"deferred"``, else an issue and unset."""
        if given is None:
            return None
        how, where = given
        if how in LOADINGS:
            loading: Loading = how
            return loading
        choices = " or ".join(repr(c) for c in LOADINGS)
        self.issues.add(f"Loading must be {choices}, got {how!r}", where, rec.path)
        return None

    def _unique_tool(
        self,
        tool: Tool,
        toolset: Toolset,
        service: str,
        first: Tool,
        first_toolset: Toolset,
        first_service: str,
    ) -> None:
        """Report ``tool`` if an earlier one, ``first``, has its name (within a toolset, the
        toolset reports it)."""
        if first is tool or first_toolset is toolset:
            return
        if first_service == service:
            self.issues.add(
                f"duplicate tool name {tool.name!r} in service {service!r} (first declared at {first.location}); "
                "the model sees tool names, so they must be unique per service",
                tool.location,
                tool.path,
            )
        else:
            self.issues.add(
                f"tool name {tool.name!r} is also used in service {first_service!r} (declared at "
                f"{first.location}); a Runtime serves the tools of the services generated "
                "together by name, so they must be unique across services",
                tool.location,
                tool.path,
            )

    def _checked_groups(
        self, records: list[GroupT], kind: str, shadowed: frozenset[str] = frozenset()
    ) -> list[GroupT]:
        """Every record, its name checked: valid, and unique as written, as a Python identifier
        and as a folder name on a file system that ignores case.

        A record whose name is rejected is kept, so what it holds is checked too.
        """
        names = UniqueNames(kind, self.issues, folders=True)
        for rec in records:
            name = rec.name
            if not values.is_text(name) or not GROUP_NAME.fullmatch(name):
                self.issues.add(
                    f"{kind} name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ (it names a Python package)",
                    rec.location,
                    rec.path,
                )
                continue
            names.claim(name, ident(name, f"{kind}_", shadowed), rec.location, rec.path)
        return records

    def _toolset(
        self, rec: ToolsetRecord, service: str, repairs: tuple[str, ...] | None
    ) -> Toolset:
        tags = self._tags(rec.tags, rec)
        loading = self._loading(rec.loading, rec)
        scopes = self._scopes(rec.scopes, rec)
        if rec.repairs is not None:  # the nearest Repairs wins
            repairs = control.repairs_default(rec.repairs, self.issues)
        tools: list[Tool] = []
        names = UniqueNames("tool", self.issues)
        for tool_rec in rec.tools:
            name = tool_rec.name
            tool_ident = ident(name, "tool_")
            if not values.is_text(name) or not TOOL_NAME.fullmatch(name):
                length = (
                    f" is {len(name)} characters long and"
                    if values.is_text(name) and len(name) > 64
                    else ""
                )
                self.issues.add(
                    f"tool name {name!r}{length} must match ^[A-Za-z0-9_-]{{1,64}}$: 1 to 64 letters, digits, "
                    "_ or - (models see it as the function name)",
                    tool_rec.location,
                    tool_rec.path,
                )
            else:
                names.claim(name, tool_ident, tool_rec.location, tool_rec.path)
            # Kept whatever its name: what the tool declares is checked too.
            tools.append(
                self._tool(
                    tool_rec,
                    service,
                    rec.name,
                    tool_ident,
                    tags,
                    repairs,
                    rec.is_mcp,
                    loading,
                    toolset_scopes=scopes,
                )
            )
        desc = self._text(rec.description, rec, "description")
        return Toolset(
            rec.name,
            ident(rec.name, "toolset_"),
            desc,
            tags,
            tuple(tools),
            rec.location,
            rec.path,
            mcp=mcp_server_spec(rec.mcp_server, rec, self.issues) if rec.is_mcp else None,
            content=prompts.content(self.types, rec, self.content, self._binding),
        )

    def _tool(
        self,
        rec: ToolRecord,
        service: str,
        toolset: str,
        ident: str,
        toolset_tags: tuple[str, ...],
        repairs: tuple[str, ...] | None,
        on_server: bool = False,
        toolset_loading: Loading | None = None,
        *,
        toolset_scopes: tuple[str, ...] = (),
    ) -> Tool:
        for what, where in rec.duplicates:
            self.issues.add(f"{what} is declared more than once in this tool", where, rec.path)
        remote = remote_name(rec, on_server, self.issues)
        prefix = pascal_case(ident)
        description = self._text(rec.description, rec, "description")
        if not description or not description.strip():
            self.issues.add(
                "tool needs a description (models read it to decide when to call the tool)",
                rec.location,
                rec.path,
            )
        title = self._text(rec.title, rec, "title")
        tags = tuple(dict.fromkeys((*toolset_tags, *self._tags(rec.tags, rec))))
        payload = messages.payload(self.types, rec.args, prefix, rec)
        result = messages.result(self.types, rec.returns, prefix, rec)
        bounds = None
        if rec.bounded is not None:
            bounds, payload, result = bounded(self.types, rec, payload, result, prefix)
        injected = messages.injected(self.types, rec, payload)
        if injected and isinstance(payload.type, ObjectType):
            injected_rules(payload.type.shape, injected, self.issues)
        if rec.repairs is not None:  # the nearest Repairs wins
            repairs = control.repairs_default(rec.repairs, self.issues)
        user_types = self.types.types
        # Transforms are planned later, once the whole design is validated (``binding.planner``).
        return Tool(
            name=rec.name,
            ident=ident,
            class_prefix=prefix,
            service=service,
            toolset=toolset,
            title=title,
            description=description or "",
            tags=tags,
            payload=payload,
            result=result,
            location=rec.location,
            path=rec.path,
            bounds=bounds,
            injected=injected,
            server_data=messages.server_data(self.types, rec, prefix),
            binding=self._binding(rec.bind) if rec.bind is not None and not on_server else None,
            annotations=self._annotations(rec),
            remote_name=remote,
            confirm=control.confirm(rec.confirm, payload, user_types, injected, self.issues),
            code_access=self._code_access(rec),
            content=self._content(rec),
            asks=self._asks(rec),
            task=self._task(rec),
            repairs=control.tool_repairs(payload, user_types, repairs, injected),
            limits=self._limits(rec),
            loading=self._loading(rec.loading, rec) or toolset_loading,
            agent=control.agent(rec.agent, self.issues),
            scopes=needed_scopes(toolset_scopes, self._scopes(rec.scopes, rec)),
        )

    def _scopes(self, given: list[tuple[Any, Location]], rec: Record) -> tuple[str, ...]:
        """``Scopes(...)`` checked: each an OAuth scope token, else an issue where it was
        given (the block's path names the tool or toolset) and left out."""
        out: list[str] = []
        for scope, where in given:
            problem = scope_problem(scope)
            if problem is not None:
                self.issues.add(f"Scopes: {problem}", where, rec.path)
            else:
                out.append(scope)
        return tuple(out)

    def _tags(self, tags: list[tuple[Any, Location]], rec: Record) -> tuple[str, ...]:
        out: list[str] = []
        for tag, where in tags:
            if not values.is_text(tag) or not tag.strip():
                self.issues.add(f"tags must be non-empty strings, got {tag!r}", where, rec.path)
            elif tag not in out:
                out.append(tag)
        return tuple(out)

    def _asks(self, rec: ToolRecord) -> tuple[Whom, ...]:
        record = rec.asks
        if record is None:
            return ()
        problem = asks_problem(tuple(record.whom))
        if problem is not None:
            self.issues.add(problem, record.location, record.path)
            return ()
        whom: tuple[Whom, ...] = tuple(record.whom)
        return whom

    def _task(self, rec: ToolRecord) -> TaskSupport | None:
        record = rec.long_running
        if record is None:
            return None
        keep = DEFAULT_KEEP_MS if record.keep_ms is None else record.keep_ms
        poll = DEFAULT_POLL_MS if record.poll_ms is None else record.poll_ms
        problem = task_problem(record.required, keep, poll, record.asks_first)
        if problem is not None:
            self.issues.add(problem, record.location, record.path)
            return None
        return TaskSupport(record.required, keep, poll, record.asks_first)

    def _code_access(self, rec: ToolRecord) -> CodeAccess | None:
        record = rec.code_access
        if record is None:
            return None
        problem = code_access_problem(record.access, confirmed=rec.confirm is not None)
        if problem is not None:
            self.issues.add(problem, record.location, record.path)
            return None
        access: CodeAccess = record.access
        return access

    def _content(self, rec: ToolRecord) -> tuple[ContentKind, ...]:
        record = rec.content
        if record is None:
            return ()
        problem = content_problem(record.kinds)
        if problem is not None:
            self.issues.add(problem, record.location, record.path)
            return ()
        return content_kinds(record.kinds)

    def _annotations(self, rec: ToolRecord) -> ToolAnnotations:
        ann = rec.annotations
        if ann is None:
            return ToolAnnotations()
        values: dict[str, bool] = {}
        for key, value in ann.hints.items():
            if key not in ANNOTATION_NAMES:
                allowed = ", ".join(row.name for row in ANNOTATIONS)
                close = close_match(key, ANNOTATION_NAMES)
                guess = f" (did you mean {close}=?)" if close else ""
                self.issues.add(
                    f"unknown annotation {key}={guess}; allowed: {allowed}",
                    ann.location,
                    ann.path,
                )
            elif value is not None and not isinstance(value, bool):
                self.issues.add(
                    f"Annotations {key}= must be True, False or None, got {value!r}",
                    ann.location,
                    ann.path,
                )
            elif value is not None:
                values[key] = value
        return ToolAnnotations(**values)

    def _limits(self, rec: ToolRecord) -> ToolLimits:
        limits = rec.limits
        if limits is None:
            return ToolLimits()
        values: dict[str, Any] = {}
        for key in LIMIT_NAMES:
            value = getattr(limits, key)
            try:
                if value is not None:
                    check_limit(key, value)
            except ValueError as exc:
                self.issues.add(f"Limits {key}=: {exc}", limits.location, limits.path)
                value = None
            values[key] = value
        return ToolLimits(**values)

    def _binding(self, rec: BindRecord, call: str = "BindTo") -> Binding | None:
        target = rec.target
        module, qualname = _bind_target(target)
        if not values.is_text(target) and not callable(target):
            self.issues.add(f"{call} target {target!r} is not callable", rec.location, rec.path)
            return None
        if not module or not qualname or "<" in qualname:
            self.issues.add(
                f"{call} target {target!r} is not importable: bind a module-level function or a method of a module-level class",
                rec.location,
                rec.path,
            )
            return None
        try:
            obj: Any = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except Exception as exc:  # noqa: BLE001 - the application's module may fail to import in any way
            self.issues.add(
                f"{call} target {module}:{qualname} is not importable: {described(exc)}",
                rec.location,
                rec.path,
                cause=exc,
            )
            return None
        if not callable(obj):
            self.issues.add(
                f"{call} target {module}:{qualname} is not callable", rec.location, rec.path
            )
            return None
        return Binding(module, qualname, rec.location, rec.path)


def _bind_target(target: Any) -> tuple[str | None, str]:
    """The module and qualified name ``BindTo`` was given (``"pkg.mod:func"``, or the function)."""
    if values.is_text(target):
        module, _, qualname = target.partition(":") if ":" in target else target.rpartition(".")
        return module, qualname
    return getattr(target, "__module__", None), getattr(target, "__qualname__", "")


def _bound_packages(services: list[ServiceRecord]) -> frozenset[str]:
    """The top-level packages of the application modules the design binds tools to."""
    found: set[str] = set()
    for service in services:
        for toolset in service.toolsets:
            binds = [tool.bind for tool in toolset.tools]
            binds += [b for c in toolset.content for b in (c.bind, c.completes)]
            for bind in binds:
                if bind is not None and bind.target is not None:
                    module, _ = _bind_target(bind.target)
                    if isinstance(module, str) and module:
                        found.add(module.partition(".")[0])
    return frozenset(found)
