"""Hypothesis strategies for real-looking MCP tool schema **models**, the first of the generator's modules
(``schema_models``: models; ``schema_render``: their renderings as JSON Schema; ``schema_mutations``:
semantic changes; ``schema_rewrites``: subschema positions, closed objects and host readings).

Used by ``test_property_crosscheck.py``. Schemas are generated in two steps:

1. a small **model** (plain dicts, easy to mutate and to read in a shrunk failure)::

       {"k": "object", "props": {"id": <model>, ...}, "required": ["id"], "closed": True, "nullable": False}
       {"k": "array", "items": <model>, "minItems": None, "maxItems": 3, "nullable": False}
       {"k": "tuple", "slots": [<leaf model>, ...], "minItems": 2, "rest": "closed" | "open", "nullable": False}
       {"k": "string", "minLength": 1, "maxLength": None, "nullable": True}
       {"k": "integer" | "number", "minimum": 0, "maximum": None, "nullable": False}
       {"k": "boolean", "nullable": False}
       {"k": "enum", "values": ["a", "b"], "typed": True, "nullable": False}
       {"k": "union", "types": ["string", "integer"], "nullable": False}   # Union[str, int]
       {"k": "map", "values": <model>, "nullable": False}   # additionalProperties: <schema>
       {"k": "any"}

   Optional keys (absent = off; each is drawn at a modest rate, see ``FEATURE_RATES``):

       object: "cond": {"key": "kind", "value": "a", "if_required": True, "then": ["id"], "else": []}
                   → if: {properties: {kind: {const: "a"}}, required: ["kind"]}, then: {required: ["id"]}
               "deps": {"cursor": {"require": ["limit"]}, "note": {"forbid": ["meta"]}}
                   → dependentSchemas: {cursor: {required: ["limit"]}, note: {not: {required: ["meta"]}}}
               "patterns": {"^x-": <leaf model>}   → patternProperties (mostly on closed objects)
               "oas": True                           → OpenAPI ``nullable: true`` beside ``type``
       array:  "contains": {"key": "kind" | None, "value": "a"}, "minContains": 0 | 2 | None,
               "maxContains": 1 | 2 | 3 | None   → contains: {type: object, properties: {kind: {const: "a"}},
               required: ["kind"]} (``key`` None: arrays of scalars, ``contains: {const: v}``)
       string / integer: "exclude": ["a"]    → not: {const: "a"} (``not: {enum: [...]}`` for several)
       any:    "not_null": True              → not: {type: "null"}
       string / integer / number / boolean / array / tuple / nested object: "oas": True

   ``nullable`` ("oas") is OpenAPI's keyword: Ajv (both TS SDK host profiles) reads ``{type: T,
   nullable: true}`` as "T or null"; python ``jsonschema`` treats it as an unknown keyword, i.e. an
   annotation. The model's ``"nullable"`` key is the JSON Schema one (null accepted by every
   validator); ``"oas"`` is the Ajv-only one. ``nullable: true`` is only ever rendered beside a ``type``
   (Ajv refuses to compile it anywhere else).

2. a **rendering** of the model to JSON Schema: ``schema_render``.

``SCHEMA_AUDIT_PBT_DISABLE`` (comma-separated names from ``FEATURE_RATES`` and ``SPELLINGS``) turns
features or spellings off, to isolate a failure while the engine is being changed.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from hypothesis import strategies as st

NAMES = ("id", "name", "count", "score", "enabled", "tags", "kind", "items", "meta", "note", "limit", "cursor")
#: patternProperties keys: no name in NAMES matches any of them; "x-ext_…" matches two. No ``$``, ``.``,
#: ``\d``/``\w``: Python ``re`` (jsonschema) and ECMAScript (Ajv) agree on these for every key
PATTERNS = ("^x-", "^ext_", "^x-ext_")
STR_VALUES = ("a", "b", "c", "d", "e")
INT_VALUES = (0, 1, 2, 3, 7)
LEAF_KINDS = ("string", "integer", "number", "boolean", "enum", "union", "any")
SCALARS = ("string", "integer", "number", "boolean")
NUMBER_BOUNDS = tuple(range(-5, 11)) + (0.5, 2.5, 99.5, 100)
MAX_DEPTH = 2  # root object = 0; nested objects / array items at 1; leaves below

#: 1/n: how often the generator switches a newer-keyword feature on (where it applies)
FEATURE_RATES = {
    "cond": 10,  # object with >= 2 properties: if/then/else
    "deps": 12,  # object with >= 2 properties: dependentSchemas
    "patterns_closed": 5,  # closed object: patternProperties
    "patterns_open": 30,  # open object: patternProperties
    "tuple": 6,  # array → prefixItems tuple
    "contains": 6,  # (non-tuple) array: contains (+ minContains/maxContains)
    "not": 20,  # string / integer: not {const|enum}
    "not_null": 12,  # any: not {type: null}
    "oas": 50,  # typed node: OpenAPI nullable: true (Ajv-only)
    "open_enum": 4,  # enum: open (a plain-type fallback branch beside it: every value of the type)
    "variants": 8,  # nested object → anyOf of two open object variants, the second a superset
}
#: renderer spellings that can be turned off (see the module docstring)
SPELLINGS = (
    "double_not",
    "nullable_spelling",
    "tuple_tail",
    "deps_if",
    "deps_required",
    "union_sibling",
    "open_enum_union",
)
DISABLED = frozenset(x.strip() for x in os.environ.get("SCHEMA_AUDIT_PBT_DISABLE", "").split(",") if x.strip())


@cache
def _rare(n: int = 4) -> st.SearchStrategy[bool]:
    """True with probability 1/n; shrinks towards False."""
    return st.integers(0, n - 1).map(lambda x: x == n - 1)


def _features(draw: Any, *names: str) -> dict[str, bool]:
    """Which of the features ``names`` are on (each with probability 1/``FEATURE_RATES[name]``; never
    when disabled), in one draw: one integer read as mixed-radix digits, shrinking to "all off"."""
    active = tuple(n for n in names if n not in DISABLED and n.split("_")[0] not in DISABLED)
    out = dict.fromkeys(names, False)
    if active:
        x = draw(_flag_digits(tuple(FEATURE_RATES[n] for n in active)))
        for n in active:
            out[n] = x % FEATURE_RATES[n] == FEATURE_RATES[n] - 1
            x //= FEATURE_RATES[n]
    return out


@cache
def _flag_digits(radices: tuple[int, ...]) -> st.SearchStrategy[int]:
    total = 1
    for r in radices:
        total *= r
    return st.integers(0, total - 1)


@cache
def _opt_int(lo: int, hi: int) -> st.SearchStrategy[int | None]:
    """None (shrinks here) or an int in [lo, hi]."""
    return st.one_of(st.none(), st.integers(lo, hi))


# Strategies are built once and cached: constructing and validating fresh strategy objects on every
# draw dominated the generation time.
def _pick(draw: Any, seq: Any) -> Any:
    seq = list(seq)
    return seq[draw(_index(len(seq)))]


@cache
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


def _subset(draw: Any, seq: Any, n: int = 2) -> list[Any]:
    """Each element of ``seq`` with probability 1/n (shrinks towards none)."""
    return [x for x in seq if draw(_rare(n))]


# -- models ------------------------------------------------------------------------------------------
@cache
def leaf_model(kind: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return _leaf_model(kind)


@st.composite
def _leaf_model(draw: Any, kind: str | None = None) -> dict[str, Any]:
    kind = kind or _pick(draw, LEAF_KINDS)
    nullable = draw(_rare()) if kind != "any" else False
    m: dict[str, Any]
    if kind == "string":
        lo, hi = draw(_opt_int(0, 4)), draw(_opt_int(0, 12))
        if lo is not None and hi is not None and hi < lo:
            lo, hi = hi, lo
        m = {"k": "string", "minLength": lo, "maxLength": hi, "nullable": nullable}
    elif kind in ("integer", "number"):
        lo, hi = draw(_opt_int(-5, 10)), draw(_opt_int(-5, 100))
        if kind == "number" and draw(_rare(3)):
            lo, hi = draw(_opt_bound), draw(_opt_bound)
        if lo is not None and hi is not None and hi < lo:
            lo, hi = hi, lo
        m = {"k": kind, "minimum": lo, "maximum": hi, "nullable": nullable}
    elif kind == "boolean":
        m = {"k": "boolean", "nullable": nullable}
    elif kind == "union":
        m = {"k": "union", "types": draw(_UNION_TYPES), "nullable": nullable}
    elif kind == "enum":
        values = draw(_ENUM_VALUES)
        m = {"k": "enum", "values": values, "typed": draw(st.booleans()), "nullable": nullable}
        if _features(draw, "open_enum")["open_enum"]:
            m["open"] = True  # an open enum: the listed values and every other value of their type
    else:
        m = {"k": "any"}
        if _features(draw, "not_null")["not_null"]:
            m["not_null"] = True
        return m
    if kind in SCALARS:
        on = _features(draw, "not", "oas") if kind in ("string", "integer") else _features(draw, "oas")
        if on.get("not"):
            m["exclude"] = draw(_EXCLUDE[kind])
        if on["oas"]:
            m["oas"] = True
    return m


_opt_bound = st.one_of(st.none(), st.sampled_from(NUMBER_BOUNDS))
_UNION_TYPES = st.lists(st.sampled_from(SCALARS), min_size=2, max_size=3, unique=True)
_ENUM_VALUES = st.one_of(
    st.lists(st.sampled_from(STR_VALUES), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(INT_VALUES), min_size=1, max_size=4, unique=True),
)
_STR_ENUM = st.lists(st.sampled_from(STR_VALUES), min_size=1, max_size=3, unique=True)
_EXCLUDE = {
    "string": st.lists(st.sampled_from(STR_VALUES + ("",)), min_size=1, max_size=2, unique=True),
    "integer": st.lists(st.sampled_from(INT_VALUES), min_size=1, max_size=2, unique=True),
}
_MIN_CONTAINS = st.sampled_from([None, None, 0, 2])
_MAX_CONTAINS = st.sampled_from([None, None, 1, 2, 3])


@cache
def node_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    if depth >= MAX_DEPTH:
        return leaf_model()
    return st.one_of(
        leaf_model(), leaf_model(), leaf_model(), array_model(depth), object_model(depth), map_model(depth)
    )


@cache
def object_model(depth: int, root: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return _object_model(depth, root)


@cache
def _names(root: bool) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(NAMES), min_size=1, max_size=8 if root else 3, unique=True)


def _value_for(draw: Any, m: dict[str, Any]) -> Any:
    """A value of ``m``'s type (for ``if``/``contains`` tests), or a string."""
    k = m["k"]
    if k == "enum":
        return _pick(draw, m["values"])
    if k == "union":
        k = _pick(draw, m["types"])
    if k in ("integer", "number"):
        return _pick(draw, INT_VALUES)
    if k == "boolean":
        return draw(st.booleans())
    return _pick(draw, STR_VALUES)


def _draw_cond(draw: Any, props: dict[str, Any]) -> dict[str, Any]:
    names = list(props)
    key = _pick(draw, names)
    others = [n for n in names if n != key]
    then = _subset(draw, others)
    els = [n for n in _subset(draw, others, 4) if n not in then]
    if not then and not els:
        then = [_pick(draw, others)]
    return {
        "key": key,
        "value": _value_for(draw, props[key]),
        "if_required": not draw(_rare(6)),
        "then": then,
        "else": els,
    }


def _draw_dep(draw: Any, key: str, names: list[str]) -> dict[str, Any]:
    others = [n for n in names if n != key]
    if draw(_rare(4)):
        return {"forbid": [_pick(draw, others)]}
    return {"require": _subset(draw, others) or [_pick(draw, others)]}


@st.composite
def _object_model(draw: Any, depth: int, root: bool = False) -> dict[str, Any]:
    if not root and _features(draw, "variants")["variants"]:
        base = {n: draw(leaf_model()) for n in draw(_names(False))}
        extra = {n: draw(leaf_model()) for n in draw(_names(False)) if n not in base}
        return {"k": "variants", "base": base, "extra": extra, "nullable": draw(_rare())}
    names = draw(_names(root))
    props = {n: draw(node_model(depth + 1)) for n in names}
    required = [n for n in names if draw(st.booleans())]
    m = {
        "k": "object",
        "props": props,
        "required": required,
        "closed": draw(_rare(3)),
        "nullable": False if root else draw(_rare()),
    }
    patterns = "patterns_closed" if m["closed"] else "patterns_open"
    on = _features(draw, "cond", "deps", patterns, *(() if root else ("oas",)))
    if len(names) >= 2 and on["cond"]:
        m["cond"] = _draw_cond(draw, props)
    if len(names) >= 2 and on["deps"]:
        key = _pick(draw, names)
        m["deps"] = {key: _draw_dep(draw, key, names)}
    if on[patterns]:
        m["patterns"] = {_pick(draw, PATTERNS): draw(leaf_model())}
    if on.get("oas"):
        m["oas"] = True
    return m


@cache
def map_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "object", "additionalProperties": <values>}`` (a Record<string, T>)."""
    return st.builds(
        lambda values, nullable: {"k": "map", "values": values, "nullable": nullable},
        st.one_of(leaf_model(), object_model(depth + 1)),
        _rare(),
    )


@cache
def array_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return _array_model(depth)


def _draw_contains(draw: Any, m: dict[str, Any]) -> None:
    items = m["items"]
    if items["k"] == "object":
        key = _pick(draw, list(items["props"]))
        m["contains"] = {"key": key, "value": _value_for(draw, items["props"][key])}
    else:
        m["contains"] = {"key": None, "value": _value_for(draw, items)}
    lo, hi = draw(_MIN_CONTAINS), draw(_MAX_CONTAINS)
    if lo is not None and hi is not None and hi < lo:
        lo, hi = hi, lo
    m["minContains"], m["maxContains"] = lo, hi


@st.composite
def _array_model(draw: Any, depth: int) -> dict[str, Any]:
    on = _features(draw, "tuple", "contains", "oas")
    if on["tuple"]:
        slots = draw(st.lists(leaf_model(), min_size=1, max_size=3))
        lo = len(slots) if draw(st.booleans()) else draw(_opt_int(0, len(slots)))
        m = {
            "k": "tuple",
            "slots": slots,
            "minItems": lo,
            "rest": "open" if draw(_rare(4)) else "closed",
            "nullable": draw(_rare()),
        }
    else:
        items = draw(st.one_of(object_model(depth + 1), leaf_model()))  # mostly array-of-objects
        lo, hi = draw(_opt_int(0, 2)), draw(_opt_int(1, 5))
        if lo is not None and hi is not None and hi < lo:
            lo, hi = hi, lo
        m = {"k": "array", "items": items, "minItems": lo, "maxItems": hi, "nullable": draw(_rare())}
        if on["contains"]:
            _draw_contains(draw, m)
    if on["oas"]:
        m["oas"] = True
    return m


def tool_model() -> st.SearchStrategy[dict[str, Any]]:
    """A tool's input or output schema model: a non-nullable object with 1–8 properties."""
    return object_model(0, root=True)
