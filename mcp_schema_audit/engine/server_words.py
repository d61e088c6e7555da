"""A server validator's rejection in its framework's own words, from the JSON Schema error it corresponds to.

zod 3 and zod 4 (through the TypeScript SDK's ``McpServer``, which answers ``MCP error -32602: Input validation
error: Invalid arguments for tool T: <message> at <path>``), pydantic (through Python's ``MCPServer``: ``Error
executing tool T: 1 validation error for TArguments`` then the field and its message) and jsonschema (a server
that validates with the listed inputSchema). The messages of missing fields, wrong types, enum values, unknown
keys, string lengths, patterns and number bounds are the frameworks' own (checked against real servers in
``tests/test_server_validators.py``); any other rejection is given in jsonschema's words, marked so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from jsonschema.exceptions import ValidationError

#: zod's name for a JSON value's type in "received …"
_ZOD_TYPE = {bool: "boolean", str: "string", dict: "object", list: "array", type(None): "null"}


def _zod_received(value: Any, wanted_integer: bool, version: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _ZOD_TYPE.get(type(value), type(value).__name__)
    if version == 3 and wanted_integer and isinstance(value, float) and not value.is_integer():
        return "float"
    return "number"


def _value(error: ValidationError) -> Any:
    """The keyword's value in the schema (jsonschema types it as possibly unset)."""
    return getattr(error, "validator_value", None)


def _keyword(error: ValidationError) -> str:
    return str(getattr(error, "validator", ""))


def _wanted(error: ValidationError) -> str:
    value = _value(error)
    return value if isinstance(value, str) else "|".join(str(v) for v in value)


def missing_field(error: ValidationError) -> str | None:
    """The field a ``required`` error is about (jsonschema yields one error per missing field and names it only
    in its message), else None."""
    wanted = _value(error)
    if _keyword(error) != "required" or not isinstance(error.instance, dict) or not isinstance(wanted, list):
        return None
    missing = [m for m in wanted if isinstance(m, str) and m not in error.instance]
    named = [m for m in missing if error.message == f"{m!r} is a required property"]
    return (named or missing)[0] if missing else None


def rejection_text(wording: str, error: ValidationError) -> str:
    """One rejection of a field in ``wording``'s words (``zod3``, ``zod4``, ``pydantic``, ``jsonschema``)."""
    if wording in ("zod3", "zod4"):
        text = _zod(error, 3 if wording == "zod3" else 4)
    elif wording == "pydantic":
        text = _pydantic(error)
    else:
        return str(error.message)
    return text if text is not None else f"{error.message} (in jsonschema's words)"


def _zod(error: ValidationError, version: int) -> str | None:
    kw, value = _keyword(error), _value(error)
    if kw == "required" and isinstance(error.instance, dict):
        if version == 3:
            return "Required"
        props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        return _zod4_missing(props.get(missing_field(error), {}) if isinstance(props, dict) else {})
    if kw == "type":
        wanted = _wanted(error)
        got = _zod_received(error.instance, wanted == "integer", version)
        if version == 4:
            return f"Invalid input: expected {'int' if wanted == 'integer' else wanted}, received {got}"
        return f"Expected {wanted}, received {got}"
    if kw == "enum" and isinstance(value, list):
        if version == 4:
            return "Invalid option: expected one of " + "|".join(json.dumps(v) for v in value)
        options = " | ".join(f"'{v}'" for v in value)
        return f"Invalid enum value. Expected {options}, received '{error.instance}'"
    if kw in ("additionalProperties", "unevaluatedProperties") and isinstance(error.instance, dict):
        declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = [k for k in error.instance if k not in declared]
        if version == 4:
            return ("Unrecognized key: " if len(extra) == 1 else "Unrecognized keys: ") + ", ".join(
                json.dumps(k) for k in extra
            )
        return "Unrecognized key(s) in object: " + ", ".join(f"'{k}'" for k in extra)
    if kw == "format" and version == 3 and isinstance(value, str) and value in _ZOD3_CHECK_NAMES:
        return f"Invalid {_ZOD3_CHECK_NAMES[value]}"  # zod 3's invalid_string message names its check
    if kw == "format" and version == 4 and isinstance(value, str) and value in _ZOD4_BARE_FORMAT_NOUNS:
        return f"Invalid {_ZOD4_BARE_FORMAT_NOUNS[value]}"  # z.url(), z.jwt(): listed bare, checked by zod's code
    fmt = error.schema.get("format") if isinstance(error.schema, dict) else None
    if kw == "pattern" and version == 4 and isinstance(fmt, str) and fmt in _ZOD4_FORMAT_NOUNS:
        return f"Invalid {_ZOD4_FORMAT_NOUNS[fmt]}"  # the pattern of zod 4's own z.email(), z.iso.datetime() …
    if kw == "pattern" and version == 4 and isinstance(value, str) and _ZOD4_TIME.fullmatch(value):
        return "Invalid ISO time"  # z.iso.time(): zod 4 lists its pattern without a format
    return _zod_bounds(kw, value, version)


#: The zod 3 string check behind each format zod-to-json-schema lists (``z.string().datetime()``: "date-time").
_ZOD3_CHECK_NAMES = {
    "email": "email",
    "date-time": "datetime",
    "date": "date",
    "time": "time",
    "uuid": "uuid",
    "uri": "url",
    "ipv4": "ip",
    "ipv6": "ip",
    "duration": "duration",
}


#: What zod 4's invalid_format message calls the check behind each format ``z.toJSONSchema`` lists beside its
#: pattern (zod 4.6 ``locales/en``: ``Invalid email address``).
_ZOD4_FORMAT_NOUNS = {
    "email": "email address",
    "date-time": "ISO datetime",
    "date": "ISO date",
    "time": "ISO time",
    "duration": "ISO duration",
    "uuid": "UUID",
    "ipv4": "IPv4 address",
    "ipv6": "IPv6 address",
    "cidrv4": "IPv4 range",
    "cidrv6": "IPv6 range",
    "emoji": "emoji",
}


#: zod 4's own ``z.iso.time({precision})`` pattern, the one format it lists as a bare ``pattern`` (zod 4.6
#: ``regexes.time``: ``hh:mm``, then by precision nothing (-1), ``:ss`` (0), ``:ss.`` and N digits, or optional
#: seconds with any fraction when none is given).
_ZOD4_TIME = re.compile(
    r"\^\(\?:\[01\]\\d\|2\[0-3\]\):\[0-5\]\\d"
    r"(?:|:\[0-5\]\\d|:\[0-5\]\\d\\\.\\d\{[1-9][0-9]*\}|\(\?::\[0-5\]\\d\(\?:\\\.\\d\+\)\?\)\?)\$"
)

#: The same for the formats zod 4 lists without a pattern (``zod_formats.ZOD4_CHECKS``).
_ZOD4_BARE_FORMAT_NOUNS = {"uri": "URL", "jwt": "JWT"}


def _zod4_missing(prop: Any) -> str:
    """What zod 4 says of a required field left out: its schema (``prop``, as zod's converter lists it) run on
    ``undefined`` (checked with zod 4.6: an enum lists its options, a literal its value, a nullable field its
    type, an integer is a number, a union is bare "Invalid input")."""
    if not isinstance(prop, dict):
        return "Invalid input"
    if isinstance(prop.get("enum"), list):
        return "Invalid option: expected one of " + "|".join(json.dumps(v) for v in prop["enum"])
    if "const" in prop:
        return f"Invalid input: expected {json.dumps(prop['const'])}"
    kinds = prop.get("type")
    if isinstance(kinds, list):  # ["string", "null"]: a nullable string; ["string", "number"]: a union
        real = [k for k in kinds if k != "null"]
        kinds = real[0] if len(real) == 1 else None
    if not isinstance(kinds, str):
        branches = prop.get("anyOf", prop.get("oneOf"))
        if isinstance(branches, list):
            real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            return _zod4_missing(real[0]) if len(real) == 1 else "Invalid input"
        return "Invalid input"
    return f"Invalid input: expected {'number' if kinds == 'integer' else kinds}, received undefined"


def _zod_bounds(kw: str, value: Any, version: int) -> str | None:
    if version == 3:
        return {
            "minLength": f"String must contain at least {value} character(s)",
            "maxLength": f"String must contain at most {value} character(s)",
            "minimum": f"Number must be greater than or equal to {value}",
            "maximum": f"Number must be less than or equal to {value}",
            "exclusiveMinimum": f"Number must be greater than {value}",
            "exclusiveMaximum": f"Number must be less than {value}",
            "multipleOf": f"Number must be a multiple of {value}",
            "pattern": "Invalid",
        }.get(kw)
    return {
        "minLength": f"Too small: expected string to have >={value} characters",
        "maxLength": f"Too big: expected string to have <={value} characters",
        "minimum": f"Too small: expected number to be >={value}",
        "maximum": f"Too big: expected number to be <={value}",
        "exclusiveMinimum": f"Too small: expected number to be >{value}",
        "exclusiveMaximum": f"Too big: expected number to be <{value}",
        "multipleOf": f"Invalid number: must be a multiple of {value}",
        "pattern": f"Invalid string: must match pattern /{value}/",
    }.get(kw)


def _pydantic(error: ValidationError) -> str | None:
    kw, value, got = _keyword(error), _value(error), error.instance
    if kw == "required":
        return "Field required"
    if kw in ("additionalProperties", "unevaluatedProperties"):
        return "Extra inputs are not permitted"
    if kw == "enum" and isinstance(value, list):
        shown = [repr(v) for v in value]
        return "Input should be " + (shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1])
    if kw == "type":
        return _pydantic_type(_wanted(error), got)
    if kw == "pattern":
        return f"String should match pattern '{value}'"
    return {
        "minLength": f"String should have at least {value} character{'s' if value != 1 else ''}",
        "maxLength": f"String should have at most {value} character{'s' if value != 1 else ''}",
        "minimum": f"Input should be greater than or equal to {value}",
        "maximum": f"Input should be less than or equal to {value}",
        "exclusiveMinimum": f"Input should be greater than {value}",
        "exclusiveMaximum": f"Input should be less than {value}",
        "multipleOf": f"Input should be a multiple of {value}",
    }.get(kw)


def _pydantic_type(wanted: str, got: Any) -> str | None:
    if wanted == "integer":
        if isinstance(got, float):
            return "Input should be a valid integer, got a number with a fractional part"
        if isinstance(got, str):
            return "Input should be a valid integer, unable to parse string as an integer"
        return "Input should be a valid integer"
    if wanted == "number":
        return (
            "Input should be a valid number, unable to parse string as a number"
            if isinstance(got, str)
            else ("Input should be a valid number")
        )
    if wanted == "boolean" and (
        (isinstance(got, int) and not isinstance(got, bool))
        or isinstance(got, str)
        or (isinstance(got, float) and got.is_integer() and abs(got) < 2**63)
    ):
        return "Input should be a valid boolean, unable to interpret input"  # pydantic 2.14: 2, "x", 2.0
    return {
        "string": "Input should be a valid string",
        "boolean": "Input should be a valid boolean",
        "object": "Input should be a valid dictionary",
        "array": "Input should be a valid list",
    }.get(wanted)


def _dotted(where: str) -> str:
    return ".".join(t.replace("~1", "/").replace("~0", "~") for t in where.split("/")[1:])


def joined(wording: str, rejected: Sequence[tuple[str, str]]) -> str:
    """The rejections ((instance pointer, message) pairs) as the framework words each with its place, one per line:
    zod's ``<message> at <path>`` (the TypeScript SDK's ``McpServer`` answers ``MCP error -32602: Input
    validation error: Invalid arguments for tool T: `` and these lines), pydantic's ``<loc>\n  <message>`` (Python
    ``MCPServer`` answers ``Error executing tool T: N validation errors for TArguments`` and these blocks, each
    message followed by ``[type=…]``), jsonschema's ``<pointer>: <message>``. Each line is what the framework
    itself writes, whatever the server wraps it in."""
    if wording in ("zod3", "zod4"):
        return "\n".join(m + (f" at {_dotted(w)}" if w else "") for w, m in rejected)
    if wording == "pydantic":
        return "\n".join(f"{_dotted(w)}\n  {m}" if w else m for w, m in rejected)
    return "\n".join((f"{w}: " if w else "") + m for w, m in rejected)


def unknown_tool(wording: str, name: str) -> str:
    """What a server of ``wording``'s framework answers a ``tools/call`` of a tool it does not list: the TypeScript
    SDK's ``McpServer`` (zod) ``MCP error -32602: Tool <name> not found``; Python ``MCPServer`` and low-level
    servers ``Unknown tool: <name>``."""
    return f"MCP error -32602: Tool {name} not found" if wording in ("zod3", "zod4") else f"Unknown tool: {name}"
