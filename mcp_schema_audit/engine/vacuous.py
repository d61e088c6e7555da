"""Keywords and nodes whose answer needs no value: a ``pattern`` whose search always succeeds (it accepts every
string), a ``propertyNames`` that accepts no name or every name, and a node no value satisfies (it accepts
nothing). Normalization (``settle.finish``) reads them so, and the walk never asks an undecidable question about
them.

- **a pattern whose search always succeeds**: JSON Schema searches a ``pattern`` anywhere in the string, so a
  regex that matches the empty string at the start of any string (``a*``, ``x?``, ``(a|)``, ``^a*``) or at its
  end (``a*$``) matches every string, under Python's reading and ECMAScript's alike. Read off Python's parse of
  the regex, with only the anchors that hold there (``^``/``\\A`` at the start, ``$``/``\\Z`` at the end); any
  other assertion (``\\b``, a lookaround, a backreference) is not assumed to hold. A pattern one host cannot
  compile is left as it is (that host rejects the schema, which the listing checks report).
- **a node with an empty value set**: its type's own keywords exclude every value of that type (``minimum`` above
  ``maximum``, ``minLength`` above ``maxLength``, more ``required`` keys than ``maxProperties``, a required
  property whose schema is ``false``, ``contains: false`` that must match, …), for each type it allows.
- **a propertyNames that accepts no name**: its schema accepts no string (``false``, a ``type`` without
  ``"string"``, a value set without strings, contradicting string bounds): the object can have no property.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, TypeGuard

from mcp_schema_audit.engine.nodes import dict_at, names
from mcp_schema_audit.engine.regex_strings import regex_syntax
from mcp_schema_audit.schema import ecma_compile_error, oversized

#: Keywords a ``propertyNames`` schema may hold and still accept every name (given values that constrain nothing).
_NAME_KEYWORDS = frozenset({"type", "pattern", "minLength"})


def _number(x: Any) -> TypeGuard[int | float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


@functools.lru_cache(maxsize=4096)
def search_always_succeeds(pattern: str) -> bool:
    """Proven: ``pattern`` is found in every string, for Python ``re`` and for ECMAScript with the ``u`` flag (see
    the module docstring). False when not proven, or when either engine cannot compile it."""
    if oversized(pattern) is not None:  # never parsed
        return False
    c, parser = regex_syntax()
    try:
        tree = parser.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    if ecma_compile_error(pattern) is not None:
        return False
    try:
        at_start, at_end = _empty_match(c, list(tree), 0)
    except RecursionError:
        return False
    return at_start or at_end


def _empty_match(c: Any, items: list[Any], depth: int) -> tuple[bool, bool]:
    """Can the parsed sequence ``items`` match the empty string ``(at the start of any string, at its end)``?"""
    if depth > 50:
        return False, False
    start = end = True
    for op, av in items:
        s, e = _empty_item(c, op, av, depth)
        start, end = start and s, end and e
        if not (start or end):
            break
    return start, end


def _empty_item(c: Any, op: Any, av: Any, depth: int) -> tuple[bool, bool]:
    """``_empty_match`` of one parsed item ``(op, av)``."""
    if op == c.AT:
        if av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING):
            return True, False
        if av in (c.AT_END, c.AT_END_STRING):
            return False, True
        return False, False  # a word boundary, or another assertion: not assumed to hold
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) or op == getattr(c, "POSSESSIVE_REPEAT", None):
        lo, _hi, body = av
        return (True, True) if lo == 0 else _empty_match(c, list(body), depth + 1)
    if op == c.SUBPATTERN:
        return _empty_match(c, list(av[-1]), depth + 1)
    if op == getattr(c, "ATOMIC_GROUP", None):
        return _empty_match(c, list(av), depth + 1)
    if op == c.BRANCH:
        starts, ends = zip(*(_empty_match(c, list(alt), depth + 1) for alt in av[1]), strict=True)
        return any(starts), any(ends)
    return False, False  # a character, a class, a lookaround, a backreference: matches no empty string surely


def accepts_no_string(schema: Any) -> bool:
    """Proven: ``schema`` (raw, as a ``propertyNames`` value) accepts no string."""
    if schema is False:
        return True
    if not isinstance(schema, dict):
        return False
    types = schema.get("type")
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else None
    if names is not None and all(isinstance(t, str) for t in names) and "string" not in names:
        return True
    values = schema.get("enum") if isinstance(schema.get("enum"), list) else None
    if "const" in schema:
        values = [schema["const"]]
    if values is not None and not any(isinstance(x, str) for x in values):
        return True
    not_ = schema.get("not")
    if not_ is True or not_ == {}:
        return True
    return _lengths_exclude(schema)


def accepts_every_name(schema: Any) -> bool:
    """Proven: ``schema`` (raw, as a ``propertyNames`` value) accepts every string: only a string ``type``, a
    ``pattern`` whose search always succeeds and a ``minLength`` of 0."""
    if schema is True:
        return True
    if not isinstance(schema, dict) or not set(schema) <= _NAME_KEYWORDS:
        return False
    types = schema.get("type", "string")
    if not (types == "string" or (isinstance(types, list) and "string" in types)):
        return False
    pattern = schema.get("pattern")
    if pattern is not None and not (isinstance(pattern, str) and search_always_succeeds(pattern)):
        return False
    return schema.get("minLength", 0) == 0 and not isinstance(schema.get("minLength"), bool)


def _lengths_exclude(node: dict[str, Any]) -> bool:
    return _exceeds(node.get("minLength"), node.get("maxLength"))


def _exceeds(lo: Any, hi: Any) -> bool:
    """Are both integers, the first above the second?"""
    return _int(lo) and _int(hi) and lo > hi


def accepts_nothing(node: dict[str, Any], types: list[str]) -> bool:
    """Proven: no value of any of ``types`` (the node's own, a list of JSON type names) meets the keywords of
    ``node`` (a settled node: integer bounds inclusive)."""
    return bool(types) and all(_type_excluded(node, t) for t in types)


def _type_excluded(node: dict[str, Any], t: str) -> bool:
    if t == "string":
        return _lengths_exclude(node)
    if t in ("integer", "number"):
        return _numbers_excluded(node, integer=t == "integer")
    if t == "array":
        return _arrays_excluded(node)
    if t == "object":
        return _objects_excluded(node)
    return False


def _bounds(node: dict[str, Any], incl: str, excl: str) -> list[tuple[int | float, bool]]:
    """``(value, exclusive)`` of the bound keywords ``incl`` and ``excl`` the node holds as finite numbers."""
    out: list[tuple[int | float, bool]] = []
    for kw, exclusive in ((incl, False), (excl, True)):
        x = node.get(kw)
        if _number(x):
            out.append((x, exclusive))
    return out


def _numbers_excluded(node: dict[str, Any], integer: bool) -> bool:
    lows = _bounds(node, "minimum", "exclusiveMinimum")
    highs = _bounds(node, "maximum", "exclusiveMaximum")
    for a, a_excl in lows:
        for b, b_excl in highs:
            if a > b or (a == b and (a_excl or b_excl)):
                return True
            if integer:
                first = math.floor(a) + 1 if a_excl else math.ceil(a)
                last = math.ceil(b) - 1 if b_excl else math.floor(b)
                if first > last:
                    return True
    step, lo, hi = node.get("multipleOf"), node.get("minimum"), node.get("maximum")
    if integer and _int(step) and step > 0 and _int(lo) and _int(hi) and len(lows) == len(highs) == 1:
        return bool(-(-lo // step) * step > hi)  # the first multiple at or above the lower bound is past the upper one
    return False


def _arrays_excluded(node: dict[str, Any]) -> bool:
    hi = node.get("maxItems")
    if _exceeds(node.get("minItems"), hi):
        return True
    if "contains" in node:
        need = node.get("minContains", 1)
        if _exceeds(need, node.get("maxContains")) or _exceeds(need, hi):
            return True
        if node["contains"] is False and _int(need) and need > 0:
            return True
    return False


def _objects_excluded(node: dict[str, Any]) -> bool:
    hi = node.get("maxProperties")
    required = set(names(node.get("required")))
    if _exceeds(node.get("minProperties"), hi) or _exceeds(len(required), hi):
        return True
    props = dict_at(node, "properties")
    if any(props.get(k) is False for k in required):
        return True
    closed = node.get("additionalProperties") is False and not node.get("patternProperties")
    return closed and any(k not in props for k in required)
