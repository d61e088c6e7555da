"""Host-profile validators: python ``jsonschema`` classes extended to read schemas as each host does
(Ajv's regexes, ``nullable``, formats and JS numbers for the TS profiles)."""

from __future__ import annotations

import functools
import re
from typing import Any

from mcp_schema_audit.schema.dialects import JS_SAFE
from mcp_schema_audit.schema.regex import _python_found, ecma_compile_error, ecma_search


def _ajv_always_valid(schema: Any, rules: frozenset[str]) -> bool:
    """Ajv ``alwaysValidSchema`` (lib/compile/util.ts): ``true``, or an object with no keyword of the class."""
    if isinstance(schema, bool):
        return schema
    return not isinstance(schema, dict) or not any(k in rules for k in schema)


def _extras_msg(extras: list[Any]) -> tuple[str, str]:
    return ", ".join(repr(extra) for extra in extras), ("was" if len(extras) == 1 else "were")


def _regex_keywords(found: Any, ajv_rules: frozenset[str] | None, dialect: str) -> dict[str, Any]:
    """Keyword functions for ``jsonschema.validators.extend`` whose regex searches use ``found(pattern, text)``.

    ``ajv_rules`` (the keywords of the Ajv class) selects Ajv's behaviour: every ``patternProperties``
    key is searched on its own (Ajv ``additionalProperties.ts``/``patternProperties.ts``) and nothing is
    searched for an always-valid subschema (Ajv compiles no code for it); ``None`` keeps jsonschema's.
    ``dialect`` ("2019-09", "2020-12", other) picks the ``unevaluatedProperties`` flavour.
    """
    from jsonschema.exceptions import ValidationError

    def matches_any(patterns: Any, key: str) -> bool:
        if ajv_rules is not None:
            return any(found(p, key) for p in patterns)
        joined = "|".join(patterns)  # jsonschema's _utils.find_additional_properties
        return bool(joined) and found(joined, key)

    def additional(instance: dict[str, Any], schema: dict[str, Any]) -> Any:
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for prop in instance:
            if prop not in properties and not (patterns and matches_any(patterns, prop)):
                yield prop

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not found(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patternProperties: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for pat, subschema in patternProperties.items():
            if ajv_rules is not None and _ajv_always_valid(subschema, ajv_rules):
                continue
            for k, v in instance.items():
                if found(pat, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=pat)

    def additional_properties(validator: Any, aP: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        if ajv_rules is not None and _ajv_always_valid(aP, ajv_rules):
            return
        extras = set(additional(instance, schema))
        if validator.is_type(aP, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], aP, path=extra)
        elif not aP and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
            else:
                error = "Additional properties are not allowed (%s %s unexpected)"
                yield ValidationError(error % _extras_msg(sorted(extras, key=str)))

    def applied_keys(recurse: Any, validator: Any, instance: Any, schema: Any) -> list[Any]:
        # the part both versions share: patternProperties (through ``found``) and the in-place applicators
        keys: list[Any] = []
        if "patternProperties" in schema:
            for prop in instance:
                for pat in schema["patternProperties"]:
                    if found(pat, prop):
                        keys.append(prop)
        if "dependentSchemas" in schema:
            for prop, subschema in schema["dependentSchemas"].items():
                if prop in instance:
                    keys += recurse(validator, instance, subschema)
        for kw in ("allOf", "oneOf", "anyOf"):
            for subschema in schema.get(kw, []):
                if next(validator.descend(instance, subschema), None) is None:
                    keys += recurse(validator, instance, subschema)
        if "if" in schema:
            if validator.evolve(schema=schema["if"]).is_valid(instance):
                keys += recurse(validator, instance, schema["if"])
                if "then" in schema:
                    keys += recurse(validator, instance, schema["then"])
            elif "else" in schema:
                keys += recurse(validator, instance, schema["else"])
        return keys

    def evaluated_keys_2020(validator: Any, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_utils.py find_evaluated_property_keys_by_schema, searches through ``found``
        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        for kw in ("$ref", "$dynamicRef"):
            ref = schema.get(kw)
            if ref is not None:
                resolved = validator._resolver.lookup(ref)
                keys.extend(
                    evaluated_keys_2020(
                        validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                        instance,
                        resolved.contents,
                    )
                )
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys += properties.keys() & instance.keys()
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(kw)) is None:
                continue
            keys += (key for key, value in instance.items() if next(validator.descend(value, subschema), None) is None)
        return keys + applied_keys(evaluated_keys_2020, validator, instance, schema)

    def evaluated_keys_2019(validator: Any, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_legacy_keywords.py find_evaluated_property_keys_by_schema, searches through ``found``
        from referencing.jsonschema import lookup_recursive_ref

        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        resolved_refs = []
        if schema.get("$ref") is not None:
            resolved_refs.append(validator._resolver.lookup(schema["$ref"]))
        if "$recursiveRef" in schema:
            resolved_refs.append(lookup_recursive_ref(validator._resolver))
        for resolved in resolved_refs:
            keys.extend(
                evaluated_keys_2019(
                    validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), instance, resolved.contents
                )
            )
        for kw in ("properties", "additionalProperties", "unevaluatedProperties"):
            if kw in schema:
                value = schema[kw]
                if validator.is_type(value, "boolean") and value:
                    keys += instance.keys()
                elif validator.is_type(value, "object"):
                    keys += [prop for prop in value if prop in instance]
        return keys + applied_keys(evaluated_keys_2019, validator, instance, schema)

    evaluated_keys = evaluated_keys_2019 if dialect == "2019-09" else evaluated_keys_2020

    def unevaluated_properties(validator: Any, uP: Any, instance: Any, schema: Any) -> Any:
        # jsonschema/_keywords.py unevaluatedProperties (the 2019-09 one differs only in its helper)
        if not validator.is_type(instance, "object"):
            return
        evaluated = evaluated_keys(validator, instance, schema)
        unevaluated = []
        for prop in instance:
            if prop not in evaluated:
                for _ in validator.descend(instance[prop], uP, path=prop, schema_path=prop):
                    unevaluated.append(prop)  # noqa: PERF401
        if unevaluated:
            if uP is False:
                error = "Unevaluated properties are not allowed (%s %s unexpected)"
                yield ValidationError(error % _extras_msg(sorted(unevaluated, key=str)))
            else:
                error = "Unevaluated properties are not valid under the given schema (%s %s unevaluated and invalid)"
                yield ValidationError(error % _extras_msg(unevaluated))

    out = {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}
    if dialect in ("2019-09", "2020-12"):
        out["unevaluatedProperties"] = unevaluated_properties
    return out


def equality_key(value: Any) -> Any:
    """A hashable key such that two parsed JSON values have equal keys exactly when jsonschema's
    ``_utils.equal`` calls them equal: ``1`` and ``1.0`` equal, ``true`` and ``1`` not, objects whatever
    their key order, arrays element by element; a NaN equals only itself (the same object).

    Raises ``RecursionError`` for absurd nesting, as jsonschema's own comparison would."""
    if value is True or value is False or value is None:
        return ("b", value) if value is not None else ("z",)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, float):
        if value != value:
            return ("nan", id(value))
        return ("n", int(value)) if value.is_integer() else ("n", value)
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, list):
        return ("l", tuple(equality_key(x) for x in value))
    if isinstance(value, dict):
        return ("d", frozenset((k, equality_key(x)) for k, x in value.items()))
    return ("o", id(value))


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    """``uniqueItems`` as Ajv reads it (no two items deep-equal), in linear time through ``equality_key``, with
    jsonschema's message."""
    from jsonschema.exceptions import ValidationError

    if unique and validator.is_type(instance, "array"):
        keys = [equality_key(item) for item in instance]
        if len(set(keys)) != len(keys):
            yield ValidationError(f"{instance!r} has non-unique elements")


def _jsonschema_unique(items: list[Any]) -> bool:
    """jsonschema's own verdict (``_utils.uniq``, which the Python SDK client runs): items that sort are compared
    with their neighbours only, so ``[[false, 0], [false, false], [false, 0]]`` passes (Python orders ``0`` and
    ``false`` alike, and the equal items are not neighbours); items that do not sort are compared all with all,
    which is ``equality_key`` uniqueness, here in linear time instead of jsonschema's quadratic one (a 0.7 MB
    array of 30,000 objects in a tool result took minutes)."""
    from jsonschema._utils import equal, unbool

    try:
        ordered = sorted(unbool(item) for item in items)
        return not any(equal(one, two) for one, two in zip(ordered, ordered[1:], strict=False))
    except TypeError:  # unorderable items (objects, mixed types): jsonschema's all-pairs path
        keys = [equality_key(item) for item in items]
        return len(set(keys)) == len(keys)


def _python_unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    """jsonschema's ``uniqueItems`` (same verdict, same message), without its quadratic fallback."""
    from jsonschema.exceptions import ValidationError

    if unique and validator.is_type(instance, "array") and not _jsonschema_unique(instance):
        yield ValidationError(f"{instance!r} has non-unique elements")


def _ajv_type(base_type: Any) -> Any:
    """jsonschema's ``type`` plus Ajv's OpenAPI ``nullable``: ``nullable: true`` next to ``type`` adds
    ``"null"`` to the allowed types (Ajv lib/compile/validate/dataType.ts ``getSchemaTypes``; the
    misuses Ajv refuses to compile are found by ``_ajv_compile_problem``)."""

    def type_(validator: Any, types: Any, instance: Any, schema: Any) -> Any:
        if instance is None and isinstance(schema, dict) and schema.get("nullable") is True:
            return
        yield from base_type(validator, types, instance, schema)

    return type_


@functools.lru_cache(maxsize=64)
def _host_class(base: Any, ajv_kind: str | None, dialect: str) -> Any:
    """``base`` (a jsonschema validator class) extended for a host: guarded regex keywords, and for an
    Ajv class (``ajv_kind`` "draft-07", "2019-09" or "2020-12") ECMAScript regexes and ``nullable``.

    Built with ``jsonschema.validators.extend`` and no ``version``, so jsonschema's registry of
    meta-schema URIs (``validator_for``) is left alone; built once per (base, kind, dialect).
    """
    from jsonschema import validators

    if ajv_kind is None:
        overrides = _regex_keywords(_python_found, None, dialect)
    else:
        overrides = _regex_keywords(ecma_search, _AJV_RULES[ajv_kind], ajv_kind)
    if "uniqueItems" in base.VALIDATORS:
        overrides["uniqueItems"] = _unique_items if ajv_kind is not None else _python_unique_items
    if ajv_kind is not None:
        overrides["type"] = _ajv_type(base.VALIDATORS["type"])
        if "dependencies" not in base.VALIDATORS:
            # Ajv2019/Ajv2020 keep draft-07 ``dependencies`` (lib/vocabularies/applicator/index.ts); jsonschema's
            # 2019-09/2020-12 validators dropped it
            overrides["dependencies"] = validators.Draft7Validator.VALIDATORS["dependencies"]
        for kw in _JS_NUMBER_KEYWORDS:
            if kw in base.VALIDATORS:
                overrides[kw] = _as_js_numbers(overrides.get(kw, base.VALIDATORS[kw]))
    return validators.extend(base, overrides)


#: Keywords whose schema value and instance a TS host reads as JavaScript numbers (IEEE doubles).
_JS_NUMBER_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "const",
    "enum",
    "uniqueItems",
)


def js_numbers(value: Any) -> Any:
    """``value`` as ``JSON.parse`` gives it to a TS host: integers beyond 2**53 become the nearest double
    (9007199254740993 → 9007199254740992.0), at any depth; everything else unchanged."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value) if abs(value) > JS_SAFE else value
    if isinstance(value, list):
        return [js_numbers(x) for x in value]
    if isinstance(value, dict):
        return {k: js_numbers(x) for k, x in value.items()}
    return value


def _as_js_numbers(keyword: Any) -> Any:
    """A jsonschema keyword function that sees its schema value and the instance as JavaScript does."""

    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        return keyword(validator, js_numbers(value), js_numbers(instance), schema)

    return run


def _ajv_ref_siblings(schema: Any, depth: int = 0) -> Any:
    """Ajv 8 applies keywords beside ``$ref`` in every draft; draft-07 jsonschema ignores them.

    Returns a copy where ``{"$ref": R, k: v}`` becomes ``{"allOf": [{"$ref": R}], k: v}`` so the
    draft-07 validator sees what Ajv sees. Deeper than 400 levels the rest is left as it is.
    """
    if depth > 400:
        return schema
    if isinstance(schema, list):
        return [_ajv_ref_siblings(x, depth + 1) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: (v if k in ("enum", "const", "default", "examples") else _ajv_ref_siblings(v, depth + 1))
        for k, v in schema.items()
    }
    if isinstance(out.get("$ref"), str) and len(out) > 1:
        ref = out.pop("$ref")
        out["allOf"] = [{"$ref": ref}] + (out["allOf"] if isinstance(out.get("allOf"), list) else [])
    return out


_AJV_FORMAT_CHECKER: Any = None


_FORMAT_PATTERNS = {
    "uuid": r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    "duration": r"^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$",
    "byte": r"^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$",
    "date": r"^\d\d\d\d-[0-1]\d-[0-3]\d$",
    "hostname": r"^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$",
    "uri": r"^[a-z][a-z0-9+\-.]*:[^\s]*$",
    "url": r"^(?:https?|ftp):\/\/[^\s]+$",
    "json-pointer": r"^(?:\/(?:[^~/]|~0|~1)*)*$",
    "relative-json-pointer": r"^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$",
}


_AJV_Z_ANCHOR = re.compile(r"[^\\]\\Z")


def ajv_format_checker() -> Any:
    """A jsonschema ``FormatChecker`` approximating ajv-formats (what the TS SDKs enforce).

    Starts from every format jsonschema can check here and adds ajv-formats' ``uuid``, ``duration``,
    ``byte``, ``int32``/``int64``, ``float``/``double``, ``url`` and case-insensitive patterns;
    ``regex`` is ajv-formats' check (an ECMAScript regex without the ``u`` flag, no ``\\Z``).
    """
    global _AJV_FORMAT_CHECKER
    if _AJV_FORMAT_CHECKER is None:
        import re

        from jsonschema import FormatChecker

        checker = FormatChecker()
        for name, pattern in _FORMAT_PATTERNS.items():
            rx = re.compile(pattern, re.IGNORECASE)
            checker.checkers[name] = ((lambda rx: lambda v: not isinstance(v, str) or bool(rx.match(v)))(rx), ())  # noqa: B023

        def int_range(bits: int) -> Any:
            lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            return lambda v: (
                not isinstance(v, (int, float)) or isinstance(v, bool) or (float(v).is_integer() and lo <= v <= hi)
            )

        checker.checkers["int32"] = (int_range(32), ())
        checker.checkers["int64"] = (int_range(64), ())
        # ajv-formats formats.ts ``regex``: no "\\Z" anchor, and ``new RegExp(str)`` (no ``u`` flag) compiles
        checker.checkers["regex"] = (
            lambda v: (
                not isinstance(v, str) or (not _AJV_Z_ANCHOR.search(v) and ecma_compile_error(v, unicode=False) is None)
            ),
            (),
        )
        checker.checkers["float"] = (lambda v: True, ())
        checker.checkers["double"] = (lambda v: True, ())
        _AJV_FORMAT_CHECKER = checker
    return _AJV_FORMAT_CHECKER


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


_AJV_SCHEMA_TYPES_2019 = {
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


_AJV_SCHEMA_TYPES = {
    "draft-07": _AJV_SCHEMA_TYPES_07,
    "2019-09": _AJV_SCHEMA_TYPES_2019,
    "2020-12": {
        **{k: v for k, v in _AJV_SCHEMA_TYPES_2019.items() if k != "additionalItems"},
        "items": ("object", "boolean"),
        "prefixItems": ("array",),
    },
}


_AJV_RULES = {kind: frozenset(table) for kind, table in _AJV_SCHEMA_TYPES.items()}


#: The Ajv class each profile compiles a schema of this dialect with (None: the host refuses the dialect).
_AJV_KIND = {
    "ts-sdk-v1": lambda dialect: "draft-07",
    "ts-sdk-v2": lambda dialect: {
        "2020-12": "2020-12",
        "2019-09": "2019-09",
        "draft-07": "draft-07",
        "draft-06": "draft-07",
    }.get(dialect),
}


_AJV_CLASS_NAME = {"draft-07": "Ajv (draft-07)", "2019-09": "Ajv2019", "2020-12": "Ajv2020"}
