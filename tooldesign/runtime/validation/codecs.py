"""Codecs: the support code behind each generated ``codecs.py``.

A payload codec turns what a model sent (JSON text, bytes or a dict) into the tool's typed
payload, or raises :class:`ToolValidationError` with one :class:`FieldIssue` per problem. A
result codec validates what a service returned and encodes it as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pydantic
import pydantic_core
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import SchemaNavigator
from tooldesign.jsonschema.refs import resolve
from tooldesign.jsonschema.text import path_of
from tooldesign.runtime.errors import ROOT_PATH, Constraint, FieldIssue, ToolValidationError
from tooldesign.runtime.spec.formats import format_checker
from tooldesign.runtime.spec.limits import DEFAULT_LIMITS, Limits
from tooldesign.runtime.spec.specs import TypeSpec
from tooldesign.runtime.validation.field_issues import IssueSchema, error_details, field_issues
from tooldesign.runtime.validation.json_input import has_null, json_problem, parse_object
from tooldesign.runtime.validation.patterns import linear_validator
from tooldesign.runtime.validation.schema import (
    has_integral_float,
    integral_numbers,
    strip_optional_nulls,
)
from tooldesign.runtime.validation.schema_issues import schema_issues
from tooldesign.runtime.validation.sizes import (
    check_text,
    check_value,
    first_part,
    is_large,
    unchecked_text_bytes,
)

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)

RawPayload = str | bytes | bytearray | Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Decoded(Generic[ModelT]):
    """A decoded payload and the injected fields the caller tried to set (and which were ignored)."""

    value: ModelT
    discarded_injected: tuple[str, ...] = ()


class _ModelCodec(Generic[ModelT]):
    """What both codecs share: a tool's type spec, whose model is read when a call first needs
    it (a generated toolset's models are imported then: see ``TypeSpec.model``)."""

    __slots__ = ("_model", "spec", "tool")

    def __init__(self, tool: str, spec: TypeSpec[ModelT]) -> None:
        self.tool = tool
        self.spec = spec
        self._model: type[ModelT] | None = None

    @property
    def model(self) -> type[ModelT]:
        model = self._model
        if model is None:
            model = self._model = self.spec.model
        return model


class PayloadCodec(_ModelCodec[ModelT]):
    """Decodes one tool's payload.

    Only wire names are accepted (``class``, not the Python attribute ``class_``): exactly the
    keys the model-facing schema lists.

    ``injected`` names fields the model must never set: values it sends for them are discarded
    and the values passed as ``injected=`` (from the call's metadata) are used instead.
    """

    __slots__ = (
        "_declared",
        "_injected",
        "_issue_schema",
        "_sample_items",
        "_schema_check",
    )

    def __init__(
        self, tool: str, spec: TypeSpec[ModelT], *, injected: tuple[str, ...] = ()
    ) -> None:
        super().__init__(tool, spec)
        self._injected = injected
        self._issue_schema: IssueSchema | None = None
        self._schema_check = SchemaCheck(spec) if spec.check_schema else None
        self._declared: frozenset[str] | None = None
        self._sample_items = _SAMPLE_ITEMS

    @property
    def injected(self) -> tuple[str, ...]:
        return self._injected

    def decode(
        self,
        data: RawPayload,
        *,
        injected: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
    ) -> ModelT:
        """The typed payload, or :class:`ToolValidationError` naming every bad field."""
        return self.decode_detailed(data, injected=injected, limits=limits).value

    def decode_detailed(
        self,
        data: RawPayload,
        *,
        injected: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        large: bool | None = None,
    ) -> Decoded[ModelT]:
        """Decode ``data`` held to ``limits`` (the defaults when left out): arguments over a
        limit are refused before they are validated. ``large`` is ``is_large(data)``, when the
        caller knows it already."""
        limits = DEFAULT_LIMITS if limits is None else limits
        # Every payload is validated as JSON in strict mode, the way its schema reads: "3" is
        # not an integer, true is not 1, a date-time is an RFC 3339 string. A dict is JSON
        # already parsed.
        refused: pydantic.ValidationError | None = None
        if type(data) is dict and not (is_large(data) if large is None else large):
            # Arguments given parsed (Anthropic, MCP and Gemini give a dict) are written as JSON
            # once, in pydantic-core, and read as text: one pass in Rust instead of walks in
            # Python. What cannot be written (a cycle, a lone surrogate, an object) takes the
            # path below, which names the field; so does a large dict, refused over the size
            # limit as soon as its count passes it, never written whole.
            data = _json_text(data) or data
        if isinstance(data, str | bytes | bytearray):
            # Measured before it is read (text of a quarter of the limit cannot be over it);
            # text too short to break a shape limit needs no walk.
            length = len(data)
            if length * 4 > limits.payload_bytes:
                check_text(data, limits, self.tool)
            small = length < unchecked_text_bytes(limits)
            if small and not self._injected and self._schema_check is None:
                # Fast path: pydantic-core parses and validates JSON in one pass (directly,
                # without the Python wrapper: the hot path of every call). Only an
                # optimisation: what it refuses, the full path below decides and explains.
                try:
                    value = self.model.__pydantic_validator__.validate_json(
                        data, strict=True, by_alias=True, by_name=False
                    )
                    return Decoded(value)
                except pydantic.ValidationError as exc:
                    refused = exc
            raw = parse_object(data, self.tool)
            if refused is not None and not _about(refused, raw):
                # A key the text repeats: an error is about a value the parsed object does not
                # hold (the last one counts). Validated again below, as the object.
                refused = None
            elif refused is not None and (errors := _settled(refused)) is not None:
                raise self._invalid(refused, raw, errors=errors)
            if not small:
                check_value(raw, limits, self.tool, measure=False)
        else:
            check_value(data, limits, self.tool)
            raw = parse_object(data, self.tool)
        discarded = tuple(name for name in self._injected if name in raw)
        sent = (
            {k: v for k, v in raw.items() if k not in self._injected}
            if discarded or type(raw) is not dict
            else raw
        )
        # A null for an optional field whose schema does not take null means "not given": the
        # field takes its default. Strict provider modes make models send one for every
        # optional field.
        arguments = strip_optional_nulls(sent, self.spec.schema) if has_null(sent) else sent
        if arguments is not raw or refused is None or _unreadable(refused):
            # Not read as on the fast path (nulls stripped, injected fields): validated here.
            value, refused = self._validated(arguments, sent, injected)
        if refused is not None:
            # JSON Schema's integer takes 3.0: validated again with such numbers as integers.
            integral = integral_numbers(arguments, self.spec.schema)
            if integral is not arguments:
                arguments = integral
                value, refused = self._validated(arguments, sent, injected)
        if refused is not None:
            raise self._invalid(refused, sent, self._with_injected(arguments, injected))
        if self._schema_check is not None:
            # What was sent, less the nulls read as "not given", so the two checks agree.
            checked = {k: v for k, v in arguments.items() if k not in self._injected}
            self._schema_check.check(self.tool, checked, "payload")
        return Decoded(value, discarded)

    def _with_injected(
        self, arguments: Mapping[str, Any], injected: Mapping[str, Any] | None
    ) -> Mapping[str, Any]:
        if not injected:
            return arguments
        return {**arguments, **{k: v for k, v in injected.items() if v is not None}}

    def _validated(
        self,
        arguments: Mapping[str, Any],
        sent: Mapping[str, Any],
        injected: Mapping[str, Any] | None,
    ) -> tuple[Any, pydantic.ValidationError | None]:
        """The payload from ``arguments`` (with the injected values), or why it is invalid."""
        arguments = self._with_injected(arguments, injected)
        text = _json_text(arguments)
        if text is None:
            raise self._not_json(arguments, sent)
        try:
            return self._validate_text(text), None
        except pydantic.ValidationError as exc:
            if _unreadable(exc):
                raise self._not_json(arguments, sent) from None  # too deep to read back
            return None, exc

    def _validate_text(self, text: str | bytes) -> ModelT:
        return self.model.__pydantic_validator__.validate_json(  # type: ignore[no-any-return]
            text, strict=True, by_alias=True, by_name=False
        )

    def _not_json(
        self, arguments: Mapping[str, Any], sent: Mapping[str, Any]
    ) -> ToolValidationError:
        """Why arguments given as a dict cannot be JSON, at the field where it happens."""
        found = json_problem(arguments)
        path, problem = found if found is not None else ((), "not JSON values")
        issue = FieldIssue(path_of(path), Constraint.INVALID_FORMAT, problem)
        return ToolValidationError(self.tool, [issue], input=sent)

    def _invalid(
        self,
        error: pydantic.ValidationError,
        prior: Any,
        validated: Any = None,
        *,
        errors: list[pydantic_core.ErrorDetails] | None = None,
    ) -> ToolValidationError:
        """The issues of a validation error; ``prior`` is what was sent, ``validated`` what was
        checked (nulls read as "not given" left out), when they differ; ``errors`` are its
        errors when they were read already.

        A payload with more errors than are worth reading (a million bad items) has only its
        first part validated again for them: the hint shows a few issues and a count anyway.
        """
        if self._issue_schema is None:
            self._issue_schema = IssueSchema(
                SchemaNavigator(self.spec.schema, extra_properties=self._injected_schemas())
            )
        root = prior if validated is None else validated
        count = error.error_count()
        if errors is None and count > _READ_ALL_ERRORS and isinstance(root, dict):
            keep = self._declared_names()  # sets _sample_items too
            sample = first_part(root, items=self._sample_items, keep=keep)
            try:
                self._validate_text(pydantic_core.to_json(sample, inf_nan_mode="constants"))
            except pydantic.ValidationError as exc:
                errors, root = error_details(exc), sample
            except ValueError:  # the sample cannot be JSON: read the errors as they are
                pass
        if errors is None:
            errors = error_details(error)
        issues, more = field_issues(errors, self._issue_schema, root)
        more += count - len(errors)
        return ToolValidationError(self.tool, issues, input=prior, more=more)

    def _declared_names(self) -> frozenset[str]:
        """Every field name the schema declares, anywhere (and the injected ones): a sample of
        a payload keeps them, so that cutting it makes no field missing."""
        if self._declared is None:
            names: set[str] = set(self._injected)
            most_items = 0
            stack: list[Any] = [self.spec.schema]
            while stack:
                node = stack.pop()
                if isinstance(node, Mapping):
                    properties = node.get(K.PROPERTIES)
                    if isinstance(properties, Mapping):
                        names.update(k for k in properties if isinstance(k, str))
                    least = node.get(K.MIN_ITEMS)
                    if isinstance(least, int) and not isinstance(least, bool):
                        most_items = max(most_items, least)
                    stack.extend(node.values())
                elif isinstance(node, list):
                    stack.extend(node)
            self._declared = frozenset(names)
            self._sample_items = max(_SAMPLE_ITEMS, most_items)
        return self._declared

    def _injected_schemas(self) -> dict[str, Mapping[str, Any]]:
        """The types of the injected fields, which the model-facing schema leaves out.

        Read from the model's own schema, so that a missing one names its type.
        """
        if not self._injected:
            return {}
        try:
            schema = self.model.model_json_schema(by_alias=True)
        except Exception:  # noqa: BLE001 - only an explanation is at stake
            return {}
        properties = schema.get(K.PROPERTIES) or {}
        out: dict[str, Mapping[str, Any]] = {}
        for name in self._injected:
            node = properties.get(name)
            if isinstance(node, Mapping):
                out[name] = resolve(node, schema)
        return out


class ResultCodec(_ModelCodec[ModelT]):
    """Checks and encodes one tool's result: what is sent is what was checked.

    A result given as JSON data (a handler's dict, a remote worker's text) is checked as the
    model will read it — by the rules payloads are decoded with: strict JSON types, a number
    such as ``3.0`` an integer, a null for an optional field "not given" — and sent as it was
    given, never rewritten into another spelling (``+00:00`` stays ``+00:00``). A result given
    as the generated model (or another pydantic model) is sent as pydantic writes it, and that
    text is what is checked.
    """

    __slots__ = ("_issue_schema", "_schema_check")

    def __init__(self, tool: str, spec: TypeSpec[ModelT]) -> None:
        super().__init__(tool, spec)
        self._issue_schema: IssueSchema | None = None
        self._schema_check = SchemaCheck(spec) if spec.check_schema else None

    def encode(self, result: ModelT) -> str:
        """The result as compact JSON with wire names (absent optional fields left out),
        checked: :class:`ToolValidationError` when the model would read it otherwise."""
        return self.check(result)[1]

    def coerce(self, value: Any) -> ModelT:
        """``value`` as the result model: kept if it already is one, read otherwise; checked
        either way (see :meth:`check`)."""
        return self.check(value)[0]

    def check(self, value: Any) -> tuple[ModelT, str]:
        """The result as the model type holds it, and the JSON text a model reads of it: the
        text is read back as the model will read it before anything is sent, and a result
        that does not read as the tool's result type raises :class:`ToolValidationError`
        (``kind="result"``) naming each bad field."""
        if isinstance(value, self.model):
            # Written without nulls, its integers integers: read back as it is.
            # The serializer itself: model_dump_json's wrapper costs as much as the writing.
            raw = type(value).__pydantic_serializer__.to_json(
                value, by_alias=True, exclude_none=True
            )
            text = raw.decode()
            try:
                self.model.__pydantic_validator__.validate_json(
                    raw, strict=True, by_alias=True, by_name=False
                )
            except pydantic.ValidationError as exc:
                raise self._invalid(exc, pydantic_core.from_json(text)) from None
            if self._schema_check is not None:
                self._schema_check.check(self.tool, pydantic_core.from_json(text), "result")
            return value, text
        if isinstance(value, pydantic.BaseModel):
            value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        return self._read(value, value)

    def decode(self, data: RawPayload) -> ModelT:
        """A result sent as JSON (by a remote server, say), validated."""
        if isinstance(data, str | bytes | bytearray):
            try:
                parsed = pydantic_core.from_json(data)
            except ValueError as exc:
                issue = FieldIssue(ROOT_PATH, Constraint.INVALID_FORMAT, f"not valid JSON: {exc}")
                raise ToolValidationError(self.tool, [issue], kind="result") from None
            return self.coerce(parsed)
        return self.coerce(data)

    def _read(self, data: Any, given: Any) -> tuple[ModelT, str]:
        """``data`` (JSON data) read as the model reads its JSON text, and that text."""
        schema = self.spec.schema
        sent = strip_optional_nulls(data, schema) if _has_null(data) else data
        text = _json_text(sent)
        if text is None:
            found = json_problem(sent)
            path, problem = found if found is not None else ((), "not a JSON value")
            issue = FieldIssue(path_of(path), Constraint.INVALID_FORMAT, problem)
            raise ToolValidationError(self.tool, [issue], input=given, kind="result")
        validator = self.model.__pydantic_validator__
        try:
            result = validator.validate_json(text, strict=True, by_alias=True, by_name=False)
        except pydantic.ValidationError as exc:
            # The one numeric rule of payloads: JSON Schema's integer takes 3.0.
            integral = integral_numbers(sent, schema)
            again = _json_text(integral) if integral is not sent else None
            if again is None:
                raise self._invalid(exc, given) from None
            try:
                result = validator.validate_json(again, strict=True, by_alias=True, by_name=False)
            except pydantic.ValidationError:
                raise self._invalid(exc, given) from None
            sent, text = integral, again
        if self._schema_check is not None:
            self._schema_check.check(self.tool, sent, "result")
        return result, text.decode("utf-8")

    def _invalid(self, error: pydantic.ValidationError, given: Any) -> ToolValidationError:
        if self._issue_schema is None:
            self._issue_schema = IssueSchema(SchemaNavigator(self.spec.schema))
        issues, more = field_issues(error_details(error), self._issue_schema, given)
        return ToolValidationError(self.tool, issues, input=given, kind="result", more=more)


def _has_null(value: Any) -> bool:
    return isinstance(value, dict | list) and has_null(value)


def _json_text(value: Any) -> bytes | None:
    """``value`` as compact JSON (NaN and Infinity written as such, for the reader to refuse),
    or ``None`` when it cannot be JSON."""
    try:
        return pydantic_core.to_json(value, inf_nan_mode="constants")
    except (pydantic_core.PydanticSerializationError, ValueError, RecursionError):
        return None


class SchemaCheck:
    """Validation of values against a spec's JSON Schema, for the parts kept verbatim."""

    __slots__ = ("_validator",)

    def __init__(self, spec: TypeSpec[Any]) -> None:
        # Patterns are matched in linear time: a value the model chose cannot stall the check.
        self._validator = linear_validator()(spec.schema, format_checker=format_checker())

    def check(self, tool: str, value: Any, kind: str) -> None:
        issues, more = schema_issues(self._validator, value)
        if issues:
            raise ToolValidationError(tool, issues, input=value, kind=kind, more=more)


_READ_ALL_ERRORS = 1_000
"""Errors read one by one; past them, a first part of the payload is validated for its own."""

_SAMPLE_ITEMS = 100
"""Items of each array (and undeclared keys of each object) in that first part."""


def _settled(refused: pydantic.ValidationError) -> list[pydantic_core.ErrorDetails] | None:
    """The errors of a payload refused as it was sent, when reading it again cannot change
    them: none is at a null (which may mean "not given") or a number such as 3.0 (which JSON
    Schema's integer takes), nor holds one, and pydantic-core could read the JSON. ``None``
    otherwise, or when there are too many errors to read one by one."""
    if refused.error_count() > _READ_ALL_ERRORS:
        return None
    errors = error_details(refused)
    if errors[0]["type"] == "json_invalid":  # unreadable: its only error then
        return None
    nested: list[Any] = []
    for error in errors:
        value = error.get("input")
        if value is None or (type(value) is float and value.is_integer()):
            return None
        if isinstance(value, dict | list):
            nested.append(value)
    if nested and (has_null(nested) or has_integral_float(nested)):
        return None
    return errors


def _about(refused: pydantic.ValidationError, parsed: Any) -> bool:
    """Whether each error of JSON text refused (its first ones) is about a value the parsed
    text holds at the error's place: not so when the text repeats a key, whose every value the
    reader judged, where the parsed object holds the last."""
    if refused.error_count() > _READ_ALL_ERRORS:
        return True  # counted, not read: a cut payload is validated again anyway
    errors = refused.errors(include_url=False, include_context=False)
    if errors[0]["type"] == "json_invalid":
        return True
    return all(_holds(parsed, error["loc"], error.get("input")) for error in errors)


def _holds(parsed: Any, loc: tuple[int | str, ...], value: Any) -> bool:
    """Whether ``parsed`` holds ``value`` where an error's ``loc`` leads (a part that indexes
    nothing, a union's label, is passed over; a missing field's error is about its object)."""
    node = parsed
    for part in loc:
        key = isinstance(node, dict) and isinstance(part, str) and part in node
        if key or (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            node = node[part]
    return node is value or (type(node) is type(value) and node == value)


def _unreadable(exc: pydantic.ValidationError) -> bool:
    """Whether pydantic-core could not read the JSON at all (its only error then)."""
    return exc.error_count() == 1 and exc.errors(include_url=False)[0]["type"] == "json_invalid"
