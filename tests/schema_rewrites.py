"""Rewrites of generated schemas for the property cross-check (``test_property_crosscheck.py``): the
positions of subschemas (``map_subschemas``), objects closed for instance generation (``close_objects``),
the schema as a TS SDK host's Ajv reads it (``ajv_view``, ``strip_nullable``), and the input
hypothesis-jsonschema can generate from (``for_hypothesis_jsonschema``).
"""

from __future__ import annotations

from typing import Any

# -- schema positions ----------------------------------------------------------------------------------
#: keywords whose value is one subschema / a name → subschema map / a list of subschemas
_SINGLE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def map_subschemas(schema: Any, fn: Any) -> Any:
    """A copy of ``schema`` with ``fn`` applied to each direct subschema (schema positions only:
    never ``enum``/``const`` values, property names or ``required`` lists)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for kw in _SINGLE:
        if isinstance(out.get(kw), (dict, bool)):
            out[kw] = fn(out[kw])
    for kw in _MAPS:
        if isinstance(out.get(kw), dict):
            out[kw] = {k: fn(v) if isinstance(v, (dict, bool)) else v for k, v in out[kw].items()}
    for kw in _LISTS:
        if isinstance(out.get(kw), list):
            out[kw] = [fn(v) for v in out[kw]]
    return out


# -- closing for instance generation -------------------------------------------------------------------
#: positions where narrowing a subschema narrows the whole schema (and which ``close_objects`` enters)
_MONOTONE_SINGLE = ("items", "additionalProperties", "additionalItems")
_MONOTONE_MAPS = ("properties", "patternProperties")
_MONOTONE_LISTS = ("anyOf", "allOf", "prefixItems", "items")
#: everything else with subschemas: negative (``not``), mixed (``if``, ``oneOf``, ``contains`` with
#: ``maxContains``), or in-place parts of the parent object that closing would over-restrict
#: (``then``/``else``/``dependentSchemas``): never entered, nor are the ``$defs`` they reach
_OTHER = (
    "not",
    "if",
    "then",
    "else",
    "oneOf",
    "contains",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "unevaluatedItems",
    "unevaluatedProperties",
)


def close_objects(schema: Any) -> Any:
    """A copy of ``schema`` narrowed to the values it *declares*, for drawing instances.

    Every object subschema whose ``additionalProperties`` only *tolerates* extra keys (absent,
    ``true``, ``{}``, annotations only, or a local ``$ref`` to one of those) gets
    ``additionalProperties: false``; every tuple (``prefixItems``) whose tail is only tolerated (no
    ``items``, ``unevaluatedItems`` absent or tolerant) gets ``items: false``. docs/verdicts.md (Direction and
    severity):
    ``properties``, ``prefixItems``, ``patternProperties`` and ``additionalProperties`` *schemas* are
    declarations, an open object is not; so ``{"type": "object"}`` declares only ``{}``, and
    ``additionalProperties: {"type": "string"}`` is kept.

    The result is a subset of ``schema``: it only adds constraints at *monotone* positions (the root,
    ``properties``/``patternProperties`` values, ``items``/``prefixItems``, ``additionalProperties``
    schemas, ``anyOf``/``allOf`` branches, and the ``$defs`` reached from those only), where a
    narrower subschema can only make the whole narrower. It never enters ``not`` (negative), ``if``,
    ``oneOf`` and ``contains`` (``maxContains`` counts matches, so a narrower ``contains`` can accept
    more arrays) — closing there could *widen* the schema —, nor ``then``/``else``/
    ``dependentSchemas`` (partial constraints on their parent object: closing them would forbid the
    parent's own keys), and it leaves alone every ``$defs`` entry that a ``$ref`` in one of those
    positions reaches (transitively). When such a ``$ref`` points anywhere but into ``$defs``, nothing is
    closed. ``test_property_crosscheck.py`` re-validates every drawn instance against the original
    schema regardless, and skips those it rejects.
    """
    tainted = _tainted_defs(schema)
    if tainted is None:
        return schema
    return _close(schema, schema, tainted)


def _close(schema: Any, root: Any, tainted: set[str]) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for kw in _MONOTONE_MAPS:
        if isinstance(out.get(kw), dict):
            out[kw] = {k: _close(v, root, tainted) for k, v in out[kw].items()}
    for kw in ("$defs", "definitions"):
        if isinstance(out.get(kw), dict):
            out[kw] = {k: v if f"{kw}/{k}" in tainted else _close(v, root, tainted) for k, v in out[kw].items()}
    for kw in _MONOTONE_SINGLE:
        if isinstance(out.get(kw), dict):
            out[kw] = _close(out[kw], root, tainted)
    for kw in _MONOTONE_LISTS:
        if isinstance(out.get(kw), list):
            out[kw] = [_close(v, root, tainted) for v in out[kw]]
    types = out.get("type")
    is_object = (
        types == "object"
        or (isinstance(types, list) and "object" in types)
        or "properties" in out
        or "patternProperties" in out
    )
    if is_object and _tolerates_anything(schema.get("additionalProperties", True), root):
        out["additionalProperties"] = False
    if (
        isinstance(out.get("prefixItems"), list)
        and "items" not in out
        and _tolerates_anything(schema.get("unevaluatedItems", True), root)
    ):
        out["items"] = False
    return out


def _tainted_defs(schema: Any) -> set[str] | None:
    """``"$defs/<name>"`` for every definition a ``$ref`` at a non-monotone position reaches
    (transitively); ``None`` when such a ``$ref`` points outside ``$defs``/``definitions``."""
    refs: list[str] = []

    def all_refs(node: Any) -> None:  # every $ref anywhere below node (over-approximates: that is safe)
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for v in node.values():
                all_refs(v)
        elif isinstance(node, list):
            for v in node:
                all_refs(v)

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        for kw in _OTHER:
            if kw in node:
                all_refs(node[kw])

        def visit(sub: Any) -> Any:
            walk(sub)
            return sub

        map_subschemas({k: v for k, v in node.items() if k not in _OTHER}, visit)

    walk(schema)
    tainted: set[str] = set()
    while refs:
        ref = refs.pop()
        parts = ref.split("/")
        if len(parts) < 3 or parts[0] != "#" or parts[1] not in ("$defs", "definitions"):
            return None
        key = f"{parts[1]}/{parts[2].replace('~1', '/').replace('~0', '~')}"
        if key in tainted:
            continue
        tainted.add(key)
        target = (
            schema.get(parts[1], {}).get(parts[2].replace("~1", "/").replace("~0", "~"))
            if isinstance(schema, dict) and isinstance(schema.get(parts[1]), dict)
            else None
        )
        all_refs(target)
    return tainted


_ANNOTATIONS = {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"}


def _tolerates_anything(schema: Any, root: Any) -> bool:
    """``true``, ``{}``, a schema of annotations only, or a local ``$ref`` to one (all ≡ ``true``)."""
    for _ in range(16):
        if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/")):
            break
        if set(schema) - _ANNOTATIONS - {"$ref"}:
            return False
        target: Any = root
        for tok in schema["$ref"][2:].split("/"):
            tok = tok.replace("~1", "/").replace("~0", "~")
            if not (isinstance(target, dict) and tok in target):
                return False
            target = target[tok]
        schema = target
    return schema is True or (isinstance(schema, dict) and set(schema) <= _ANNOTATIONS)


# -- host readings -----------------------------------------------------------------------------------
class AjvCompileError(ValueError):
    """Ajv refuses to compile the schema (the host then rejects every value)."""


def ajv_view(schema: Any) -> Any:
    """``schema`` as Ajv reads OpenAPI ``nullable`` (both TS SDK host profiles), as plain JSON Schema.

    Ajv's ``getSchemaTypes`` (``lib/compile/validate/dataType.ts``, checked against ajv 8 with the
    SDKs' options): ``nullable: true`` beside ``type`` adds "null" to the types (``enum``/``const``
    still apply: ``{type: "string", enum: ["a"], nullable: true}`` rejects null); ``nullable``
    without ``type`` and ``nullable: false`` beside a type listing "null" do not compile
    (``AjvCompileError``). Everything else is unchanged; python ``jsonschema`` treats ``nullable``
    as an annotation, so it is simply removed.
    """
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, ajv_view)
    if "nullable" in out:
        flag = out.pop("nullable")
        t = out.get("type")
        if not isinstance(t, (str, list)):
            raise AjvCompileError('"nullable" cannot be used without "type"')
        types = [t] if isinstance(t, str) else list(t)
        if "null" in types:
            if flag is False:
                raise AjvCompileError("type: null contradicts nullable: false")
        elif flag is True:
            out["type"] = types + ["null"]
    return out


def strip_nullable(schema: Any) -> Any:
    """``schema`` without OpenAPI ``nullable`` (an annotation to python ``jsonschema``)."""
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, strip_nullable)
    out.pop("nullable", None)
    return out


def for_hypothesis_jsonschema(schema: Any) -> Any:
    """A draft-07 rendering of a 2020-12 ``schema`` for hypothesis-jsonschema 0.23, which knows
    draft-04..07 only and silently ignores ``prefixItems``, ``unevaluatedItems``, ``dependentSchemas``,
    ``dependentRequired``, ``minContains`` and ``maxContains`` (it would draw from a much larger set).

    - ``prefixItems: L`` + ``items: S`` (or ``unevaluatedItems: S``) → ``items: L, additionalItems: S``;
      ``unevaluatedItems: S`` without ``prefixItems``/``items`` → ``items: S`` (exact while nothing
      else evaluates items; otherwise a subset);
    - ``dependentSchemas`` / ``dependentRequired`` → ``dependencies`` (exact);
    - ``contains: C, minContains: m`` (m >= 2) → the first m items are ``allOf: [C, items]``
      (a subset: the matches come first); ``minContains: 0`` → no ``contains``; ``maxContains``
      dropped (a superset);
    - ``if: I, then: T, else: E`` with ``I`` one of the shapes the generator emits (``{properties:
      {k: S}, required: [k]}``, ``{properties: {k: S}}``, ``{required: [k]}``) → ``anyOf: [I ∧ T,
      {properties: {k: {not: S}}, required: [k]} ∧ E, {properties: {k: false}} ∧ E]`` (exact: the
      negation of ``I`` spelled without negating an object, which makes hypothesis-jsonschema ~20x
      slower; other shapes are left to hypothesis-jsonschema's own ``if`` handling);
    - OpenAPI ``nullable`` dropped (the python ``jsonschema`` reading; apply ``ajv_view`` first
      for Ajv's).

    Not exact for ``maxContains`` (and ``minContains`` >= 2 only covers part of the arrays): callers
    must re-validate each drawn instance against the original schema.
    """
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, for_hypothesis_jsonschema)
    out.pop("nullable", None)
    if isinstance(out.get("prefixItems"), list):
        pre = out.pop("prefixItems")
        rest = out.pop("items", None)
        unevaluated = out.pop("unevaluatedItems", None)
        out["items"] = pre
        tail = rest if rest is not None else unevaluated
        if tail is not None:
            out["additionalItems"] = tail
    elif "unevaluatedItems" in out:
        unevaluated = out.pop("unevaluatedItems")
        if "items" not in out:
            out["items"] = unevaluated
    deps = dict(out.pop("dependencies", None) or {})
    for kw in ("dependentSchemas", "dependentRequired"):
        for key, value in (out.pop(kw, None) or {}).items():
            if key in deps:
                both = [{"required": d} if isinstance(d, list) else d for d in (deps[key], value)]
                deps[key] = {"allOf": both}
            else:
                deps[key] = value
    if deps:
        out["dependencies"] = deps
    if "if" in out:
        branches = _if_branches(out["if"], out.get("then", True), out.get("else", True))
        if branches is not None:
            for kw in ("if", "then", "else"):
                out.pop(kw, None)
            if "anyOf" in out:
                out["allOf"] = list(out.get("allOf", [])) + [{"anyOf": branches}]
            else:
                out["anyOf"] = branches
    if "contains" in out or "minContains" in out or "maxContains" in out:
        lo = out.pop("minContains", 1)
        out.pop("maxContains", None)
        contains = out.pop("contains", None)
        if contains is not None and isinstance(lo, int) and lo >= 1:
            max_items = out.get("maxItems")
            if lo == 1 or isinstance(out.get("items"), list) or (isinstance(max_items, int) and max_items < lo):
                out["contains"] = contains
            else:
                item = out.get("items", True)
                out["items"] = [contains if item in (True, {}) else {"allOf": [contains, item]}] * lo
                if item not in (True, {}):
                    out["additionalItems"] = item
    return out


def _conj(*schemas: Any) -> Any:
    parts = [x for x in schemas if x is not True and x != {}]
    if any(x is False for x in parts):
        return False
    return {} if not parts else parts[0] if len(parts) == 1 else {"allOf": parts}


def _if_branches(cond: Any, then: Any, els: Any) -> list[Any] | None:
    """``if cond then then else els`` as ``anyOf`` branches without ``not`` on an object (see
    ``for_hypothesis_jsonschema``); ``None`` for a shape of ``cond`` it does not know."""
    if cond is True or cond == {}:
        return [then]
    if cond is False:
        return [els]
    if not isinstance(cond, dict) or set(cond) - {"properties", "required"} - _ANNOTATIONS:
        return None
    props = cond.get("properties", {})
    required = cond.get("required", [])
    if not (isinstance(props, dict) and isinstance(required, list) and len(props) <= 1 and len(required) <= 1):
        return None
    if props and required and list(props) != required:
        return None
    if not props and not required:
        return [then]
    if props:
        ((key, test),) = props.items()
        out = [_conj(cond, then), _conj({"properties": {key: {"not": test}}, "required": [key]}, els)]
        if required:  # the key absent: cond fails
            out.append(_conj({"properties": {key: False}}, els))
    else:
        key = required[0]
        out = [_conj(cond, then), _conj({"properties": {key: False}}, els)]
    return [b for b in out if b is not False]
