"""The built-in ``results`` toolset: ``read_result`` reads a spilled result back in pieces.

A tool designed with ``Limits(result_overflow="spill")`` answers a result over its budget with a
preview and a handle (:mod:`tooldesign.runtime.spill`). ``read_result(handle, path, offset,
limit)`` reads the list or text at ``path`` from ``offset``: ``path`` may only name a path of
that tool's result schema (field names joined by dots, list items by number), so the model
cannot wander elsewhere; the handle is read only in the run that made it. What it answers fits
the runtime's result budget: it returns fewer items than asked rather than too many, and says
where the next piece starts.

Its design lives in ``tooldesign/builtin/design``; the package is generated like any other.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tooldesign.builtin.gen.builtin.toolsets.results import executor
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS, merge_single_all_of, variants
from tooldesign.jsonschema.refs import resolve
from tooldesign.jsonschema.text import shown
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.registration import Interceptor, ToolsetRegistration
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.validation.sizes import text_bytes

if TYPE_CHECKING:
    from tooldesign.builtin.gen.builtin.toolsets.results import types as t
else:
    from tooldesign.builtin.gen.builtin.toolsets.results.specs import TYPES as t

_ROOM = 200  # what the answer's own fields take beside the value read
_PARSED = 4  # results kept parsed, for a model reading one in several pieces


def results_registration(
    runtime: Runtime, *, interceptors: Sequence[Interceptor] = ()
) -> ToolsetRegistration:
    """The ``results`` toolset, reading results spilled by the tools of ``runtime``.

    Register it in the same runtime: ``runtime.register(results_registration(runtime))``.
    Without it a spilling tool's result is shown as a preview only (and a warning logged).
    """
    parsed: OrderedDict[str, Any] = OrderedDict()

    async def read_result(args: t.ReadResultPayload, meta: ToolCallMeta) -> t.ReadResultResult:
        entry = await runtime.result_store.get(args.handle)
        if entry is None or entry.run_id != meta.run_id:
            raise ToolFailure(
                f"There is no result with the handle {shown(args.handle)} in this run: handles "
                "expire, and work only in the run that made them. Call the tool again."
            )
        spec = runtime.spec(entry.tool)
        if spec is None:
            raise ToolFailure(f"The tool that made this result ({entry.tool}) is gone.")
        segments = [s for s in args.path.split(".")] if args.path else []
        _check_path(spec.result.schema, segments, args.path)
        value = parsed.pop(args.handle, None)
        if value is None:
            value = json.loads(entry.value_json)
        parsed[args.handle] = value
        while len(parsed) > _PARSED:
            parsed.popitem(last=False)
        limits = runtime.limits_of("read_result")
        budget = max((limits.result_bytes if limits is not None else 64 * 1024) - _ROOM, 1)
        return _piece(_at(value, segments, args.path), args.path, args.offset, args.limit, budget)

    return executor.new_registration(
        handlers={"read_result": read_result}, interceptors=interceptors
    )


def _check_path(schema: Mapping[str, Any], segments: list[str], path: str) -> None:
    """A :class:`ToolFailure` unless ``segments`` name a path of the result ``schema``."""
    nodes: list[Mapping[str, Any]] = [schema]
    for depth, segment in enumerate(segments):
        following: list[Mapping[str, Any]] = []
        for node in nodes:
            for form in _forms(node, schema):
                properties = form.get(K.PROPERTIES)
                if isinstance(properties, MAPS) and isinstance(properties.get(segment), MAPS):
                    following.append(properties[segment])
                items = form.get(K.ITEMS)
                if segment.isdigit() and isinstance(items, MAPS):
                    following.append(items)
        if not following:
            known = sorted(_paths(schema, schema, "", 3))
            where = ".".join(segments[:depth]) or "the result"
            raise ToolFailure(
                f"The result has no path {shown(path)} ({segment!r} is not in {where}). "
                f"Paths: {', '.join(known[:30]) or 'none'}; list items by number (items.3)."
            )
        nodes = following


def _forms(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``node`` and its union's alternatives, references followed."""
    node = resolve(merge_single_all_of(node), root)
    return [node, *variants(node, root)]


def _paths(node: Mapping[str, Any], root: Mapping[str, Any], prefix: str, depth: int) -> set[str]:
    out: set[str] = set()
    if depth == 0:
        return out
    for form in _forms(node, root):
        properties = form.get(K.PROPERTIES)
        if isinstance(properties, MAPS):
            for key, child in properties.items():
                path = f"{prefix}{key}"
                out.add(path)
                if isinstance(child, MAPS):
                    out |= _paths(child, root, path + ".", depth - 1)
        items = form.get(K.ITEMS)
        if isinstance(items, MAPS) and prefix:
            out |= _paths(items, root, prefix + "N.", depth - 1)
    return out


def _at(value: Any, segments: list[str], path: str) -> Any:
    for segment in segments:
        if isinstance(value, Mapping) and segment in value:
            value = value[segment]
        elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
            value = value[int(segment)]
        else:
            raise ToolFailure(f"This result has nothing at {shown(path)} (the field is absent).")
    return value


def _piece(value: Any, path: str, offset: int, limit: int, budget: int) -> t.ReadResultResult:
    """The piece of ``value`` from ``offset``: at most ``limit`` items or characters, fewer
    when more would not fit ``budget`` bytes."""
    if isinstance(value, list | str):
        total = len(value)
        if offset > total:
            raise ToolFailure(f"offset {offset} is past the end: there are {total:,}.")
        count = min(limit, total - offset)
        piece = value[offset : offset + count]
        while count > 0 and _size(piece) > budget:  # halve until it fits, then grow back
            count //= 2
            piece = value[offset : offset + count]
        if count == 0 and total > offset:
            raise ToolFailure(
                f"The item at {offset} of {shown(path or 'the result')} alone is over "
                f"{budget:,} bytes; read a path inside it (e.g. {path + '.' if path else ''}"
                f"{offset}.<field>)."
            )
        end = offset + count
        return t.ReadResultResult(
            value=piece,
            path=path,
            offset=offset,
            returned=count,
            total=total,
            next_offset=end if end < total else None,
        )
    if offset:
        raise ToolFailure(f"{shown(path or 'the result')} is no list or text: read it at offset 0.")
    if _size(value) > budget:
        raise ToolFailure(
            f"{shown(path or 'the result')} is over {budget:,} bytes; read a path inside it."
        )
    return t.ReadResultResult(value=value, path=path, offset=0, returned=1, total=1)


def _size(value: Any) -> int:
    return text_bytes(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


__all__ = ["results_registration"]
