"""Witness building blocks: minimal valid instances of a schema, and candidate values near a bound.

``sample`` builds a small instance meant to be valid under a schema (required properties only,
``minItems`` copies, bounds respected). It is a best effort: the engine always confirms a witness
with a real validator before it calls a change breaking, so a sample that happens to be invalid
only costs a witness, never a wrong verdict.
"""

from __future__ import annotations

import math
from typing import Any

from mcp_schema_audit import guard
from mcp_schema_audit.engine.conditions import conditionals
from mcp_schema_audit.engine.formatted import asserted, formatted_strings
from mcp_schema_audit.engine.nodes import dict_at, int_at, list_at, union_list
from mcp_schema_audit.engine.regex_strings import regex_examples
from mcp_schema_audit.schema import RefError, SchemaDoc, ajv_conforms, type_set
from mcp_schema_audit.schema.quick import quick_valid

_TYPE_PREFERENCE = ("object", "string", "integer", "number", "boolean", "array", "null")
#: A valid example per format (what a server of that format sends), used for samples and format witnesses.
FORMAT_SAMPLES = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "duration": "P1D",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": "a",
    "uri-template": "https://example.com/{id}",
}
_STRING_CANDIDATES = ("", "a", "x", "abc", "A", "0", "1", "_", "-", "a-b", "a1", "ab12", "hello world", "Z9", "é")


class NoSample(Exception):
    """No instance could be built (``false`` schema, unresolvable ``$ref``, depth exceeded)."""


def deref(node: Any, doc: SchemaDoc, limit: int = 32) -> Any:
    """Follow ``$ref`` chains from ``node`` (siblings of ``$ref`` are merged over the target).

    Raises ``RefError`` for a missing or remote target, or a chain longer than ``limit``.
    """
    for _ in range(limit):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node
        target, _tokens = doc.lookup(node["$ref"])
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **siblings} if siblings and isinstance(target, dict) else target
    raise RefError("$ref chain too long or cyclic")


def infer_types(schema: dict[str, Any]) -> list[str]:
    """Types ``schema`` allows, in preference order; inferred from keywords when ``type`` is absent."""
    ts = type_set(schema)
    if ts is not None:
        return [t for t in _TYPE_PREFERENCE if t in ts]
    for kw, t in (
        ("properties", "object"),
        ("required", "object"),
        ("additionalProperties", "object"),
        ("items", "array"),
        ("prefixItems", "array"),
        ("minItems", "array"),
        ("minLength", "string"),
        ("maxLength", "string"),
        ("pattern", "string"),
        ("format", "string"),
        ("minimum", "number"),
        ("maximum", "number"),
        ("multipleOf", "number"),
    ):
        if kw in schema:
            return [t]
    return []


#: Subschemas one top-level ``sample`` call may visit (alternatives tried after a failure multiply).
SAMPLE_BUDGET = 5_000
_calls = 0
#: Longest string or array a sample may be (bounds above it: no sample).
MAX_SAMPLE_SIZE = 10_000
#: Longest string a witness candidate may be (a ``maxLength: 100000`` added is still proven by a string).
MAX_WITNESS_LENGTH = 1_000_000


def sample(node: Any, doc: SchemaDoc, depth: int = 0) -> Any:
    """A small instance meant to satisfy ``node`` (a subschema of ``doc``).

    Raises ``NoSample`` when none can be built. Never performs I/O.
    """
    global _calls
    guard.check()
    if depth == 0:
        _calls = 0
    _calls += 1
    if depth > 48 or _calls > SAMPLE_BUDGET:
        raise NoSample("schema nested too deeply or too many alternatives")
    if node is True or node == {}:
        return None
    if node is False or not isinstance(node, dict):
        raise NoSample("false schema")
    try:
        node = deref(node, doc)
    except RefError as exc:
        raise NoSample(str(exc)) from exc
    if not isinstance(node, dict):
        return sample(node, doc, depth + 1)
    if "not" in node:
        return _sample_outside(node, doc, depth)
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    if isinstance(node.get("allOf"), list):
        return sample(_merged_all_of(node, doc), doc, depth + 1)
    for kw in ("anyOf", "oneOf"):
        if isinstance(node.get(kw), list) and node[kw]:
            return _sample_union(node, kw, doc, depth)
    types = infer_types(node)
    if not types:
        return None
    non_null = [t for t in types if t != "null"]
    first = _sample_type(node, non_null[0] if non_null else "null", doc, depth)
    if len(types) > 1 and quick_valid(node, first, doc.dialect) is not True:
        # several types: the preferred one's sample may be impossible (an array whose contains its items forbid);
        # then another type's, the first the node accepts
        try:
            check = doc.validator().evolve(schema=node)
        except Exception:  # an uncompilable node: the first sample stands
            return first
        if not _safe_valid(check, first):
            for t in [*non_null[1:], *(["null"] if "null" in types else [])]:
                try:
                    other = _sample_type(node, t, doc, depth)
                except NoSample:
                    continue
                if _safe_valid(check, other):
                    return other
    return first


def _merged_all_of(node: dict[str, Any], doc: SchemaDoc) -> dict[str, Any]:
    """``node`` with its ``allOf`` members merged in (``properties`` and ``required`` combined, other keywords
    kept from the first that has them). A union (``anyOf``/``oneOf``) met after the first one kept adds, in
    order, its first branch the merged keywords do not exclude (``allOf`` of 12 two-way ``anyOf``s: one branch of
    each, not only the first member's). Raises ``NoSample`` for an unresolvable member."""
    merged = dict(node)
    del merged["allOf"]
    later: list[list[Any]] = []
    for sub in node["allOf"]:
        sub = _resolved(sub, doc)
        if isinstance(sub, dict):
            for kw in ("anyOf", "oneOf"):
                if any(k in merged for k in ("anyOf", "oneOf")) and isinstance(sub.get(kw), list):
                    later.append(sub[kw])
            _merge_into(merged, {k: v for k, v in sub.items() if not (k in ("anyOf", "oneOf") and later)})
    for branches in later[:64]:
        for branch in branches:
            b = _resolved(branch, doc)
            if isinstance(b, dict) and _beside(merged, {k: v for k, v in b.items() if k in ("type",)}) is not None:
                _merge_into(merged, b)
                break
    return merged


def _resolved(sub: Any, doc: SchemaDoc) -> Any:
    try:
        return deref(sub, doc)
    except RefError as exc:
        raise NoSample(str(exc)) from exc


def _merge_into(merged: dict[str, Any], sub: dict[str, Any]) -> None:
    """``sub``'s keywords added to ``merged``: ``properties`` and ``required`` combined, others kept if set."""
    for k, v in sub.items():
        if k == "properties" and isinstance(merged.get(k), dict) and isinstance(v, dict):
            merged[k] = {**merged[k], **v}
        elif k == "required" and isinstance(merged.get(k), list) and isinstance(v, list):
            merged[k] = union_list(merged[k], v)
        else:
            merged.setdefault(k, v)


def _sample_union(node: dict[str, Any], kw: str, doc: SchemaDoc, depth: int) -> Any:
    """A sample of the first branch of ``node``'s ``kw`` (``anyOf``/``oneOf``) that can be sampled with the
    keywords beside the union in force. Raises ``NoSample`` when none can."""
    base = {k: v for k, v in node.items() if k != kw}
    for branch in node[kw]:
        try:
            b = deref(branch, doc)
            if b is True:
                b = {}
            if not isinstance(b, dict):
                continue
            beside = _beside(base, b)
            if beside is None:
                continue  # the keywords beside the union exclude this branch
            return sample(beside, doc, depth + 1)
        except (NoSample, RefError):
            continue
    raise NoSample(f"no {kw} branch can be sampled")


def _safe_valid(check: Any, value: Any) -> bool:
    try:
        return bool(check.is_valid(value))
    except Exception:
        return False


def _beside(base: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any] | None:
    """A union branch with the keywords beside the union, both in force (``type`` and ``enum`` intersected,
    ``required`` and ``properties`` combined, the branch's value for other keywords); None when they exclude each
    other."""
    merged = {**base, **branch}
    tb, tr = type_set(base), type_set(branch)
    if tb is not None and tr is not None:
        both = [
            t
            for t in ("object", "string", "integer", "number", "boolean", "array", "null")
            if (t in tb or (t == "integer" and "number" in tb)) and (t in tr or (t == "integer" and "number" in tr))
        ]
        if not both:
            return None
        merged["type"] = both if len(both) > 1 else both[0]
    for kw in ("enum", "const"):
        if kw in base and kw not in branch:
            merged[kw] = base[kw]
    if isinstance(base.get("required"), list) and isinstance(branch.get("required"), list):
        merged["required"] = union_list(base["required"], branch["required"])  # required beside the union too
    if isinstance(base.get("properties"), dict) and isinstance(branch.get("properties"), dict):
        merged["properties"] = {**base["properties"], **branch["properties"]}
    return merged


def _sample_outside(node: dict[str, Any], doc: SchemaDoc, depth: int) -> Any:
    """A sample of ``node`` without its ``not``, then alternatives, until one its ``not`` schema rejects."""
    rest = {k: v for k, v in node.items() if k != "not"}
    first = sample(rest, doc, depth + 1)
    try:
        excluded = doc.validator_for(node["not"])
        allowed = doc.validator().evolve(schema=rest)  # the rest of the node still holds (its type, its bounds)
        candidates = [first] + [
            _sample_type(rest, t, doc, depth) for t in (infer_types(rest) or list(_TYPE_PREFERENCE))
        ]
        candidates += [c for c in (number_candidates(rest, integer=False) + string_candidates()) if c not in candidates]
        if isinstance(first, dict):  # an object: one property's value changed at a time ({"id": "a"} → {"id": "b"})
            others = [*string_candidates(), 0, 1, True, False, None]
            changed = [{**first, key: x} for key in first for x in _listed_values(rest, key) if x != first[key]]
            changed += [{**first, key: x} for key in first for x in others if x != first[key]]
            candidates[1:1] = changed[:64]
        for cand in candidates[:96]:
            if not excluded.is_valid(cand) and allowed.is_valid(cand):
                return cand
    except Exception:  # best effort: any failure (unknown type, unresolvable $ref …) keeps the first sample
        pass
    return first


def _listed_values(node: dict[str, Any], key: str) -> list[Any]:
    """The values property ``key`` of object ``node`` lists (its ``enum``, its ``const``), the first alternatives
    to try when a sample must change that property: ``{"enum": ["a", "b"]}`` → ``["a", "b"]``."""
    props = node.get("properties")
    sub = props.get(key) if isinstance(props, dict) else None
    if not isinstance(sub, dict):
        return []
    enum = sub.get("enum")
    listed: list[Any] = enum[:16] if isinstance(enum, list) else []
    return [*listed, *([sub["const"]] if "const" in sub else [])]


def _sample_type(node: dict[str, Any], t: str, doc: SchemaDoc, depth: int) -> Any:
    """A value of JSON type ``t`` meant to satisfy ``node``'s keywords of that type."""
    if t == "null":
        return None
    if t == "boolean":
        return True
    if t in ("integer", "number"):
        return number_candidates(node, integer=(t == "integer"))[0]
    if t == "string":
        return _sample_string(node)
    if t == "array":
        return _sample_array(node, doc, depth)
    return _sample_object(node, doc, depth)


def _sample_string(node: dict[str, Any]) -> str:
    """A string of ``node``'s format (else ``"a"``), within its length bounds, matching its pattern if one is
    found; for a format some host asserts, one that meets the format too when one is found
    (``formatted.formatted_strings``)."""
    fmt = node.get("format")
    base = FORMAT_SAMPLES.get(fmt, "a") if isinstance(fmt, str) else "a"
    lo = int_at(node, "minLength", 0)
    hi = int_at(node, "maxLength", None)
    if lo > MAX_SAMPLE_SIZE:
        raise NoSample(f"minLength {lo} is above the sample size limit")
    s = base
    if len(s) < lo:
        s = s + "a" * (lo - len(s))
    if hi is not None and len(s) > hi:
        s = s[:hi]
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        s = pattern_candidate(pattern, lo, hi) or s
    if asserted(fmt) and not _formatted_fit(node, s):
        found = next(
            (
                x
                for x in formatted_strings((str(fmt),), lo, hi, (lo,), (pattern,) if isinstance(pattern, str) else ())
                if _formatted_fit(node, x)
            ),
            None,
        )
        s = found if found is not None else s
    return s


def _formatted_fit(node: dict[str, Any], s: str) -> bool:
    """Does ``s`` meet ``node``'s format (as ajv-formats checks it), length bounds and pattern (in both regex
    readings)?"""
    import re

    from mcp_schema_audit.schema import ecma_search, safe_search

    lo, hi = int_at(node, "minLength", 0), int_at(node, "maxLength", None)
    if len(s) < lo or (hi is not None and len(s) > hi) or not ajv_conforms(s, node.get("format")):
        return False
    pattern = node.get("pattern")
    if not isinstance(pattern, str):
        return True
    try:
        return safe_search(pattern, s) is not None and ecma_search(pattern, s)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False


def _sample_array(node: dict[str, Any], doc: SchemaDoc, depth: int) -> list[Any]:
    """An array of ``minItems`` items (the prefix's samples first), with as many items matching ``contains``
    as ``minContains`` asks for."""
    out: list[Any] = []
    prefix = list_at(node, "prefixItems")
    lo = int_at(node, "minItems", 0)
    if lo > 100:
        raise NoSample(f"minItems {lo} is above the sample size limit")
    for sub in prefix[: max(lo, 0)]:
        out.append(sample(sub, doc, depth + 1))
    items = node.get("items", True)
    while len(out) < lo:
        out.append(sample(items if not isinstance(items, list) else True, doc, depth + 1))
    need = node.get("minContains", 1)
    need = need if isinstance(need, int) and not isinstance(need, bool) and 0 <= need <= 100 else 1
    if "contains" in node and need:
        out = _meet_contains(node, out, items, need, lo, doc, depth)
    if "contains" in node and isinstance(node.get("maxContains"), int) and not isinstance(node["maxContains"], bool):
        out = _meet_max_contains(node, out, items, doc, depth)
    return out


def _meet_max_contains(node: dict[str, Any], out: list[Any], items: Any, doc: SchemaDoc, depth: int) -> list[Any]:
    """``out`` with the items matching ``contains`` beyond ``maxContains`` replaced by an item that does not match
    (the sample of an item repeated to reach ``minItems`` may match contains each time)."""
    most = max(node["maxContains"], 0)
    try:
        matches = doc.validator_for(node["contains"])
        hits = [i for i, x in enumerate(out) if _safe_valid(matches, x)]
        if len(hits) <= most:
            return out
        other = sample({"allOf": [items if isinstance(items, dict) else {}, {"not": node["contains"]}]}, doc, depth + 1)
    except Exception:  # NoSample, an uncompilable contains: the sample is a best effort
        return out
    if _safe_valid(matches, other):
        return out
    return [other if i in hits[most:] else x for i, x in enumerate(out)]


def _meet_contains(
    node: dict[str, Any], out: list[Any], items: Any, need: int, lo: int, doc: SchemaDoc, depth: int
) -> list[Any]:
    """``out`` (the array sampled so far) with ``need`` items matching ``node``'s ``contains`` (the matching
    ones kept, others after them up to ``minItems`` ``lo``), cut to ``maxItems``."""
    try:
        matches = doc.validator_for(node["contains"])
        have = sum(1 for x in out if matches.is_valid(x))
    except Exception:  # an uncompilable contains: the sample is a best effort
        have = 0
    if have >= need:
        return out
    try:  # an item of the array's own items schema that also matches contains
        item = sample({"allOf": [items if isinstance(items, dict) else {}, node["contains"]]}, doc, depth + 1)
    except NoSample:
        item = sample(node["contains"], doc, depth + 1)
    hi = int_at(node, "maxItems", None)
    keep = [x for x in out if _safe_valid(matches, x)] if have else []
    others = [x for x in out if not any(x is k for k in keep)]
    out = keep + [item] * (need - len(keep))
    # back up to minItems: the items that do not match contains first (maxContains), then more matches
    out += others[: max(lo - len(out), 0)]
    if len(out) < lo:
        out += [item] * (lo - len(out))
    if hi is not None:
        out = out[: max(hi, 0)]
    return out


def _sample_object(node: dict[str, Any], doc: SchemaDoc, depth: int) -> dict[str, Any]:
    """An object with ``node``'s required properties, more declared ones up to ``minProperties``, and what its
    conditionals require (``_meet_conditions``)."""
    obj: dict[str, Any] = {}
    props = dict_at(node, "properties")
    required = (
        [k for k in node.get("required", []) if isinstance(k, str)] if isinstance(node.get("required"), list) else []
    )
    for key in required:
        sub = props.get(key)
        if sub is None:
            addl = node.get("additionalProperties", True)
            sub = addl if isinstance(addl, dict) else True
        obj[key] = sample(sub, doc, depth + 1)
    lo = int_at(node, "minProperties", 0)
    for key, sub in props.items():
        if len(obj) >= lo:
            break
        if key not in obj:
            obj[key] = sample(sub, doc, depth + 1)
    return _meet_conditions(node, obj, doc, depth)


def _holds(test: Any, obj: dict[str, Any], doc: SchemaDoc) -> bool:
    """Does the object ``obj`` match the conditional's trigger ``test``? A ``{"required": [...]}`` trigger (every
    ``dependentRequired``/``dependentSchemas`` entry) is read off the keys, linear in their number; any other
    test is validated. A chain of 180 ``dependentSchemas`` validated each trigger of each round of each sample:
    15 s and 195 MB."""
    if isinstance(test, dict) and set(test) == {"required"} and isinstance(test["required"], list):
        return all(k in obj for k in test["required"] if isinstance(k, str))
    return bool(doc.validator_for(test).is_valid(obj))


def _meet_conditions(node: dict[str, Any], obj: dict[str, Any], doc: SchemaDoc, depth: int) -> dict[str, Any]:
    """Add to ``obj`` the properties ``node``'s conditionals require of it (``dependentRequired``,
    ``dependentSchemas``/``dependencies``, ``if``/``then``/``else`` with ``required``), a few rounds."""

    conds = conditionals(node)
    if not conds:
        return obj
    props = dict_at(node, "properties")
    for _ in range(4):
        added = False
        for c in conds:
            guard.check()
            try:
                branch = c.then if _holds(c.if_, obj, doc) else c.else_
            except Exception:  # a hostile or uncompilable test: leave the sample as it is
                return obj
            required = branch.get("required") if isinstance(branch, dict) else None
            for key in required if isinstance(required, list) else []:
                if isinstance(key, str) and key not in obj:
                    try:
                        obj[key] = sample(props.get(key, True), doc, depth + 1)
                    except NoSample:
                        obj[key] = None
                    added = True
        if not added:
            break
    return obj


def number_candidates(node: dict[str, Any], *, integer: bool) -> list[Any]:
    """Candidate numbers for ``node``: 0, the bounds, just inside and just outside them (first is in range)."""
    lo, lo_x = _bound(node, "minimum", "exclusiveMinimum")
    hi, hi_x = _bound(node, "maximum", "exclusiveMaximum")
    step = 1 if integer else 0.5
    cands: list[Any] = []
    if lo is not None:
        start = (math.floor(lo) + 1 if lo_x else math.ceil(lo)) if integer else (lo + step if lo_x else lo)
        cands.append(start)
    if hi is not None:
        end = (math.ceil(hi) - 1 if hi_x else math.floor(hi)) if integer else (hi - step if hi_x else hi)
        cands.append(end)
    cands.append(0)
    mult = node.get("multipleOf")
    if isinstance(mult, (int, float)) and not isinstance(mult, bool) and mult > 0:
        try:
            m = math.ceil(cands[0] / mult) * mult
            if math.isfinite(m):
                cands.insert(0, int(m) if integer else m)
        except (OverflowError, ValueError, ZeroDivisionError):
            pass
    for b in (lo, hi):
        if b is not None:
            cands.extend([b - 1, b + 1, b - 0.5, b + 0.5, b])
    cands.extend([1, -1, 0.5, 10**6, -(10**6), 1.5])
    out: list[Any] = []
    for c in cands:
        if integer and isinstance(c, float):
            if not c.is_integer():
                continue
            c = int(c)
        if c not in out or type(c) is not type(out[out.index(c)]):
            out.append(c)
    return out


def _bound(node: dict[str, Any], incl: str, excl: str) -> tuple[float | None, bool]:
    """(value, exclusive) of a lower or upper bound; handles draft-04 boolean ``exclusive*``."""
    v_in = node.get(incl)
    v_ex = node.get(excl)
    v_in = v_in if isinstance(v_in, (int, float)) and not isinstance(v_in, bool) else None
    if isinstance(v_ex, bool):
        return (v_in, v_ex) if v_in is not None else (None, False)
    v_ex = v_ex if isinstance(v_ex, (int, float)) and not isinstance(v_ex, bool) else None
    if v_in is None and v_ex is None:
        return None, False
    if v_ex is None:
        return v_in, False
    if v_in is None:
        return v_ex, True
    is_lower = incl == "minimum"
    if is_lower:
        return (v_ex, True) if v_ex >= v_in else (v_in, False)
    return (v_ex, True) if v_ex <= v_in else (v_in, False)


def bound(node: dict[str, Any], which: str) -> tuple[float | None, bool]:
    """The lower (``which="min"``) or upper (``"max"``) numeric bound of ``node`` as (value, exclusive)."""
    return (
        _bound(node, "minimum", "exclusiveMinimum") if which == "min" else _bound(node, "maximum", "exclusiveMaximum")
    )


def pattern_candidate(pattern: str, lo: int = 0, hi: int | None = None) -> str | None:
    """A short string matching ``pattern`` (searched, as JSON Schema does) within the length bounds, or None."""
    import re

    from mcp_schema_audit.schema import safe_search

    for cand in string_candidates(lo, hi) + regex_examples(pattern):
        if len(cand) < lo or (hi is not None and len(cand) > hi):
            continue
        try:
            if safe_search(pattern, cand):
                return cand
        except (re.error, RecursionError, OverflowError, ValueError):
            return None
    return None


def string_candidates(lo: int = 0, hi: int | None = None, extra: tuple[str, ...] = ()) -> list[str]:
    """Short candidate strings for witness search, respecting the given length bounds when possible."""
    out: list[str] = []
    lo = min(lo, MAX_SAMPLE_SIZE)
    for s in extra + _STRING_CANDIDATES + tuple(FORMAT_SAMPLES.values()) + ("not-a-" + "value",):
        if len(s) < lo:
            s = s + "a" * (lo - len(s))
        if hi is not None and len(s) > hi:
            s = s[:hi]
        if s not in out:
            out.append(s)
    return out
