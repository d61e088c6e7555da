"""A fast path for the metaschema check: "certainly valid" without running jsonschema's ``check_schema``.

``check_schema`` validates a schema against its dialect's metaschema with the general validator
(``$dynamicRef``, ``allOf`` of vocabularies): on a catalog of a thousand tools it is most of a ``diff``'s
time. ``surely_valid`` walks the schema once and checks each keyword the 2020-12 or draft-07 metaschema
constrains (value types, non-negative integers, non-empty schema arrays, unique string arrays, regexes that
compile, the ``$id``/``$anchor`` patterns) exactly as the metaschema does. It answers ``True`` only when
every constrained keyword passes; anything it is not sure of (another dialect, a format the installed
``jsonschema`` checks that this module does not, a value it does not recognise) is ``False``, and the
caller runs the full check, which gives the precise error. Unknown keywords are annotations in both
dialects: any value is valid.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.schema.ajv import AJV_RULES
from mcp_schema_audit.schema.dialects import DEFS_REF
from mcp_schema_audit.schema.dialects import SUBSCHEMA_KEYWORDS as _SHAPES
from mcp_schema_audit.schema.regex_cost import oversized
from mcp_schema_audit.vocabulary import JSON_TYPES

_ANCHOR = re.compile(r"^[A-Za-z_][-A-Za-z0-9._]*$")
_ID_2020 = re.compile(r"^[^#]*#?$")


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _nonneg_int(x: Any) -> bool:
    """The metaschemas' ``nonNegativeInteger``: an integer (``2.0`` counts, as in jsonschema) ≥ 0."""
    return _num(x) and x >= 0 and float(x).is_integer()


def _schema(x: Any) -> bool:
    return isinstance(x, (dict, bool))


def _schema_map(x: Any) -> bool:
    return isinstance(x, dict) and all(_schema(v) for v in x.values())


def _schema_array(x: Any) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_schema(v) for v in x)


def _unique_strings(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(v, str) for v in x) and len(set(x)) == len(x)


def _type(x: Any) -> bool:
    if isinstance(x, str):
        return x in JSON_TYPES
    return (
        isinstance(x, list)
        and len(x) > 0
        and all(isinstance(v, str) and v in JSON_TYPES for v in x)
        and len(set(x)) == len(x)
    )


@functools.lru_cache(maxsize=4096)
def _regex(x: str) -> bool:
    if oversized(x) is not None:  # never compiled: not called invalid
        return True
    try:
        re.compile(x)
    except (re.error, RecursionError, OverflowError, MemoryError, ValueError):
        return False
    return True


def _pattern(x: Any) -> bool:
    return isinstance(x, str) and _regex(x)


def _pattern_map(x: Any) -> bool:
    return _schema_map(x) and all(_regex(k) for k in x)


def _string(x: Any) -> bool:
    return isinstance(x, str)


def _bool(x: Any) -> bool:
    return isinstance(x, bool)


def _dependent_required(x: Any) -> bool:
    return isinstance(x, dict) and all(_unique_strings(v) for v in x.values())


def _dependencies(x: Any) -> bool:
    return isinstance(x, dict) and all(_schema(v) or _unique_strings(v) for v in x.values())


_COMMON: dict[str, Callable[[Any], bool]] = {
    "type": _type,
    "enum": lambda x: isinstance(x, list),
    "multipleOf": lambda x: _num(x) and x > 0,
    "maximum": _num,
    "exclusiveMaximum": _num,
    "minimum": _num,
    "exclusiveMinimum": _num,
    "maxLength": _nonneg_int,
    "minLength": _nonneg_int,
    "pattern": _pattern,
    "maxItems": _nonneg_int,
    "minItems": _nonneg_int,
    "uniqueItems": _bool,
    "maxProperties": _nonneg_int,
    "minProperties": _nonneg_int,
    "required": _unique_strings,
    "properties": _schema_map,
    "patternProperties": _pattern_map,
    "additionalProperties": _schema,
    "definitions": _schema_map,
    "dependencies": _dependencies,
    "propertyNames": _schema,
    "contains": _schema,
    "allOf": _schema_array,
    "anyOf": _schema_array,
    "oneOf": _schema_array,
    "not": _schema,
    "if": _schema,
    "then": _schema,
    "else": _schema,
    "title": _string,
    "description": _string,
    "readOnly": _bool,
    "writeOnly": _bool,
    "examples": lambda x: isinstance(x, list),
    "format": _string,
    "contentMediaType": _string,
    "contentEncoding": _string,
    "$comment": _string,
}
_CHECKS: dict[str, dict[str, Callable[[Any], bool]]] = {
    "2020-12": {
        **_COMMON,
        "$id": lambda x: isinstance(x, str) and bool(_ID_2020.match(x)),
        "$schema": _string,
        "$ref": _string,
        "$anchor": lambda x: isinstance(x, str) and bool(_ANCHOR.match(x)),
        "$dynamicRef": _string,
        "$dynamicAnchor": lambda x: isinstance(x, str) and bool(_ANCHOR.match(x)),
        "$vocabulary": lambda x: isinstance(x, dict) and all(isinstance(v, bool) for v in x.values()),
        "$defs": _schema_map,
        "prefixItems": _schema_array,
        "items": _schema,
        "dependentSchemas": _schema_map,
        "unevaluatedItems": _schema,
        "unevaluatedProperties": _schema,
        "maxContains": _nonneg_int,
        "minContains": _nonneg_int,
        "dependentRequired": _dependent_required,
        "deprecated": _bool,
        "contentSchema": _schema,
        "$recursiveAnchor": _bool,
        "$recursiveRef": _string,
    },
    "draft-07": {
        **_COMMON,
        "$id": _string,
        "$schema": _string,
        "$ref": _string,
        "items": lambda x: _schema(x) or _schema_array(x),
        "additionalItems": _schema,
    },
}
#: Formats the metaschemas put on keyword values; the check below knows how to check "regex" only.
_METASCHEMA_FORMATS = {
    "uri": ("$schema", "$vocabulary"),
    "uri-reference": ("$id", "$ref", "$dynamicRef", "$recursiveRef"),
}


def _unchecked_keywords(dialect: str) -> frozenset[str]:
    """Keywords whose format the installed jsonschema checks beyond what ``surely_valid`` does (``uri``,
    ``uri-reference`` when ``rfc3987`` is installed): their schemas go to the full check."""
    from jsonschema import Draft7Validator, Draft202012Validator

    cls = Draft202012Validator if dialect == "2020-12" else Draft7Validator
    checkers = cls.FORMAT_CHECKER.checkers
    return frozenset(kw for fmt, kws in _METASCHEMA_FORMATS.items() if fmt in checkers for kw in kws)


_UNCHECKED = dict.fromkeys(_CHECKS)


#: Keywords whose presence sends a schema to Ajv's compile walk (``compile.ajv_compile_problem``) even when it
#: is valid against its metaschema: what Ajv refuses beyond it (``id``, ``nullable`` misuse, regexes ECMAScript
#: cannot compile) and keywords Ajv's draft-07 class types that the 2020-12 metaschema leaves alone.
_AJV_WALK_KEYWORDS = {
    "2020-12": frozenset(
        {
            "id",
            "nullable",
            "pattern",
            "patternProperties",
            "additionalItems",
            "formatMaximum",
            "formatMinimum",
            "formatExclusiveMaximum",
            "formatExclusiveMinimum",
        }
    ),
    "draft-07": frozenset(
        {
            "id",
            "nullable",
            "pattern",
            "patternProperties",
            "formatMaximum",
            "formatMinimum",
            "formatExclusiveMaximum",
            "formatExclusiveMinimum",
        }
    ),
}


def _aliases(defs: Any) -> bool:
    """Does a ``$defs`` map hold an entry that is only a ``$ref`` (the link of a chain Ajv resolves as it compiles,
    ``compile._endless_chain``)?"""
    return isinstance(defs, dict) and any(
        isinstance(d, dict) and "$ref" in d and AJV_RULES["draft-07"].isdisjoint(k for k in d if k != "$ref")
        for d in defs.values()
    )


def surely_valid(schema: Any, dialect: str, max_nodes: int = 100_000, ajv: bool = False) -> bool:
    """True only when ``schema`` is certainly valid against the metaschema of ``dialect`` (``2020-12`` or
    ``draft-07``); False means "not sure": run the full check.

    ``ajv``: also True only when no Ajv class can refuse to compile it: with the metaschema met, every keyword
    Ajv types (``KeywordCxt``) has a value of its type, and ``compile.ajv_compile_problem`` would find nothing
    unless a keyword of ``_AJV_WALK_KEYWORDS``, an empty ``enum``, a ``$defs``/``definitions`` that is no map
    or holds an entry that is only a ``$ref``, or a ``$ref`` to a place this walk does not visit is present (each
    sends the schema to that walk)."""
    checks = _CHECKS.get(dialect)
    if checks is None:
        return False
    unchecked = _UNCHECKED.get(dialect)
    if unchecked is None:
        unchecked = _UNCHECKED[dialect] = _unchecked_keywords(dialect)
    if not _schema(schema):
        return False
    walk_free = _AJV_WALK_KEYWORDS[dialect]
    # the nodes of ``dialects.subschemas`` (the same keywords and shapes), visited while their keywords are
    # checked: one pass over each node's items
    stack = [schema]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > max_nodes:
            return False
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return False
        if ajv and (
            not walk_free.isdisjoint(node)
            or node.get("enum") == []
            or not isinstance(node.get("$defs", node), dict)
            or not isinstance(node.get("definitions", node), dict)
            or ("$ref" in node and not (isinstance(node["$ref"], str) and DEFS_REF.fullmatch(node["$ref"])))
            or _aliases(node.get("$defs"))
            or _aliases(node.get("definitions"))
        ):
            return False
        for kw, value in node.items():
            check = checks.get(kw)
            if check is not None and (kw in unchecked or not check(value)):
                return False
            shape = _SHAPES.get(kw)
            if shape is None:
                continue  # an annotation or a keyword without subschemas
            if shape == "map":
                if isinstance(value, dict):
                    stack.extend(value.values())
            elif isinstance(value, list):
                if shape != "one":
                    stack.extend(value)
            elif shape != "list" and isinstance(value, (dict, bool)):
                stack.append(value)
    return True


#: Subschemas above which the metaschema check is skipped (jsonschema's 2020-12 metaschema takes seconds on
#: schemas with tens of thousands of nodes); the fast check gives up there too.
METASCHEMA_MAX_NODES = 5_000

#: ``surely_valid`` per (dialect, ``ajv``, canonical schema text): the engine and the listing checks ask about
#: the same new schema.
SURELY_CACHE: ContentCache[bool] = ContentCache(1024)


def surely_valid_cached(schema: Any, text: str, dialect: str, max_nodes: int, ajv: bool = False) -> bool:
    """``surely_valid`` of ``schema`` (whose canonical JSON is ``text``), once per content; a schema that passes
    with ``ajv`` passes without it too (the Ajv reading only adds reasons to say "not sure")."""
    if not ajv and SURELY_CACHE.peek((dialect, True, max_nodes, text)):
        return True
    return SURELY_CACHE.get((dialect, ajv, max_nodes, text), lambda: surely_valid(schema, dialect, max_nodes, ajv))
