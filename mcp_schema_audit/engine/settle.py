"""Settling one plain node: a ``Node`` made to read one way (the last step of ``normalize``).

No-op keywords dropped (annotations aside, ``propertyNames: {type: string}``, ``minLength: 0``,
``required: []``, keywords of a type the node excludes), ``enum``/``const`` folded with their type and
sibling keywords (the value set then stands for the node), integer bounds made inclusive, bounds at
the interoperability limit set aside in ``Node.limits``, a ``type`` list split into one branch per
type, and a union's branches settled (duplicates dropped, an ``anyOf`` branch another one covers
absorbed). Also the readings of raw nodes the rest of the engine shares (``tolerant``,
``type_list``, ``is_number``).
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from mcp_schema_audit.engine.issue import canon, value_key
from mcp_schema_audit.engine.nodes import ASSERTIONS, KEYWORDS_OF_TYPE, TYPED_KEYWORDS, Node, Tokens, union_branches
from mcp_schema_audit.engine.vacuous import (
    accepts_every_name,
    accepts_no_string,
    accepts_nothing,
    search_always_succeeds,
)
from mcp_schema_audit.schema import SchemaDoc, format_type, json_type, type_set

#: The interoperability limit of JSON numbers (RFC 7493 §2.2, I-JSON): ±(2^53−1).
INTEROP_LIMIT = 2**53 - 1
#: Keywords whose value is a schema that accepts everything when it is ``true`` or ``{}``.
_OPEN_WHEN_TRUE = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "additionalItems",
    "propertyNames",
)
#: Keywords some host profiles read differently (ECMAScript regexes, formats checked, Ajv's nullable).
_HOST_SENSITIVE = ('"pattern', '"format"', '"nullable"', '"dependencies"')


def tolerant(value: Any) -> Any:
    """A subschema that declares nothing reads as ``True``: ``{}``, annotations only, or only applicators that
    accept everything (``{"anyOf": [true]}``, ``{"allOf": [{}]}``, ``{"oneOf": [{}]}``: spellings of ``{}``)."""
    if isinstance(value, dict) and _accepts_all(value):
        return True
    return value


def _accepts_all(value: Any, depth: int = 0) -> bool:
    """Does schema ``value`` accept every instance, by its own keywords (no ``$ref`` followed)?"""
    if value is True:
        return True
    if not isinstance(value, dict) or depth > 8:
        return False
    for k, v in value.items():
        if k not in ASSERTIONS:
            continue  # an annotation
        if not isinstance(v, list) or not v:
            return False
        if k == "anyOf" and any(_accepts_all(b, depth + 1) for b in v):
            continue
        if k == "allOf" and all(_accepts_all(b, depth + 1) for b in v):
            continue
        if k == "oneOf" and len(v) == 1 and _accepts_all(v[0], depth + 1):
            continue
        return False
    return True


def is_number(x: Any) -> TypeGuard[int | float]:
    """A JSON number (``bool`` is not one)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def type_list(node: dict[str, Any]) -> list[str] | None:
    """The JSON types ``node``'s ``type`` allows, in order, ``integer`` dropped beside ``number``; None
    without a (valid) ``type``."""
    ts = node.get("type")
    if isinstance(ts, str):
        return [ts]
    if isinstance(ts, list) and ts and all(isinstance(t, str) for t in ts):
        out = list(dict.fromkeys(ts))
        return [t for t in out if not (t == "integer" and "number" in out)]
    return None


def value_set(node: dict[str, Any]) -> list[Any] | None:
    """The closed value set of ``node`` (const, enum, or a null/boolean-only type), filtered by its
    own ``type``; None when values are not enumerable."""
    ts = type_set(node)
    if "const" in node:
        vals = [node["const"]]
    elif isinstance(node.get("enum"), list):
        vals = list(node["enum"])
    elif ts is not None and ts and ts <= {"null", "boolean"}:
        vals = ([None] if "null" in ts else []) + ([True, False] if "boolean" in ts else [])
    else:
        return None
    if ts is not None:
        vals = [x for x in vals if json_type(x) in ts or (json_type(x) == "integer" and "number" in ts)]
    return vals


def finish(node: Node, doc: SchemaDoc, merged: bool = False) -> Any:
    """Drop no-ops, fold ``enum``/``const`` with their type, make integer bounds inclusive, set the
    interoperability bounds aside, split a ``type`` list into branches. Idempotent. ``merged``: the node
    is an intersection of several schema objects (a value set they leave empty accepts nothing)."""
    if union_branches(node) is not None:
        return node
    if "additionalProperties" in node and "unevaluatedProperties" in node:
        # additionalProperties evaluates every key properties and patternProperties leave: unevaluatedProperties
        # beside it sees no key (JSON Schema Core 2020-12 §11.3), whatever either says (``additionalProperties:
        # true`` beside ``unevaluatedProperties: false`` is an open object, not a closed one)
        del node["unevaluatedProperties"]
    for kw in _OPEN_WHEN_TRUE:
        if kw in node and tolerant(node[kw]) is True:
            del node[kw]
    if isinstance(node.get("pattern"), str) and search_always_succeeds(node["pattern"]):
        del node["pattern"]  # found in every string (``a*``, ``x?``, ``(a|)``): it accepts every string
    pn = node.get("propertyNames")
    if isinstance(pn, dict) and accepts_every_name({k: v for k, v in pn.items() if k in ASSERTIONS}):
        del node["propertyNames"]  # property names are always strings, and these keywords accept every one
    elif "propertyNames" in node and accepts_no_string(pn):
        # no name is accepted: the object has no property (maxProperties 0, found at propertyNames)
        origin = node.where(["propertyNames"])
        del node["propertyNames"]
        if not (is_number(node.get("maxProperties")) and node["maxProperties"] <= 0):
            node["maxProperties"] = 0
            node.origin["maxProperties"] = origin
    for kw in ("minLength", "minItems", "minProperties"):
        if node.get(kw) == 0 and not isinstance(node.get(kw), bool):
            del node[kw]
    for kw, empty in (
        ("required", []),
        ("properties", {}),
        ("patternProperties", {}),
        ("dependentRequired", {}),
        ("dependentSchemas", {}),
        ("uniqueItems", False),
        ("nullable", False),
        ("allOf", []),
    ):
        if kw in node and node[kw] == empty and type(node[kw]) is type(empty):
            del node[kw]
    if node.get("minContains") == 1 and "contains" in node and not isinstance(node["minContains"], bool):
        del node["minContains"]
    for kw in ("exclusiveMinimum", "exclusiveMaximum"):
        if node.get(kw) is False:
            del node[kw]
    types = type_list(node)
    if isinstance(node.get("type"), list) and types is not None and len(types) == 1:
        node["type"] = types[0]
    if "format" in node and not _format_asserted(node["format"], types):
        del node["format"]  # a format no host asserts on the node's types constrains nothing
    values = node.get("enum") if isinstance(node.get("enum"), list) else ([node["const"]] if "const" in node else None)
    if values is not None:
        return _fold_values(node, values, types, doc, merged)
    if types is not None:
        allowed = set().union(*(KEYWORDS_OF_TYPE.get(t, frozenset()) for t in types))
        for kw in [k for k in node if k in TYPED_KEYWORDS and k not in allowed]:
            del node[kw]
        if node.get("multipleOf") == 1 and types == ["integer"]:
            del node["multipleOf"]
        if "integer" in types or "number" in types:
            _inclusive_bounds(node, integer=types == ["integer"])
        if len(types) > 1:
            return _split(node, types, doc)
        if accepts_nothing(node, types):
            return False  # a node with an empty value set (minimum above maximum, …) accepts nothing
    elif any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        _inclusive_bounds(node, integer=False)
    return node


def _format_asserted(fmt: Any, types: list[str] | None) -> bool:
    """Does some host profile assert ``format: fmt`` on a value of one of ``types`` (None: every type)? A format
    ajv-formats does not define (or one that accepts every value) binds no host, and a format binds only the JSON
    type it is defined for (a string format on an integer passes, as Ajv compiles it)."""
    kind = format_type(fmt)
    if kind is None:
        return False
    return types is None or any(t == kind or (kind == "number" and t == "integer") for t in types)


def _fold_values(node: Node, values: list[Any], types: list[str] | None, doc: SchemaDoc, merged: bool = False) -> Any:
    """An ``enum``/``const`` node: only the values its ``type`` and sibling keywords accept; the value set
    then stands for the whole node."""
    kw = "const" if "const" in node else "enum"
    if "const" in node and isinstance(node.get("enum"), list):
        keys = {value_key(x) for x in node["enum"]}
        values = [x for x in values if value_key(x) in keys]
    if types is not None:
        values = [x for x in values if json_type(x) in types or (json_type(x) == "integer" and "number" in types)]
    kept_by_type = bool(values)
    rest = {k: v for k, v in node.items() if k not in ("enum", "const", "type", "$id")}
    if rest and values and len(values) <= 1000:
        try:
            check = doc.validator_for(rest)
            values = [x for x in values if _accepts(check, x)]
        except Exception:  # an uncompilable or hostile sibling decides nothing: values kept
            pass
    if not values:
        # no value is left: the node accepts nothing (an intersection, or a type beside a disjoint enum), unless
        # Python alone dropped the values for a keyword hosts read differently: then it stays, for the walk
        typed_out = not kept_by_type
        return False if merged or typed_out or not any(k in canon(rest) for k in _HOST_SENSITIVE) else node
    out = Node({kw: values[0] if kw == "const" else values}, node.at, {kw: node.where([kw])})
    if any(k in canon(rest) for k in _HOST_SENSITIVE):
        # Python filtered the values; hosts reading these keywords differently (ECMAScript regexes,
        # formats, nullable) may reject some of them: the keywords stay, for the per-host comparison
        out.update(rest)
        out.origin.update({k: node.where([k]) for k in rest})
    return out


def _inclusive_bounds(node: Node, integer: bool) -> None:
    """Integer bounds made inclusive; bounds at the interoperability limit moved to ``node.limits``."""
    if integer:
        for incl, excl, lower in (("minimum", "exclusiveMinimum", True), ("maximum", "exclusiveMaximum", False)):
            best: tuple[Any, str] | None = None
            for kw in (incl, excl):
                x = node.get(kw)
                if not is_number(x) or not math.isfinite(x):
                    continue
                exclusive = kw == excl or node.get(excl) is True
                if exclusive and kw == incl:
                    continue  # draft-04 boolean exclusiveMinimum: handled with its number below
                v = (
                    (math.floor(x) + 1 if exclusive else math.ceil(x))
                    if lower
                    else (math.ceil(x) - 1 if exclusive else math.floor(x))
                )
                if best is None or (v > best[0] if lower else v < best[0]):
                    best = (v, kw)
            if isinstance(node.get(excl), bool) and is_number(node.get(incl)) and math.isfinite(node[incl]):
                x = node[incl]
                v = (
                    (math.floor(x) + 1 if node[excl] else math.ceil(x))
                    if lower
                    else (math.ceil(x) - 1 if node[excl] else math.floor(x))
                )
                if best is None or (v > best[0] if lower else v < best[0]):
                    best = (v, incl)
            if best is None:
                continue
            origin = node.where([best[1]])
            node.pop(excl, None)
            node[incl] = int(best[0])
            node.origin[incl] = origin
    for incl, excl, lower in (("minimum", "exclusiveMinimum", True), ("maximum", "exclusiveMaximum", False)):
        for kw in (incl, excl):
            x = node.get(kw)
            if is_number(x) and (x <= -INTEROP_LIMIT if lower else x >= INTEROP_LIMIT):
                node.limits[kw] = x
                del node[kw]


def _split(node: Node, types: list[str], doc: SchemaDoc) -> Any:
    """A node with a ``type`` list as one branch per type (nullable spellings coincide)."""
    branches = []
    for t in types:
        allowed = KEYWORDS_OF_TYPE.get(t, frozenset())
        b = Node({k: v for k, v in node.items() if k not in TYPED_KEYWORDS or k in allowed}, node.at, dict(node.origin))
        b["type"] = t
        b.origin["type"] = node.where(["type"])
        if "null" in types:
            b.pop("nullable", None)
        b.limits = dict(node.limits) if t in ("integer", "number") else {}
        branches.append(finish(b, doc))
    return settle_union("anyOf", [b for b in branches if b is not False], node.at, doc)


def settle_union(kind: str, branches: list[Any], at: Tokens, doc: SchemaDoc) -> Any:
    """Branches deduplicated (and, in an ``anyOf``, enum branches another branch covers absorbed)."""
    if kind == "anyOf":  # in a oneOf, two equal branches reject every value they accept: kept
        seen: dict[str, Any] = {}
        for b in branches:
            seen.setdefault(canon(b), b)
        branches = list(seen.values())
    out = branches
    if kind == "anyOf" and len(out) > 1:
        out = [b for i, b in enumerate(out) if not _absorbed(b, [o for j, o in enumerate(out) if j != i], doc)]
    if not out:
        return False
    if len(out) == 1:
        return out[0]
    return Node({kind: out}, at)


def _absorbed(branch: Node, others: list[Node], doc: SchemaDoc) -> bool:
    """Does another branch accept every value of ``branch``? Proven for a closed value set (``enum``/
    ``const``) another branch accepts, and for a branch of types a plain ``type`` branch covers
    (``{"type": "integer", …}`` beside ``{"type": "number"}``)."""
    types = type_list(branch)
    if types is not None and "enum" not in branch and "const" not in branch:
        for other in others:
            ot = type_list(other)
            if (
                set(other) == {"type"}
                and ot is not None
                and other is not branch
                and all(t in ot or (t == "integer" and "number" in ot) for t in types)
            ):
                return True
        return False
    values = (
        branch.get("enum")
        if isinstance(branch.get("enum"), list)
        else ([branch["const"]] if "const" in branch else None)
    )
    if values is None or len(values) > 1000:
        return False
    for other in others:
        if "enum" in other or "const" in other:
            continue
        try:
            check = doc.validator_for(other)
            if all(check.is_valid(x) for x in values):
                return True
        except Exception:  # an undecidable check absorbs nothing
            continue
    return False


def _accepts(check: Any, value: Any) -> bool:
    try:
        return bool(check.is_valid(value))
    except Exception:  # undecidable (hostile regex …): keep the value
        return True
