"""Dialects and JSON types: which JSON Schema draft a schema declares, and the types of values and schemas."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

from mcp_schema_audit.vocabulary import JSON_TYPES as VOCABULARY_JSON_TYPES

DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}


DEFAULT_DIALECT = "2020-12"

#: Integers a JavaScript double holds exactly reach this magnitude; a TS host (``JSON.parse``) rounds any beyond.
JS_SAFE = 2**53
#: A ``"$ref"`` member in canonical JSON text; group 1 is its string value as written (JSON escapes kept).
REF_IN_TEXT = re.compile(r'"\$ref":"((?:[^"\\]|\\.)*)"')
#: A ``$ref`` to the root or to a ``$defs``/``definitions`` entry by plain name (no ``~``/``%`` escapes, no
#: backslash): a place every walk of the document visits and every host profile's resolver finds alike.
DEFS_REF = re.compile(r"#(?:/(?:\$defs|definitions)/[^/~%\\]+)?")


HOST_PROFILES = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")


#: Keywords only 2020-12 (or 2019-09) validators enforce; ts-sdk-v1 (draft-07 Ajv) ignores them.
MODERN_ONLY_KEYWORDS = (
    "prefixItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "dependentSchemas",
    "dependentRequired",
    "minContains",
    "maxContains",
)


class RefError(Exception):
    """A ``$ref`` cannot be resolved locally (missing pointer, remote URI, cycle of bare refs)."""


#: The type names of JSON Schema's ``type`` keyword.
JSON_TYPES = VOCABULARY_JSON_TYPES


#: How a keyword holds subschemas: one, a list, a map of them (by property name or ``$defs`` name), or one or a
#: list (``items``).
SubschemaShape = Literal["one", "list", "map", "one_or_list"]
#: Keywords holding subschemas, in every dialect: name → its ``SubschemaShape``.
SUBSCHEMA_KEYWORDS: dict[str, SubschemaShape] = {
    "properties": "map",
    "patternProperties": "map",
    "$defs": "map",
    "definitions": "map",
    "dependentSchemas": "map",
    "dependencies": "map",
    "items": "one_or_list",
    "prefixItems": "list",
    "allOf": "list",
    "anyOf": "list",
    "oneOf": "list",
    "additionalProperties": "one",
    "unevaluatedProperties": "one",
    "unevaluatedItems": "one",
    "contains": "one",
    "not": "one",
    "if": "one",
    "then": "one",
    "else": "one",
    "propertyNames": "one",
    "additionalItems": "one",
    "contentSchema": "one",
}


def dialect_of(schema: Any) -> str:
    """The dialect name of ``schema`` from ``$schema`` ("2020-12", "2019-09", "draft-07", …).

    No ``$schema`` → ``DEFAULT_DIALECT``; an unrecognized URI → ``"unknown:<uri>"``.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("$schema"), str):
        return DEFAULT_DIALECT
    uri = schema["$schema"].rstrip("#")
    return DIALECTS.get(uri, f"unknown:{schema['$schema']}")


def type_set(schema: dict[str, Any]) -> set[str] | None:
    """The set of JSON types ``schema``'s ``type`` keyword allows, or ``None`` when it has no ``type``.

    ``integer`` is kept distinct from ``number``; callers treat ``integer ⊂ number``.
    """
    t = schema.get("type")
    if t is None:
        return None
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value (``integer`` for whole numbers, as JSON Schema does)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def subschemas(schema: Any, max_nodes: int = 100_000) -> Iterator[tuple[list[Any], Any]]:
    """Yield ``(pointer_tokens, subschema)`` for every subschema of ``schema``, the root first, depth-first.

    Follows every subschema-holding keyword of every dialect (``SUBSCHEMA_KEYWORDS``), so property
    names are never mistaken for keywords. Iterative (no recursion limit); stops after ``max_nodes``
    nodes. ``$ref`` is not followed.
    """
    stack: list[tuple[list[Any], Any]] = [([], schema)]
    seen = 0
    while stack and seen < max_nodes:
        tokens, node = stack.pop()
        seen += 1
        yield tokens, node
        if not isinstance(node, dict):
            continue
        children: list[tuple[list[Any], Any]] = []
        for kw, shape in SUBSCHEMA_KEYWORDS.items():
            if kw not in node:
                continue
            val = node[kw]
            if shape == "map" and isinstance(val, dict):
                children += [(tokens + [kw, k], sub) for k, sub in val.items()]
            elif shape in ("list", "one_or_list") and isinstance(val, list):
                children += [(tokens + [kw, i], sub) for i, sub in enumerate(val)]
            elif shape in ("one", "one_or_list") and isinstance(val, (dict, bool)):
                children.append((tokens + [kw], val))
        stack.extend(reversed(children))


_DIALECT_ORDER = ("draft-04", "draft-06", "draft-07", "2019-09", "2020-12")
#: Keywords whose reading changes between a dialect and the next one (``"items[]"``: ``items`` as an array;
#: ``"$ref+"``: ``$ref`` beside other keywords, which draft-07 and older ignore).
_CHANGED_AFTER = {
    "draft-04": {"exclusiveMinimum", "exclusiveMaximum", "const", "contains", "propertyNames", "id", "$id"},
    "draft-06": {"if", "then", "else"},
    "draft-07": {
        "$ref+",
        "dependencies",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "minContains",
        "maxContains",
        "$recursiveRef",
        "$recursiveAnchor",
    },
    "2019-09": {
        "items[]",
        "additionalItems",
        "prefixItems",
        "unevaluatedItems",
        "$recursiveRef",
        "$recursiveAnchor",
        "$dynamicRef",
        "$dynamicAnchor",
    },
}


def dialect_sensitive(schemas: list[Any], a: str, b: str) -> list[str] | None:
    """The keywords used in ``schemas`` that dialects ``a`` and ``b`` read differently, sorted; ``None``
    when either dialect is unknown (then everything may read differently).

    Example: a schema with ``prefixItems`` moving from draft-07 to 2020-12 → ``["prefixItems"]``; a schema of
    ``type``/``properties``/``enum`` only → ``[]`` (the ``$schema`` change changes no verdict).
    """
    if a not in _DIALECT_ORDER or b not in _DIALECT_ORDER:
        return None
    lo, hi = sorted((_DIALECT_ORDER.index(a), _DIALECT_ORDER.index(b)))
    changed: set[str] = set()
    for d in _DIALECT_ORDER[lo:hi]:
        changed |= _CHANGED_AFTER.get(d, set())
    found: set[str] = set()
    for schema in schemas:
        for _, node in subschemas(schema):
            if not isinstance(node, dict):
                continue
            found.update(k for k in node if k in changed)
            if isinstance(node.get("items"), list):
                found.add("items[]")
            if "$ref" in node and any(
                k
                not in (
                    "$ref",
                    "$schema",
                    "$id",
                    "$comment",
                    "title",
                    "description",
                    "$defs",
                    "definitions",
                    "examples",
                    "default",
                )
                for k in node
            ):
                found.add("$ref+")
    return sorted(k for k in found if k in changed)
