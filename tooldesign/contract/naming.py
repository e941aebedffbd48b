"""Names in generated code: design names turned into Python identifiers and class names, and the
names each generated module keeps for itself, in one place.

A contract between stages: evaluation names the IR's identifiers with it, so a name is decided
once, where the design is read, and code generation writes the names it decided.
"""

from __future__ import annotations

import keyword
import re
import sys
import unicodedata
from collections.abc import Iterable
from functools import cache

# Attributes of pydantic models (and of our bounded-result base) that a field must not shadow.
# Listed, not read from pydantic, so generated code does not change with the installed version.
MODEL_ATTRIBUTES = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "model_computed_fields",
        "model_config",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_extra",
        "model_fields",
        "model_fields_set",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "result_bounds",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)

# Pydantic's protected namespaces: a field whose name starts with one of these draws a warning
# when the model is defined (``model_dump_`` does), as it may shadow a future method.
PROTECTED_PREFIXES = ("model_validate", "model_dump")

# ── what each generated module imports or defines besides the design's names ─────────────────
# Checked against what generation really writes (tests/test_naming.py parses every module of a
# design that uses every feature): a name missing here could be taken by a design name and
# shadow the import.

TYPES_MODULE_NAMES = frozenset(
    {
        # typing and the standard library
        "Annotated",
        "Any",
        "ClassVar",
        "Literal",
        "TypeAliasType",
        "Union",  # a recursive union inside a list refers to a class not yet defined
        "IPv4Address",
        "IPv6Address",
        "UUID",
        "date",
        "datetime",
        "time",
        "timedelta",
        "_datetime",  # the datetime, ipaddress and uuid modules, for typed defaults
        "_ipaddress",
        "_uuid",
        # pydantic: models, and the strict scalars (no "3" for 3, no 1 for true)
        "AnyUrl",
        "AwareDatetime",
        "BaseModel",
        "ConfigDict",
        "EmailStr",
        "Field",
        "RootModel",
        "StrictBool",
        "StrictFloat",
        "StrictInt",
        "StrictStr",
        # the runtime
        "BoundedResultModel",
        "JsonAny",
        "Rfc1123Hostname",
        "Rfc2673Ipv4Address",
        "Rfc3339Date",
        "Rfc3339DateTime",
        "Rfc3339Duration",
        "Rfc3339Time",
        "Rfc3986Uri",
        "Rfc4122Uuid",
        "Rfc4291Ipv6Address",
        "Rfc5321Email",
    }
)
"""Names a generated ``types.py`` imports: what the model generator writes with the options
``codegen.models`` gives it, and what tooldesign adds (root models, bounded results, typed
defaults)."""

SPECS_MODULE_NAMES = frozenset(
    {"TYPE_CHECKING", "Any", "Final", "Mapping", "rt", "t"}
    | {"TYPES", "SPECS", "BY_ID", "BY_NAME", "MCP_SERVER", "spec_by_id", "spec_by_name"}
)
"""Names ``specs.py`` imports, then the names it defines for every toolset."""

CODECS_MODULE_NAMES = frozenset({"TYPE_CHECKING", "Any", "Final", "Mapping", "rt", "specs", "t"})
"""Names ``codecs.py`` imports."""

EXECUTOR_MODULE_NAMES = frozenset(
    {"TYPE_CHECKING", "Awaitable", "Protocol", "Required", "Sequence", "TypedDict", "cast"}
    | {"overload"}
    | {"codecs", "rt", "specs", "t", "tr"}
    | {"Handlers", "HandlersWithoutService", "new_registration"}
)
"""Names ``executor.py`` (an MCPToolset's too) imports, then the names it defines."""

TRANSFORMS_MODULE_NAMES = frozenset(
    {"TYPE_CHECKING", "Any", "Literal", "NotRequired", "TypedDict", "datetime", "ipaddress"}
    | {"uuid", "t"}
)
"""Names ``transforms.py`` imports besides the application's modules (which are aliased)."""

ANNOTATION_NAMES = TYPES_MODULE_NAMES | {"bool", "dict", "float", "int", "list", "str"}
"""Names a field of a generated model must not take: it would shadow the type in its own class
body (``date: date``), which pydantic rejects."""

RESERVED_CLASS_NAMES = TYPES_MODULE_NAMES
"""Class names that would clash with what a generated types module imports."""

SHADOWED_MODULES = frozenset(
    sys.stdlib_module_names
    # Removed from the standard library in Python 3.12 and 3.13: reserved on every version,
    # so a design generates the same packages whichever Python runs tooldesign.
    | {"asynchat", "asyncore", "distutils", "imp", "smtpd"}
    | {"aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap"}
    | {"msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau"}
    | {"telnetlib", "uu", "xdrlib"}
    # What generated packages and the runtime support they import need, besides the standard
    # library.
    | {"tooldesign", "pydantic", "pydantic_core", "typing_extensions", "annotated_types"}
    | {"email_validator", "jsonschema"}
)
"""Top-level modules a service package must not be named like: generated packages sit at the
top of the output folder, so once it is importable a service ``typing`` would be imported for
Python's ``typing`` everywhere in the program. The application modules a design binds tools to
are added per design."""

_NOT_WORD = re.compile(r"\W")
_WORD_BREAK = re.compile(r"[^0-9A-Za-z]+|_+")


@cache  # a design names the same few attributes in many tools
def python_identifier(name: str, *, digit_prefix: str = "field_") -> str | None:
    """``name`` as a safe Python attribute name, or ``None`` if nothing usable is left.

    The name is read in NFKC form, as Python reads identifiers; characters that cannot appear in
    an identifier become ``_``; leading underscores are dropped
    (pydantic treats them as private); a leading digit gets ``digit_prefix``. A name in
    pydantic's own ``model_`` namespace (``model_dump``, ``model_config``, ``model_validate_x``)
    gets ``field_`` in front: a trailing ``_`` would still be in that namespace. Other keywords
    and names that shadow model attributes or annotation types get a trailing ``_``.
    """
    # Python reads identifiers in NFKC form (``ℌ`` is ``H``, ``ﬁ`` is ``fi``): normalised first,
    # the identifier is what Python will read, and differs from the wire name, kept as an alias.
    text = _NOT_WORD.sub("_", unicodedata.normalize("NFKC", name)).lstrip("_")
    if not text:
        return None
    if text[0].isdigit():
        text = digit_prefix + text
    if not text.isidentifier():
        return None
    if text.startswith("model_") and (
        text in MODEL_ATTRIBUTES or text.startswith(PROTECTED_PREFIXES)
    ):
        return f"field_{text}"
    if keyword.iskeyword(text) or text in MODEL_ATTRIBUTES or text in ANNOTATION_NAMES:
        text += "_"
    return text


@cache
def pascal_case(name: str) -> str:
    """``list_devices`` → ``ListDevices``; ``atlas.time_series`` → ``AtlasTimeSeries``.

    Capitals inside words are kept (``HTTPHeader`` stays), so names already in PascalCase do
    not change.
    """
    return "".join(part[:1].upper() + part[1:] for part in _WORD_BREAK.split(name) if part)


def constant_name(name: str) -> str:
    """``list_devices`` → ``LIST_DEVICES``."""
    return re.sub(r"_+", "_", _NOT_WORD.sub("_", name)).strip("_").upper()


class NameScope:
    """Hands out names unique within one scope (a module, a class), in request order.

    A name already taken gets a numeric suffix: ``Device``, ``Device2``, … The order of
    requests is the design's order, so results are deterministic.
    """

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._taken: set[str] = set(reserved)

    def unique(self, candidate: str) -> str:
        name, n = candidate, 2
        while name in self._taken:
            name = f"{candidate}{n}"
            n += 1
        self._taken.add(name)
        return name

    def __contains__(self, name: str) -> bool:
        return name in self._taken


def snake_case(name: str) -> str:
    """``DeviceService.get`` → ``device_service_get``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace(".", "_")).lower()


def word_ident(name: str, fallback: str) -> str:
    """``atlas.time-series`` → ``atlas_time_series``: a name's words joined by ``_`` (``fallback``
    when it has none), for the part of a longer identifier that it names."""
    return re.sub(r"\W+", "_", name).strip("_") or fallback


def package_dir(service_ident: str, toolset_ident: str) -> str:
    """Where a toolset's package goes, relative to the output folder."""
    return f"{service_ident}/toolsets/{toolset_ident}"
