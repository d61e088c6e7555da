"""Validity of the simplest subschemas without a validator: the answer ``jsonschema`` would give, at dict speed.

The engine asks "is this value valid under this node?" thousands of times per catalog, mostly of leaf
nodes such as ``{"type": "string", "enum": ["a", "b"]}``. Building a ``jsonschema`` validator for
each node (``evolve``: a resolver, a resource) costs more than the answer. ``quick_valid`` answers
for nodes made only of the keywords below, for the ``python-sdk`` reading (the validator classes of
``SchemaDoc``, formats not asserted), and says "don't know" (None) for anything else, which then goes
to the real validator. Its answers are those of ``jsonschema``'s own keyword functions
(``jsonschema/_keywords.py``: same comparisons, same equality ``_utils.equal`` for scalars); the
fast-path test runs every report with it on and off and compares them byte for byte.
"""

from __future__ import annotations

from typing import Any

#: Keywords answered here, and annotations the python-sdk reading ignores (``format`` included: its
#: validators are built with ``format_checker=None``).
_ANSWERED = frozenset({"type", "enum", "const", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
                       "exclusiveMaximum", "properties", "required", "additionalProperties", "anyOf", "allOf",
                       "oneOf", "not"})
_IGNORED = frozenset({"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
                      "writeOnly", "format"})
_KNOWN = _ANSWERED | _IGNORED
#: Dialects whose jsonschema classes share these keywords' meaning (draft-04: boolean exclusive bounds, no
#: ``const``, integers without ``1.0``: left to the validator).
_DIALECTS = frozenset({"draft-06", "draft-07", "2019-09", "2020-12"})
_SCALARS = (str, int, float, bool, type(None))


def _is_type(value: Any, name: str) -> bool | None:
    """jsonschema's draft-06+ type checker for a value parsed from JSON; None for an unknown type name."""
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    return None


def _equal(one: Any, two: Any) -> bool | None:
    """``jsonschema._utils.equal`` when one side is a scalar; None when both are containers."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    one_box, two_box = isinstance(one, (list, dict)), isinstance(two, (list, dict))
    if one_box and two_box:
        return None
    if one_box or two_box:
        return False
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    return bool(one == two)


def _bound(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def quick_valid(node: Any, value: Any, dialect: str, depth: int = 0) -> bool | None:
    """Is ``value`` (parsed JSON) valid under ``node`` for the python-sdk reading of ``dialect``?

    Returns True/False only for a boolean schema or an object of ``_KNOWN`` keywords with well-formed
    values, whose ``properties``/``additionalProperties`` subschemas are answered here too (up to 32
    levels); None ("ask the validator") otherwise. Never raises.
    """
    if node is True or node is False:
        return node
    if dialect not in _DIALECTS or not isinstance(node, dict) or not _KNOWN.issuperset(node):
        return None
    if not isinstance(value, _SCALARS) and not isinstance(value, (list, dict)):
        return None
    ok = True
    if "type" in node:
        types = node["type"]
        types = [types] if isinstance(types, str) else types
        if not isinstance(types, list):
            return None
        hits = [_is_type(value, t) if isinstance(t, str) else None for t in types]
        if None in hits:
            return None  # jsonschema raises UnknownType: left to it
        ok = any(hits)
    for kw in ("enum", "const"):
        if kw in node:
            options = node[kw] if kw == "enum" else [node[kw]]
            if not isinstance(options, list):
                return None
            found = False
            for each in options:
                same = _equal(each, value)
                if same is None:
                    return None
                if same:
                    found = True
                    break
            ok = ok and found
    if isinstance(value, str):
        for kw, shorter in (("minLength", True), ("maxLength", False)):
            if kw in node:
                limit = node[kw]
                if not _bound(limit):
                    return None
                ok = ok and not (len(value) < limit if shorter else len(value) > limit)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if kw in node:
                limit = node[kw]
                if not _bound(limit):
                    return None
                bad = (value < limit if kw == "minimum" else value > limit if kw == "maximum"
                       else value <= limit if kw == "exclusiveMinimum" else value >= limit)
                ok = ok and not bad
    if any(kw in node for kw in _APPLICATORS):
        got = _applicators(node, value, dialect, depth)
        if got is None:
            return None
        ok = ok and got
    if isinstance(value, dict):
        # checked even when already invalid: a malformed keyword makes jsonschema raise, whatever the order
        got = _object_valid(node, value, dialect, depth)
        return None if got is None else ok and got
    return ok


_APPLICATORS = ("anyOf", "allOf", "oneOf", "not")


def _applicators(node: dict[str, Any], value: Any, dialect: str, depth: int) -> bool | None:
    """``anyOf`` (branches in order, up to the first valid one, as jsonschema stops there), ``allOf``, ``oneOf``
    (every branch) and ``not``; None when a branch it evaluates is not answered here."""
    if depth >= 32:
        return None
    ok = True
    for kw in _APPLICATORS:
        if kw not in node:
            continue
        sub = node[kw]
        if kw == "not":
            got = quick_valid(sub, value, dialect, depth + 1)
            if got is None:
                return None
            ok = ok and not got
            continue
        if not isinstance(sub, list) or (not sub and kw != "allOf"):
            return None  # malformed, or an empty list (jsonschema's own reading of it is left to it)
        if kw == "anyOf":
            found = False
            for branch in sub:
                got = quick_valid(branch, value, dialect, depth + 1)
                if got is None:
                    return None
                if got:
                    found = True
                    break
            ok = ok and found
            continue
        answers = [quick_valid(branch, value, dialect, depth + 1) for branch in sub]
        if None in answers:
            return None
        ok = ok and (all(answers) if kw == "allOf" else answers.count(True) == 1)
    return ok


def _object_valid(node: dict[str, Any], value: dict[str, Any], dialect: str, depth: int) -> bool | None:
    """``properties``, ``required`` and ``additionalProperties`` (no ``patternProperties`` beside them) as
    jsonschema applies them to an object ``value``."""
    if depth >= 32:
        return None
    props = node.get("properties", {})
    required = node.get("required", [])
    extra = node.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list) or not (
            extra is True or extra is False or isinstance(extra, dict)):
        return None
    ok = True
    for name in required:
        if not isinstance(name, str):
            return None
        if name not in value:
            ok = False
    for name, sub in props.items():
        if name in value:
            got = quick_valid(sub, value[name], dialect, depth + 1)
            if got is None:
                return None
            ok = ok and got
    if extra is not True:
        for name in value:
            if name not in props:
                got = False if extra is False else quick_valid(extra, value[name], dialect, depth + 1)
                if got is None:
                    return None
                ok = ok and got
    return ok
