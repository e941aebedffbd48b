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
from tooldesign.runtime.errors import ROOT_PATH, Constraint, FieldIssue, ToolValidationError
from tooldesign.runtime.issues import (
    SchemaNavigator,
    field_issues,
    json_type,
    schema_issues,
    shown,
)
from tooldesign.runtime.schema_values import strip_optional_nulls
from tooldesign.runtime.specs import TypeSpec

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)

RawPayload = str | bytes | bytearray | Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Decoded(Generic[ModelT]):
    """A decoded payload and the injected fields the caller tried to set (and which were ignored)."""

    value: ModelT
    discarded_injected: tuple[str, ...] = ()


class PayloadCodec(Generic[ModelT]):
    """Decodes one tool's payload.

    Only wire names are accepted (``class``, not the Python attribute ``class_``): exactly the
    keys the model-facing schema lists.

    ``injected`` names fields the model must never set: values it sends for them are discarded
    and the values passed as ``injected=`` (from the call's metadata) are used instead.
    """

    __slots__ = ("_injected", "_navigator", "_schema_check", "model", "spec", "tool")

    def __init__(
        self, tool: str, spec: TypeSpec[ModelT], *, injected: tuple[str, ...] = ()
    ) -> None:
        self.tool = tool
        self.spec = spec
        self.model = spec.model
        self._injected = injected
        self._navigator: SchemaNavigator | None = None
        self._schema_check = SchemaCheck(spec) if spec.check_schema else None

    @property
    def injected(self) -> tuple[str, ...]:
        return self._injected

    def decode(self, data: RawPayload, *, injected: Mapping[str, Any] | None = None) -> ModelT:
        """The typed payload, or :class:`ToolValidationError` naming every bad field."""
        return self.decode_detailed(data, injected=injected).value

    def decode_detailed(
        self, data: RawPayload, *, injected: Mapping[str, Any] | None = None
    ) -> Decoded[ModelT]:
        # Every payload is validated as JSON in strict mode, the way its schema reads: "3" is
        # not an integer, true is not 1, a date-time is a string. A dict is JSON already parsed.
        if (
            not self._injected
            and self._schema_check is None
            and isinstance(data, str | bytes | bytearray)
        ):
            # Fast path: pydantic parses and validates JSON in one pass.
            try:
                # pydantic-core directly: the hot path of every call, without the Python wrapper.
                value = self.model.__pydantic_validator__.validate_json(
                    data, strict=True, by_alias=True, by_name=False
                )
                return Decoded(value)
            except pydantic.ValidationError as exc:
                if not _is_blank(data):
                    raise self._invalid(exc, _parse_or_keep(data)) from None
        raw = parse_object(data, self.tool)
        discarded = tuple(name for name in self._injected if name in raw)
        arguments = (
            {k: v for k, v in raw.items() if k not in self._injected} if discarded else dict(raw)
        )
        if injected:
            arguments.update({k: v for k, v in injected.items() if v is not None})
        shown_input = {k: v for k, v in raw.items() if k not in self._injected}
        try:
            # NaN and Infinity stay what they are, so a number field names them as the text
            # path does.
            text = pydantic_core.to_json(arguments, inf_nan_mode="constants")
        except pydantic_core.PydanticSerializationError as exc:
            issue = FieldIssue(
                ROOT_PATH, Constraint.INVALID_FORMAT, f"the arguments are not JSON values ({exc})"
            )
            raise ToolValidationError(self.tool, [issue], input=shown_input) from None
        try:
            value = self.model.__pydantic_validator__.validate_json(
                text, strict=True, by_alias=True, by_name=False
            )
        except pydantic.ValidationError as exc:
            raise self._invalid(exc, shown_input) from None
        if self._schema_check is not None:
            # What was sent, less what the model type reads as "not given" (a null on an
            # optional field), so the two checks agree on it.
            sent = strip_optional_nulls(shown_input, self.spec.schema)
            self._schema_check.check(self.tool, sent, "payload")
        return Decoded(value, discarded)

    def _invalid(self, exc: pydantic.ValidationError, prior: Any) -> ToolValidationError:
        if self._navigator is None:
            self._navigator = SchemaNavigator(
                self.spec.schema, extra_properties=self._injected_schemas()
            )
        errors = exc.errors(include_url=False)
        if any(e["type"] == "json_invalid" for e in errors):
            issues = [_malformed_json_issue(errors[0])]
        else:
            issues = field_issues(errors, self._navigator, prior)
        return ToolValidationError(self.tool, issues, input=prior)

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
        properties = schema.get("properties") or {}
        defs = schema.get("$defs") or {}
        out: dict[str, Mapping[str, Any]] = {}
        for name in self._injected:
            node = properties.get(name)
            if isinstance(node, Mapping):
                ref = node.get("$ref")
                target = defs.get(ref.rsplit("/", 1)[-1]) if isinstance(ref, str) else None
                out[name] = target if isinstance(target, Mapping) else node
        return out


class ResultCodec(Generic[ModelT]):
    """Validates and encodes one tool's result."""

    __slots__ = ("_navigator", "_schema_check", "model", "spec", "tool")

    def __init__(self, tool: str, spec: TypeSpec[ModelT]) -> None:
        self.tool = tool
        self.spec = spec
        self.model = spec.model
        self._navigator: SchemaNavigator | None = None
        self._schema_check = SchemaCheck(spec) if spec.check_schema else None

    def encode(self, result: ModelT) -> str:
        """The result as compact JSON with wire names; absent optional fields are left out."""
        return result.model_dump_json(by_alias=True, exclude_none=True)

    def coerce(self, value: Any) -> ModelT:
        """``value`` as the result model: kept if it already is one, validated otherwise."""
        if isinstance(value, self.model) and self._schema_check is None:
            return value
        if isinstance(value, pydantic.BaseModel) and not isinstance(value, self.model):
            value = value.model_dump(by_alias=True)
        try:
            result = value if isinstance(value, self.model) else self.model.model_validate(value)
        except pydantic.ValidationError as exc:
            if self._navigator is None:
                self._navigator = SchemaNavigator(self.spec.schema)
            issues = field_issues(exc.errors(include_url=False), self._navigator, value)
            raise ToolValidationError(self.tool, issues, input=value, kind="result") from None
        if self._schema_check is not None:
            # What the model will read: the result as encoded.
            encoded = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            self._schema_check.check(self.tool, encoded, "result")
        return result

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


class SchemaCheck:
    """Validation of values against a spec's JSON Schema, for the parts kept verbatim."""

    __slots__ = ("_validator",)

    def __init__(self, spec: TypeSpec[Any]) -> None:
        from jsonschema import Draft202012Validator

        self._validator = Draft202012Validator(
            spec.schema, format_checker=Draft202012Validator.FORMAT_CHECKER
        )

    def check(self, tool: str, value: Any, kind: str) -> None:
        issues = schema_issues(self._validator, value)
        if issues:
            raise ToolValidationError(tool, issues, input=value, kind=kind)


def parse_object(data: Any, tool: str) -> Mapping[str, Any]:
    """The payload as a JSON object, or a validation error saying why it is not one.

    Blank text is no arguments at all (``{}``): some providers send an empty string when a
    model calls a tool without arguments.
    """
    if isinstance(data, str | bytes | bytearray):
        if _is_blank(data):
            return {}
        try:
            data = pydantic_core.from_json(data)
        except ValueError as exc:
            issue = FieldIssue(
                ROOT_PATH,
                Constraint.INVALID_FORMAT,
                f"the arguments are not valid JSON ({exc})",
                expected="object",
            )
            raise ToolValidationError(tool, [issue], input=_text(data)) from None
    if not isinstance(data, Mapping):
        issue = FieldIssue(
            ROOT_PATH,
            Constraint.INVALID_FIELD_TYPE,
            f"the arguments must be a JSON object, got {json_type(data)} {shown(data)}",
            expected="object",
            actual=json_type(data),
        )
        raise ToolValidationError(tool, [issue], input=data)
    return data


def _is_blank(data: str | bytes | bytearray) -> bool:
    return not data or data.isspace()


def _parse_or_keep(data: str | bytes | bytearray) -> Any:
    try:
        return pydantic_core.from_json(data)
    except ValueError:
        return _text(data)


def _text(data: str | bytes | bytearray) -> str:
    return data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")


def _malformed_json_issue(error: pydantic_core.ErrorDetails) -> FieldIssue:
    detail = (error.get("ctx") or {}).get("error", error.get("msg", "invalid JSON"))
    return FieldIssue(
        ROOT_PATH,
        Constraint.INVALID_FORMAT,
        f"the arguments are not valid JSON ({detail})",
        expected="object",
    )
