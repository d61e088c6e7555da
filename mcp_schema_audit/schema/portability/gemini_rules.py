"""The ``gemini`` profile: a tool as the Google Gen AI SDK's own MCP adapter hands it to Gemini.

Code read (and run by tests/test_portability_providers.py): ``google-genai`` 3.6.1 ``google/genai/_mcp_utils.py``
(``mcp_to_gemini_tool``: ``_filter_to_supported_schema`` keeps the keys that are ``types.JSONSchema`` field names
plus ``additionalProperties``, ``anyOf``, ``oneOf``, ``$defs``, ``$ref``, then ``types.Schema.from_json_schema``
builds the OpenAPI-style ``parameters``) and ``google/genai/types.py`` (``Schema.from_json_schema``: only
``items``, ``anyOf`` and ``properties`` are converted, ``$ref`` is resolved against the document, a recursive
``$ref`` becomes an empty schema, ``additional_properties`` is never copied). ``mcp_to_gemini_tools`` converts a
session's tools in one list, so one tool that raises fails them all. The Vercel AI SDK's Google provider
(``@ai-sdk/google`` ``convertJSONSchemaToOpenAPISchema``) drops a similar set; the tests compare the keywords both
drop. The name rules rest on the SDK's field documentation of ``FunctionDeclaration``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.schema.portability.record import Hit, HostRule, Tool, parameter_of, quoted

GENAI = "google-genai 3.6.1 google/genai/_mcp_utils.py mcp_to_gemini_tool, _filter_to_supported_schema"
FROM_JSON = "google-genai 3.6.1 google/genai/types.py Schema.from_json_schema"
#: The JSON Schema keys ``_filter_to_supported_schema`` keeps (``types.JSONSchema`` field names spelled alike in
#: JSON Schema, and the five it adds).
KEPT = frozenset(
    {
        "type", "format", "title", "description", "default", "items", "enum", "properties", "required",
        "pattern", "minimum", "maximum", "additionalProperties", "anyOf", "oneOf", "$defs", "$ref",
    }
)  # fmt: skip
#: Keywords that constrain values and are dropped before Gemini sees the schema (annotations such as
#: ``examples`` or ``$comment`` are dropped too, to no one's loss).
DROPPED_CONSTRAINTS = frozenset(
    {
        "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "not", "if", "then", "else", "prefixItems",
        "patternProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
        "unevaluatedProperties", "unevaluatedItems", "contains", "minContains", "maxContains", "nullable",
    }
)  # fmt: skip
#: Keywords whose loss can take a parameter's only type or value set away (``oneOf`` and an object-valued
#: ``additionalProperties`` survive the filter but ``from_json_schema`` never copies them).
DROPPED_SHAPES = ("const", "allOf", "oneOf", "$dynamicRef", "$recursiveRef")
_SHAPE_LEFT = ("type", "enum", "anyOf", "properties", "items", "$ref")
_FUNCTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$")
_PARAMETER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_DUMP_KEYS = {"$defs": "defs", "anyOf": "any_of", "oneOf": "one_of", "additionalProperties": "additional_properties"}


def filter_nodes(schema: Any) -> Iterator[tuple[list[Any], Any]]:
    """``(tokens, node)`` of every place ``_filter_to_supported_schema`` recurses into: ``items`` and
    ``additionalProperties``, ``anyOf``/``oneOf`` entries, ``properties``/``$defs`` values (``node`` may be a
    boolean or a list there: the filter raises AttributeError calling ``.items()`` on it)."""
    stack: list[tuple[list[Any], Any]] = [([], schema)]
    seen = 0
    while stack and seen < 20_000:
        tokens, node = stack.pop()
        seen += 1
        yield tokens, node
        if not isinstance(node, dict):
            continue
        for kw in ("items", "additionalProperties"):
            if kw in node:
                stack.append((tokens + [kw], node[kw]))
        for kw in ("anyOf", "oneOf"):
            if isinstance(node.get(kw), list):
                stack += [(tokens + [kw, i], v) for i, v in enumerate(node[kw])]
        for kw in ("properties", "$defs"):
            if isinstance(node.get(kw), dict):
                stack += [(tokens + [kw, k], v) for k, v in node[kw].items()]


def _booleans(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in filter_nodes(tool.input_schema):
        if tokens and not isinstance(node, dict):
            words = f"{quoted(node)} where a schema is expected: _filter_to_supported_schema raises AttributeError"
            kw = next(
                (t for t in reversed(tokens) if isinstance(t, str) and t in ("items", "additionalProperties")), None
            )
            out.append(Hit(pointer(tokens), parameter_of(tokens), kw, words))
    return out


_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def _field_problem(kw: str, value: Any) -> str | None:
    """Why ``types.JSONSchema`` (pydantic) refuses ``value`` for the kept field ``kw``, or None."""
    if kw == "type":
        names = value if isinstance(value, list) else [value]
        if not all(isinstance(t, str) and t in _JSON_TYPES for t in names):
            return "is not a JSON type name (or a list of them)"
    elif kw == "required" and not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
        return "is not a list of names"
    elif kw == "enum" and not isinstance(value, list):
        return "is not a list"
    elif kw in ("description", "title", "format", "pattern", "$ref") and not isinstance(value, str):
        return "is not a string"
    elif kw in ("minimum", "maximum") and (
        isinstance(value, (list, dict)) or (isinstance(value, str) and not _numeric(value))
    ):
        return "is not a number"  # pydantic reads "0" as 0.0 (lax mode)
    elif kw in ("properties", "$defs") and not isinstance(value, dict):
        return "is not an object"
    return None


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _invalid_fields(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in filter_nodes(tool.input_schema):
        if not isinstance(node, dict):
            continue
        for kw in sorted(KEPT & node.keys()):
            why = _field_problem(kw, node[kw])
            if why:
                words = f"{kw} {quoted(node[kw])} {why}: types.JSONSchema raises ValidationError"
                out.append(Hit(pointer(tokens + [kw]), parameter_of(tokens), kw, words))
    return out


def _filtered(node: Any) -> Any:
    """The document as ``JSONSchema.model_dump()`` holds it (kept keys only, under their field names)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for kw, value in node.items():
        if kw not in KEPT:
            continue
        key = _DUMP_KEYS.get(kw, "ref" if kw == "$ref" else kw)
        if kw in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {k: _filtered(v) for k, v in value.items()}
        elif kw in ("anyOf", "oneOf") and isinstance(value, list):
            out[key] = [_filtered(v) for v in value]
        else:
            out[key] = _filtered(value) if kw in ("items", "additionalProperties") else value
    return out


def _resolve(ref: str, root: Any) -> Any:
    """What ``from_json_schema``'s ``_resolve_ref`` finds for ``ref``, or None where it raises."""
    current = root
    for part in ref.lstrip("#/").split("/"):
        part = "defs" if part == "$defs" else part
        if not isinstance(current, dict) or not isinstance(current.get(part), dict):
            return None
        current = current[part]
    return current


def _refs(tool: Tool) -> tuple[list[Hit], list[Hit]]:
    """(the ``$ref`` that make the conversion raise, the recursive ones it cuts off), following conversion."""
    root = tool.input_schema
    if not isinstance(root, dict) or any(tokens and not isinstance(n, dict) for tokens, n in filter_nodes(root)):
        return [], []
    dump = _filtered(root)
    raising: list[Hit] = []
    cut: list[Hit] = []
    stack: list[tuple[list[Any], Any, frozenset[str]]] = [([], root, frozenset())]
    while stack and len(raising) + len(cut) < 200:
        tokens, node, visiting = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in visiting:
                cut.append(
                    Hit(
                        pointer(tokens + ["$ref"]),
                        parameter_of(tokens),
                        "$ref",
                        f"recursive $ref {quoted(ref)} is cut off: the model sees an empty schema",
                    )
                )
                continue
            target = _resolve(ref, dump)
            if target is None:
                raising.append(
                    Hit(
                        pointer(tokens + ["$ref"]),
                        parameter_of(tokens),
                        "$ref",
                        f"$ref {quoted(ref)} does not resolve the way from_json_schema reads it: KeyError",
                    )
                )
                continue
            node, visiting = _unfiltered(ref, root) or {}, visiting | {ref}
        if isinstance(node.get("properties"), dict):
            stack += [(tokens + ["properties", k], v, visiting) for k, v in node["properties"].items()]
        if isinstance(node.get("items"), dict) and node["items"]:
            stack.append((tokens + ["items"], node["items"], visiting))
        if isinstance(node.get("anyOf"), list):
            stack += [(tokens + ["anyOf", i], v, visiting) for i, v in enumerate(node["anyOf"])]
    return raising, cut


def _unfiltered(ref: str, root: dict[str, Any]) -> dict[str, Any] | None:
    current: Any = root
    for part in ref.lstrip("#/").split("/"):
        if not isinstance(current, dict) or part not in current:
            return None
        current = current[part]
    return current if isinstance(current, dict) else None


def _constraints(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in filter_nodes(tool.input_schema):
        if not isinstance(node, dict) or tokens[-1:] == ["additionalProperties"]:
            continue
        for kw in sorted(DROPPED_CONSTRAINTS & node.keys()):
            out.append(
                Hit(
                    pointer(tokens + [kw]),
                    parameter_of(tokens),
                    kw,
                    f"{kw} is dropped: Gemini neither sees nor enforces it",
                )
            )
        if isinstance(node.get("additionalProperties"), dict):
            out.append(
                Hit(
                    pointer(tokens + ["additionalProperties"]),
                    parameter_of(tokens),
                    "additionalProperties",
                    "additionalProperties is never copied: the map's value type is lost",
                )
            )
    return out


def _shapes(tool: Tool) -> list[Hit]:
    out = []
    for tokens, node in filter_nodes(tool.input_schema):
        if not isinstance(node, dict) or tokens[-1:] == ["additionalProperties"]:
            continue
        lost = [kw for kw in DROPPED_SHAPES if kw in node]
        if lost:
            left = [kw for kw in _SHAPE_LEFT if kw in node]
            what = "keeps " + ", ".join(left) if left else "reaches Gemini as an untyped value ({})"
            words = f"{', '.join(lost)} dropped: the schema {what}"
            out.append(Hit(pointer(tokens + [lost[0]]), parameter_of(tokens), lost[0], words))
    return out


def _function_name(tool: Tool) -> list[Hit]:
    if _FUNCTION_NAME.match(tool.name):
        return []
    return [
        Hit(
            "",
            None,
            None,
            f"tool name {quoted(tool.name)}: must start with a letter or _, then a-z A-Z 0-9 _ . : -, at most 128",
        )
    ]


def _parameter_names(tool: Tool) -> list[Hit]:
    schema = tool.input_schema
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    return [
        Hit(
            pointer(["properties", key]),
            key,
            None,
            f"parameter name {quoted(key)}: must start with a letter or _, then a-z A-Z 0-9 _, at most 64",
        )
        for key in props
        if not _PARAMETER_NAME.match(key)
    ]


def _raising_refs(tool: Tool) -> list[Hit]:
    return _refs(tool)[0]


def _recursive_refs(tool: Tool) -> list[Hit]:
    return _refs(tool)[1]


CONVERT_FAILS = "converting the session's tools raises, so the request carrying every tool of the server fails"
DECLARATION = "google-genai 3.6.1 google/genai/types.py FunctionDeclaration (name, parameters field documentation)"
RULES: tuple[HostRule, ...] = (
    HostRule(
        id="gemini-boolean-schema",
        hosts=("gemini",),
        effect="fails-listing",
        title="A boolean (or array) where google-genai expects a schema",
        behaviour="_filter_to_supported_schema calls .items() on additionalProperties, items, a union entry or a "
        "property schema: a boolean (additionalProperties: false included) or an items array raises "
        "AttributeError; " + CONVERT_FAILS,
        source=GENAI,
        evidence="code",
        before='{"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false}',
        fix="leave additionalProperties out (Gemini ignores it anyway); {} instead of true",
        check=_booleans,
    ),
    HostRule(
        id="gemini-invalid-field",
        hosts=("gemini",),
        effect="fails-listing",
        title="A kept keyword whose value google-genai's model refuses",
        behaviour="the filtered schema is loaded into types.JSONSchema (pydantic): a type that is not a JSON type "
        "name, a required that is not a list of names, a non-string description… raises ValidationError; "
        + CONVERT_FAILS,
        source=GENAI + "; google-genai 3.6.1 google/genai/types.py JSONSchema",
        evidence="code",
        before='{"type": "object", "properties": {"q": {"type": "string", "required": true}}}',
        fix="the 2020-12 spelling (required as an array on the parent object, a JSON type name)",
        check=_invalid_fields,
    ),
    HostRule(
        id="gemini-unresolved-ref",
        hosts=("gemini",),
        effect="fails-listing",
        title="A $ref from_json_schema cannot resolve",
        behaviour="from_json_schema resolves a $ref by walking '#/…' through the filtered document ($defs only; "
        "definitions, '#', remote and escaped references are not there): KeyError; " + CONVERT_FAILS,
        source=FROM_JSON,
        evidence="code",
        before=(
            '{"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": '
            '"string"}}}'
        ),
        fix="local definitions under $defs, or the schema inlined",
        check=_raising_refs,
    ),
    HostRule(
        id="gemini-recursive-ref",
        hosts=("gemini",),
        effect="drops-keyword",
        title="A recursive $ref is cut off",
        behaviour="from_json_schema returns an empty Schema for a $ref it is already resolving: the recursive part "
        "reaches Gemini without a type",
        source=FROM_JSON,
        evidence="code",
        before=(
            '{"type": "object", "properties": {"tree": {"$ref": "#/$defs/N"}}, "$defs": {"N": {"type": "object", '
            '"properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}}}'
        ),
        fix="a bounded depth spelled out, or a JSON string for the recursive part",
        check=_recursive_refs,
    ),
    HostRule(
        id="gemini-dropped-constraint",
        hosts=("gemini",),
        effect="drops-keyword",
        title="A constraint keyword is dropped",
        behaviour="the filter keeps only the keys of types.JSONSchema spelled as in JSON Schema: minLength, "
        "maxLength, minItems, maxItems, exclusive bounds, multipleOf, uniqueItems, not, if/then/else, "
        "patternProperties, dependent*, unevaluated*, prefixItems, nullable are dropped; an object-valued "
        "additionalProperties is never copied",
        source=GENAI + "; " + FROM_JSON,
        evidence="code",
        before='{"type": "object", "properties": {"code": {"type": "string", "minLength": 3, "maxLength": 3}}}',
        fix="pattern, minimum, maximum and enum survive; say the rest in the description",
        check=_constraints,
    ),
    HostRule(
        id="gemini-dropped-shape",
        hosts=("gemini",),
        effect="drops-keyword",
        title="const, allOf, oneOf or $dynamicRef is dropped",
        behaviour="const and allOf are filtered out and oneOf is never copied by from_json_schema: a parameter "
        "whose type or values came from them reaches Gemini untyped",
        source=GENAI + "; " + FROM_JSON,
        evidence="code",
        before='{"type": "object", "properties": {"mode": {"const": "fast"}}}',
        fix='enum for const ({"type": "string", "enum": ["fast"]}), anyOf for oneOf, allOf merged by hand',
        check=_shapes,
    ),
    HostRule(
        id="gemini-function-name",
        hosts=("gemini",),
        effect="fails-listing",
        title="Tool name Gemini does not accept",
        behaviour="a function name must start with a letter or an underscore and hold only a-z, A-Z, 0-9, _, ., "
        ":, - (at most 128): the API rejects the request",
        source=DECLARATION,
        evidence="docs",
        before='tool name "2fa/verify"',
        fix="a name starting with a letter, without / or spaces",
        check=_function_name,
    ),
    HostRule(
        id="gemini-parameter-name",
        hosts=("gemini",),
        effect="fails-listing",
        title="Parameter name Gemini does not accept",
        behaviour="parameter names must start with a letter or an underscore and hold only a-z, A-Z, 0-9, _ (at "
        "most 64): the API rejects the request",
        source=DECLARATION,
        evidence="docs",
        before='{"type": "object", "properties": {"user-id": {"type": "string"}}}',
        fix="snake_case parameter names",
        check=_parameter_names,
    ),
)
