"""What Ajv 8 knows, as the TS profiles compile schemas with it: its classes (``AjvKind``), the keywords of each
and the JSON types their values may have (``KeywordCxt``), ``alwaysValidSchema``, and the class each TS profile
picks for a dialect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

#: An Ajv class: what the TS profiles compile a schema with (Ajv's draft-07 class, Ajv2019, Ajv2020).
AjvKind = Literal["draft-07", "2019-09", "2020-12"]


def ajv_always_valid(schema: Any, rules: frozenset[str]) -> bool:
    """Ajv ``alwaysValidSchema`` (lib/compile/util.ts): ``true``, or an object with no keyword of the class."""
    if isinstance(schema, bool):
        return schema
    return not isinstance(schema, dict) or not any(k in rules for k in schema)


_AJV_SCHEMA_TYPES_07: dict[str, tuple[str, ...]] = {
    "$comment": (),
    "$ref": ("string",),
    "additionalItems": ("boolean", "object"),
    "additionalProperties": ("boolean", "object"),
    "allOf": ("array",),
    "anyOf": ("array",),
    "const": (),
    "contains": ("object", "boolean"),
    "dependencies": ("object",),
    "else": ("object", "boolean"),
    "enum": ("array",),
    "exclusiveMaximum": ("number",),
    "exclusiveMinimum": ("number",),
    "format": ("string",),
    "formatExclusiveMaximum": ("string",),
    "formatExclusiveMinimum": ("string",),
    "formatMaximum": ("string",),
    "formatMinimum": ("string",),
    "id": (),
    "if": ("object", "boolean"),
    "items": ("object", "array", "boolean"),
    "maxItems": ("number",),
    "maxLength": ("number",),
    "maxProperties": ("number",),
    "maximum": ("number",),
    "minItems": ("number",),
    "minLength": ("number",),
    "minProperties": ("number",),
    "minimum": ("number",),
    "multipleOf": ("number",),
    "not": ("object", "boolean"),
    "nullable": ("boolean",),
    "oneOf": ("array",),
    "pattern": ("string",),
    "patternProperties": ("object",),
    "properties": ("object",),
    "propertyNames": ("object", "boolean"),
    "required": ("array",),
    "then": ("object", "boolean"),
    "type": ("string", "array"),
    "uniqueItems": ("boolean",),
}


_AJV_SCHEMA_TYPES_2019: dict[str, tuple[str, ...]] = {
    **_AJV_SCHEMA_TYPES_07,
    "$dynamicAnchor": ("string",),
    "$dynamicRef": ("string",),
    "$recursiveAnchor": ("boolean",),
    "$recursiveRef": ("string",),
    "dependentRequired": ("object",),
    "dependentSchemas": ("object",),
    "maxContains": ("number",),
    "minContains": ("number",),
    "unevaluatedItems": ("boolean", "object"),
    "unevaluatedProperties": ("boolean", "object"),
}


#: Per Ajv class, keyword → the JSON types of the values Ajv's ``KeywordCxt`` accepts for it (``()``: any): the
#: keywords the class knows, with Ajv's ``schemaType`` of each (lib/vocabularies).
AJV_SCHEMA_TYPES: dict[AjvKind, dict[str, tuple[str, ...]]] = {
    "draft-07": _AJV_SCHEMA_TYPES_07,
    "2019-09": _AJV_SCHEMA_TYPES_2019,
    "2020-12": {
        **{k: v for k, v in _AJV_SCHEMA_TYPES_2019.items() if k != "additionalItems"},
        "items": ("object", "boolean"),
        "prefixItems": ("array",),
    },
}


#: The keywords of each Ajv class (what ``ajv_always_valid`` looks for).
AJV_RULES: dict[AjvKind, frozenset[str]] = {kind: frozenset(table) for kind, table in AJV_SCHEMA_TYPES.items()}


#: ts-sdk-v2's Ajv class per dialect (the SDK picks Ajv2020, Ajv2019 or the draft-07 class from ``$schema``).
_TS_SDK_V2_KINDS: dict[str, AjvKind] = {
    "2020-12": "2020-12",
    "2019-09": "2019-09",
    "draft-07": "draft-07",
    "draft-06": "draft-07",
}


#: Per TS profile, the Ajv class it compiles a schema of a dialect with (None: the host refuses the dialect).
AJV_KIND: dict[str, Callable[[str], AjvKind | None]] = {
    "ts-sdk-v1": lambda dialect: "draft-07",
    "ts-sdk-v2": _TS_SDK_V2_KINDS.get,
}
