"""Hypothesis strategies for real-looking MCP tool schemas, their mutations and equivalent rewrites.

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

2. a **rendering** of the model to JSON Schema (2020-12, no ``$schema``) driven by a seed that
   hypothesis draws (per node: see ``_Renderer``). Every random choice of the renderer is an
   *equivalent spelling* from docs/verdicts.md (Direction and severity) (or a direct instance of one): property /
   ``enum`` / ``required``
   / ``anyOf`` order, ``const x`` ↔ ``enum [x]``, ``true`` ↔ ``{}`` (and an open object's
   ``additionalProperties`` absent ↔ ``true`` ↔ ``{}``), ``type: [T, "null"]`` ↔
   ``anyOf: [{type: T}, {type: "null"}]`` (for an enum T: ``{type: [T, "null"], enum: [..., null]}``
   or ``{enum: [..., null]}``; and ``type: [A, B]`` ↔ ``anyOf: [{type: A}, {type: B}]``),
   a single-branch ``anyOf: [X]`` ↔ ``X``, inline ↔ local ``$ref`` into ``$defs`` (identical
   subschemas share one definition), ``title``/``description`` annotations. For the newer keywords:

   - equivalent for **every** host profile (python-sdk, ts-sdk-v1 = draft-07 Ajv, ts-sdk-v2):
     ``not: {const: x}`` ↔ ``not: {enum: [x]}``, ``not: {enum: [x, y]}`` ↔ ``not: {anyOf: [{const: x},
     {const: y}]}``, ``not: {type: "null"}`` ↔ ``not: {const: null}`` ↔ ``not: {enum: [null]}``,
     ``S`` ↔ ``not: {not: S}`` (for a string/number bound; no ``unevaluated*`` anywhere near, so the
     annotations ``not`` drops do not matter), absent ``then``/``else`` ↔ ``true`` ↔ ``{}``,
     ``if: {properties: {k: {const: v}}}`` ↔ ``{enum: [v]}``, ``minContains: 1`` ↔ absent,
     ``dependentSchemas: {k: {required: L}}`` ↔ ``dependentRequired: {k: L}`` (ts-sdk-v1 ignores
     both), an open tuple's tail: absent ↔ ``items: true`` ↔ ``items: {}`` ↔ ``unevaluatedItems: true``,
     ``nullable: false`` beside a ``type`` without "null" ↔ absent, ``nullable: true`` beside a
     ``type`` that lists "null" ↔ absent;
   - equivalent for the 2020-12 readers (python-sdk, ts-sdk-v2) but **not** for ts-sdk-v1, whose
     draft-07 Ajv ignores ``prefixItems``/``unevaluatedItems``/``dependentSchemas``/``dependentRequired``
     and reads ``items: false`` as "no items at all": a closed tuple's tail ``items: false`` ↔
     ``unevaluatedItems: false`` ↔ ``maxItems: <number of slots>``, and ``dependentSchemas: {k: S}`` ↔
     ``if: {required: [k]}, then: S`` (only for ``S = {required: L}``: with ``not`` inside, a nullable
     object would differ for ``null``). The tests account for this (``v1_only`` in ``test_property_crosscheck.py``).

   Subschemas inside ``not``/``if``/``contains`` are never moved into ``$defs`` (so ``close_objects``
   never has to close a definition used in a negative position).

``mutate`` applies 1–3 semantic changes to a model (add/remove properties, toggle closure,
widen/narrow enums, unions and bounds, add/remove required entries, nullable on/off, retype a field;
and, as one extra operation ``kw`` per node, the newer keywords: add/remove/change ``if``/``then``/
``else``, ``dependentSchemas`` entries, ``patternProperties`` (add/remove/rename; the pattern's schema
is a node and mutates like any other), ``contains``/``minContains``/``maxContains``, ``not``, OpenAPI
``nullable``; tuples gain/lose a slot, open/close their tail, change ``minItems``). A model whose
``if``/``dependentSchemas``/``contains`` names a property that a mutation removed is tidied by
``_normalize`` (the keyword loses that name, or is dropped).

``SCHEMA_AUDIT_PBT_DISABLE`` (comma-separated names from ``FEATURE_RATES`` and ``SPELLINGS``) turns
features or spellings off, to isolate a failure while the engine is being changed.
"""

from __future__ import annotations

import copy
import json
import os
import random
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


# -- rendering ---------------------------------------------------------------------------------------
_TYPE = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
    "tuple": "array",
}


class _Renderer:
    """Renders a model. Each node draws its spelling choices from its own ``random.Random`` seeded
    with (seed, path of the node in the model), so when Hypothesis shrinks the model (drops a
    property, simplifies a sibling) the surviving nodes keep their spelling and a failure survives
    shrinking."""

    def __init__(self, seed: int, refs: bool) -> None:
        self.seed, self.refs = seed, refs
        self.defs: dict[str, Any] = {}

    def rng(self, path: str) -> random.Random:
        return random.Random(f"{self.seed}:{path}")

    @staticmethod
    def shuffled(rnd: random.Random, xs: list[Any]) -> list[Any]:
        xs = list(xs)
        rnd.shuffle(xs)
        return xs

    @staticmethod
    def spelling(rnd: random.Random, name: str, p: float) -> bool:
        """Use spelling ``name`` (probability ``p``)? Draws either way, so disabling one spelling
        keeps every other choice as it was."""
        return rnd.random() < p and name not in DISABLED

    def ref(self, schema: Any) -> dict[str, Any]:
        """Move ``schema`` into ``$defs`` (sharing an identical definition) and return a ``$ref``."""
        canon = json.dumps(schema, sort_keys=True)
        for name, existing in self.defs.items():
            if json.dumps(existing, sort_keys=True) == canon:
                return {"$ref": f"#/$defs/{name}"}
        name = f"D{len(self.defs)}"
        self.defs[name] = schema
        return {"$ref": f"#/$defs/{name}"}

    def maybe_ref(self, rnd: random.Random, schema: Any, p: float = 0.25) -> Any:
        return self.ref(schema) if self.refs and rnd.random() < p else schema

    @staticmethod
    def annotate(rnd: random.Random, schema: Any) -> Any:
        if isinstance(schema, dict) and rnd.random() < 0.15:
            schema = dict(schema)
            schema["title" if rnd.random() < 0.3 else "description"] = "some text"
        return schema

    # -- pieces for the newer keywords (never moved into $defs) --
    def value_test(self, rnd: random.Random, values: list[Any]) -> dict[str, Any]:
        """A schema accepting exactly ``values``: ``const`` / ``enum`` / ``anyOf`` of ``const``s."""
        values = self.shuffled(rnd, values)
        if values == [None]:
            return [{"type": "null"}, {"const": None}, {"enum": [None]}][rnd.randrange(3)]
        if len(values) == 1:
            return {"const": values[0]} if rnd.random() < 0.6 else {"enum": values}
        return {"enum": values} if rnd.random() < 0.7 else {"anyOf": [{"const": v} for v in values]}

    def render_cond(self, out: dict[str, Any], c: dict[str, Any], rnd: random.Random) -> None:
        cond: dict[str, Any] = {"properties": {c["key"]: self.value_test(rnd, [c["value"]])}}
        if c["if_required"]:
            cond["required"] = [c["key"]]
        out["if"] = cond
        for kw, names in (("then", c["then"]), ("else", c["else"])):
            if names:
                out[kw] = {"required": self.shuffled(rnd, names)}
            else:
                spelling = rnd.randrange(4)
                if spelling == 1:
                    out[kw] = True
                elif spelling == 2:
                    out[kw] = {}

    def dep_schema(self, rnd: random.Random, e: dict[str, Any]) -> dict[str, Any]:
        s: dict[str, Any] = {}
        if e.get("require"):
            s["required"] = self.shuffled(rnd, e["require"])
        if e.get("forbid"):
            forbid = self.shuffled(rnd, e["forbid"])
            s["not"] = {"required": forbid} if len(forbid) == 1 else {"anyOf": [{"required": [f]} for f in forbid]}
        return s

    def render_deps(self, out: dict[str, Any], deps: dict[str, Any], rnd: random.Random) -> None:
        keys = self.shuffled(rnd, list(deps))
        simple = [k for k in keys if not deps[k].get("forbid")]
        choice = rnd.random()
        if len(keys) == 1 and simple and "if" not in out and choice < 0.25 and "deps_if" not in DISABLED:
            # ≡ for the 2020-12 readers only (ts-sdk-v1 ignores dependentSchemas, runs if/then)
            out["if"] = {"required": [keys[0]]}
            out["then"] = self.dep_schema(rnd, deps[keys[0]])
        elif simple and choice < 0.5 and "deps_required" not in DISABLED:
            out["dependentRequired"] = {k: self.shuffled(rnd, deps[k]["require"]) for k in simple}
            rest = {k: self.dep_schema(rnd, deps[k]) for k in keys if k not in simple}
            if rest:
                out["dependentSchemas"] = rest
        else:
            out["dependentSchemas"] = {k: self.dep_schema(rnd, deps[k]) for k in keys}

    def render_contains(self, out: dict[str, Any], m: dict[str, Any], rnd: random.Random) -> None:
        c = m["contains"]
        test = self.value_test(rnd, [c["value"]])
        if c["key"] is not None:
            test = {"type": "object", "properties": {c["key"]: test}, "required": [c["key"]]}
        out["contains"] = test
        if m.get("minContains") is not None:
            out["minContains"] = m["minContains"]
        elif rnd.random() < 0.25:
            out["minContains"] = 1
        if m.get("maxContains") is not None:
            out["maxContains"] = m["maxContains"]

    def base(self, m: dict[str, Any], rnd: random.Random, path: str) -> Any:
        k = m["k"]
        if k == "any":
            if m.get("not_null"):
                return {"not": self.value_test(rnd, [None])}
            return True if rnd.random() < 0.5 else {}
        if k == "enum" and m.get("open"):
            # an open enum: its values plus every other value of the type (≡ the plain type)
            typ = "string" if isinstance(m["values"][0], str) else "integer"
            if not self.spelling(rnd, "open_enum_union", 0.7):
                return {"type": typ}
            listed = {"type": typ, "enum": self.shuffled(rnd, m["values"])}
            return {"anyOf": self.shuffled(rnd, [listed, {"type": typ}])}
        if k == "variants":
            # an anyOf of two open object variants (often behind $ref), the second a superset of the first
            short = {n: self.node(m["base"][n], f"{path}/{n}") for n in self.shuffled(rnd, list(m["base"]))}
            long = {
                **short,
                **{n: self.node(m["extra"][n], f"{path}/+{n}") for n in self.shuffled(rnd, list(m["extra"]))},
            }
            branches = [self.maybe_ref(rnd, {"type": "object", "properties": props}, 0.6) for props in (short, long)]
            return {"anyOf": self.shuffled(rnd, branches)}
        if k == "enum":
            vals = self.shuffled(rnd, m["values"])
            out: dict[str, Any] = {}
            if m["typed"]:
                out["type"] = "string" if isinstance(vals[0], str) else "integer"
            if len(vals) == 1 and rnd.random() < 0.5:
                out["const"] = vals[0]
            else:
                out["enum"] = vals
            return out
        if k == "union":
            types = self.shuffled(rnd, m["types"])
            if rnd.random() < 0.5:
                return {"type": types}
            return {"anyOf": [self.maybe_ref(rnd, {"type": t}, 0.1) for t in types]}
        if k == "map":
            return {"type": "object", "additionalProperties": self.node(m["values"], path + "/*")}
        out = {"type": _TYPE[k]}
        for kw in ("minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"):
            if m.get(kw) is not None:
                out[kw] = m[kw]
        if m.get("exclude"):
            out["not"] = self.value_test(rnd, m["exclude"])
        elif k in ("string", "integer", "number") and self.spelling(rnd, "double_not", 0.02):
            bounds = [kw for kw in ("minLength", "maxLength", "minimum", "maximum") if kw in out]
            if bounds:  # S ≡ not {not S}
                out["not"] = {"not": {bounds[0]: out.pop(bounds[0])}}
        if k == "tuple":
            out["prefixItems"] = [self.node(s, f"{path}/[{i}]") for i, s in enumerate(m["slots"])]
            spelling = rnd.randrange(4)
            if "tuple_tail" in DISABLED:
                spelling = 0
            if m["rest"] == "closed":  # ≡ for 2020-12 readers; ts-sdk-v1 reads each differently
                if spelling in (0, 3):
                    out["items"] = False
                elif spelling == 1:
                    out["unevaluatedItems"] = False
                else:
                    out["maxItems"] = len(m["slots"])
            elif spelling == 1:  # open tail: ≡ for every reader
                out["items"] = True if rnd.random() < 0.5 else {}
            elif spelling == 2:
                out["unevaluatedItems"] = True
        if k == "array":
            out["items"] = self.node(m["items"], path + "/[]")
            if m.get("contains"):
                self.render_contains(out, m, rnd)
        if k == "object":
            names = self.shuffled(rnd, list(m["props"]))
            out["properties"] = {n: self.node(m["props"][n], f"{path}/{n}") for n in names}
            if m["required"]:
                out["required"] = self.shuffled(rnd, m["required"])
            if m["closed"]:
                out["additionalProperties"] = False
            else:
                spelling = rnd.randrange(4)
                if spelling == 1:
                    out["additionalProperties"] = True
                elif spelling == 2:
                    out["additionalProperties"] = {}
            if m.get("patterns"):
                pats = self.shuffled(rnd, list(m["patterns"]))
                out["patternProperties"] = {p: self.node(m["patterns"][p], f"{path}/~{p}") for p in pats}
            if m.get("cond"):
                self.render_cond(out, m["cond"], rnd)
            if m.get("deps"):
                self.render_deps(out, m["deps"], rnd)
        if m.get("oas"):
            out["nullable"] = True
        return out

    def node(self, m: dict[str, Any], path: str = "", root: bool = False) -> Any:
        rnd = self.rng(path)
        base = self.base(m, rnd, path)
        if m.get("nullable"):
            if m["k"] == "enum" and not m.get("open") and rnd.random() < 0.4:
                # the type-list spelling of a nullable enum: null joins the enum (and the type, if any)
                values = base["enum"] if "enum" in base else [base["const"]]
                spelled: Any = {k: v for k, v in base.items() if k not in ("enum", "const")}
                spelled["enum"] = self.shuffled(rnd, values + [None])
                if "type" in base:
                    spelled["type"] = self.shuffled(rnd, [base["type"], "null"])
            elif m["k"] != "enum" and isinstance(base.get("type"), str) and rnd.random() < 0.5:
                spelled = {**base, "type": self.shuffled(rnd, [base["type"], "null"])}
            elif isinstance(base.get("type"), list) and rnd.random() < 0.5:
                spelled = {**base, "type": self.shuffled(rnd, base["type"] + ["null"])}
            elif isinstance(base.get("anyOf"), list) and rnd.random() < 0.5:
                spelled = {**base, "anyOf": self.shuffled(rnd, base["anyOf"] + [{"type": "null"}])}
            else:  # (``type: [T, "null"]`` next to an enum without null would still reject null)
                inner = self.annotate(rnd, self.maybe_ref(rnd, base))
                spelled = {"anyOf": self.shuffled(rnd, [inner, {"type": "null"}])}
        else:
            spelled = base
        if (
            isinstance(spelled, dict)
            and isinstance(spelled.get("type"), str)
            and "nullable" not in spelled
            and "anyOf" not in spelled
            and self.spelling(rnd, "union_sibling", 0.04)
        ):
            # the type beside a nullable union excludes its null branch (≡ the plain node, for every reader):
            # keywords beside a union apply to every branch
            spelled = {"type": spelled["type"], "anyOf": self.shuffled(rnd, [spelled, {"type": "null"}])}
        elif (
            isinstance(spelled, dict)
            and isinstance(spelled.get("anyOf"), list)
            and {"type": "null"} in spelled["anyOf"]
            and len(spelled) == 1
            and self.spelling(rnd, "union_sibling", 0.1)
        ):
            # a nullable union with a sibling type list that repeats what the branches allow
            types = sorted(
                {b.get("type") for b in spelled["anyOf"] if isinstance(b, dict) and isinstance(b.get("type"), str)}
            )
            if len(types) == len(spelled["anyOf"]):
                spelled = {"type": types, **spelled}
        if (
            isinstance(spelled, dict)
            and "nullable" not in spelled
            and isinstance(spelled.get("type"), (str, list))
            and "anyOf" not in spelled
            and self.spelling(rnd, "nullable_spelling", 0.005)
        ):
            # OpenAPI nullable that changes nothing for any reader: false beside a type without
            # "null", true beside a type that lists it (Ajv refuses "nullable: false" there)
            t = spelled["type"]
            spelled = {**spelled, "nullable": "null" in (t if isinstance(t, list) else [t])}
        if not root and rnd.random() < 0.06:
            spelled = {"anyOf": [spelled]}
        if not root:
            spelled = self.maybe_ref(rnd, spelled, 0.2)
        return self.annotate(rnd, spelled)


def render(model: dict[str, Any], seed: int, refs: bool = True) -> dict[str, Any]:
    """JSON Schema for a tool model; every choice driven by ``seed`` is an equivalent spelling (see module doc)."""
    r = _Renderer(seed, refs)
    schema = r.node(model, root=True)
    if r.defs:
        schema = {**schema, "$defs": {n: r.defs[n] for n in r.shuffled(r.rng("$defs"), list(r.defs))}}
    return schema


# -- mutations ---------------------------------------------------------------------------------------
def _nodes(
    m: dict[str, Any], depth: int = 0, out: list[tuple[dict[str, Any], int]] | None = None
) -> list[tuple[dict[str, Any], int]]:
    out = [] if out is None else out
    out.append((m, depth))
    if m["k"] == "object":
        for child in m["props"].values():
            _nodes(child, depth + 1, out)
        for child in m.get("patterns", {}).values():
            _nodes(child, depth + 1, out)
    elif m["k"] == "array":
        _nodes(m["items"], depth + 1, out)
    elif m["k"] == "tuple":
        for child in m["slots"]:
            _nodes(child, depth + 1, out)
    elif m["k"] == "map":
        _nodes(m["values"], depth + 1, out)
    elif m["k"] == "variants":
        for child in (*m["base"].values(), *m["extra"].values()):
            _nodes(child, depth + 1, out)
    return out


def _ops(m: dict[str, Any], depth: int) -> list[str]:
    ops = [] if depth == 0 else ["toggle_nullable", "retype"]
    k = m["k"]
    if k == "object":
        ops += ["add_prop", "toggle_closed", "add_required", "remove_required"]
        if len(m["props"]) > 1:
            ops.append("remove_prop")
    elif k == "string":
        ops += ["minLength", "maxLength", "to_enum", "both_bounds", "to_const"]
    elif k in ("integer", "number"):
        ops += ["minimum", "maximum", "int_number", "both_bounds", "int_number_bounds"]
    elif k == "enum":
        ops += ["enum_add", "enum_drop"] + (["enum_remove"] if len(m["values"]) > 1 else [])
        ops += ["enum_close"] if m.get("open") else []
    elif k == "array":
        ops += ["minItems", "maxItems", "both_bounds"]
    elif k == "variants":
        ops += ["variant_add", "variant_retype", "variant_merge"]
    elif k == "tuple":  # (Hypothesis favours the first and last index: slots change most often)
        ops = ["add_slot"] + ops + ["toggle_rest", "tuple_minItems"] + (["remove_slot"] if len(m["slots"]) > 1 else [])
    elif k == "union":
        ops += ["union_add"] if len(m["types"]) < len(SCALARS) else []
        ops += ["union_remove"]
    if k == "any":
        ops = [o for o in ops if o != "toggle_nullable"] + ["to_const"]
    if _kw_ops(m, depth):
        ops.append("kw")  # one slot for every newer-keyword operation: the old mix stays as it was
    return ops


def _kw_ops(m: dict[str, Any], depth: int) -> list[str]:
    """Mutations of the newer keywords that apply to ``m`` (chosen among by the ``kw`` operation)."""
    k, ops = m["k"], []
    if "oas" not in DISABLED and (k in SCALARS or k in ("array", "tuple") or (k == "object" and depth > 0)):
        ops.append("toggle_oas")
    if k in ("string", "integer") and "not" not in DISABLED:
        ops += ["change_not", "remove_not"] if m.get("exclude") else ["add_not"]
    if k == "any" and "not_null" not in DISABLED:
        ops.append("toggle_not_null")
    if k == "object":
        if len(m["props"]) >= 2 and "cond" not in DISABLED:
            ops += (
                ["cond_then", "cond_else", "cond_value", "cond_if_required", "remove_cond"]
                if m.get("cond")
                else ["add_cond"]
            )
        if len(m["props"]) >= 2 and "deps" not in DISABLED:
            ops += ["dep_change", "remove_dep"] if m.get("deps") else []
            ops += ["add_dep"] if set(m["props"]) - set(m.get("deps", {})) else []
        if "patterns" not in DISABLED:
            ops += ["add_pattern"] if len(m.get("patterns", {})) < len(PATTERNS) else []
            ops += ["remove_pattern", "rename_pattern"] if m.get("patterns") else []
    if k == "array" and "contains" not in DISABLED:
        ops += (
            ["remove_contains", "contains_value", "minContains", "maxContains"]
            if m.get("contains")
            else ["add_contains"]
        )
    return ops


def _set_bound(draw: Any, m: dict[str, Any], kw: str, lo: int, hi: int, values: Any = None) -> None:
    """Widen, narrow, add or drop one bound (keeping min <= max when both exist)."""
    other = {
        "minLength": "maxLength",
        "maxLength": "minLength",
        "minimum": "maximum",
        "maximum": "minimum",
        "minItems": "maxItems",
        "maxItems": "minItems",
        "minContains": "maxContains",
        "maxContains": "minContains",
    }[kw]
    cur = m.get(kw)
    choices = [None] + list(values if values is not None else range(lo, hi + 1))
    new = _pick(draw, [c for c in choices if c != cur] or [None])
    if new is not None and m.get(other) is not None:
        if kw.startswith("min") and new > m[other]:
            new = m[other]
        if kw.startswith("max") and new < m[other]:
            new = m[other]
    m[kw] = new


def _toggle(draw: Any, names: list[str], pool: list[str]) -> list[str]:
    """``names`` with one element of ``pool`` added or removed."""
    if not pool:
        return names
    name = _pick(draw, pool)
    return [n for n in names if n != name] if name in names else names + [name]


def _kw_mutation(draw: Any, m: dict[str, Any], op: str) -> None:
    names = list(m.get("props", {}))
    if op == "toggle_oas":
        if m.pop("oas", False) is False:
            m["oas"] = True
    elif op in ("add_not", "change_not"):
        kind = m["k"]
        new = draw(_EXCLUDE[kind])
        if new == m.get("exclude"):
            new = [v for v in (STR_VALUES if kind == "string" else INT_VALUES) if v not in new][:1]
        m["exclude"] = new
    elif op == "remove_not":
        del m["exclude"]
    elif op == "toggle_not_null":
        if m.pop("not_null", False) is False:
            m["not_null"] = True
    elif op == "add_cond":
        m["cond"] = _draw_cond(draw, m["props"])
    elif op in ("cond_then", "cond_else"):
        c, kw = m["cond"], op[5:]
        c[kw] = _toggle(draw, c[kw], [n for n in names if n != c["key"]])
    elif op == "cond_value":
        c = m["cond"]
        old = c["value"]
        for _ in range(3):
            c["value"] = _value_for(draw, m["props"][c["key"]])
            if c["value"] != old:
                break
    elif op == "cond_if_required":
        m["cond"]["if_required"] = not m["cond"]["if_required"]
    elif op == "remove_cond":
        del m["cond"]
    elif op == "add_dep":
        key = _pick(draw, [n for n in names if n not in m.get("deps", {})])
        m.setdefault("deps", {})[key] = _draw_dep(draw, key, names)
    elif op == "dep_change":
        key = _pick(draw, sorted(m["deps"]))
        e = m["deps"][key]
        which = "forbid" if e.get("forbid") and (not e.get("require") or draw(st.booleans())) else "require"
        e[which] = _toggle(draw, e.get(which, []), [n for n in names if n != key])
    elif op == "remove_dep":
        del m["deps"][_pick(draw, sorted(m["deps"]))]
    elif op == "add_pattern":
        pat = _pick(draw, [p for p in PATTERNS if p not in m.get("patterns", {})])
        m.setdefault("patterns", {})[pat] = draw(leaf_model())
    elif op == "remove_pattern":
        del m["patterns"][_pick(draw, sorted(m["patterns"]))]
    elif op == "rename_pattern":
        free = [p for p in PATTERNS if p not in m["patterns"]]
        if free:
            m["patterns"][_pick(draw, free)] = m["patterns"].pop(_pick(draw, sorted(m["patterns"])))
    elif op == "add_contains":
        _draw_contains(draw, m)
    elif op == "remove_contains":
        for kw in ("contains", "minContains", "maxContains"):
            m.pop(kw, None)
    elif op == "contains_value":
        c = m["contains"]
        props = m["items"].get("props") if m["items"].get("k") == "object" else None
        if c["key"] is not None and (props is None or c["key"] not in props):
            c["key"] = None  # an earlier mutation retyped the items or dropped the key: contains a whole item
        target = props[c["key"]] if c["key"] is not None else m["items"]
        c["value"] = _value_for(draw, target)
    elif op in ("minContains", "maxContains"):
        _set_bound(draw, m, op, 0 if op == "minContains" else 1, 3)


def _normalize(model: dict[str, Any]) -> None:
    """Tidy keywords that name properties a mutation removed (or retyped away), in place."""
    for m, _ in _nodes(model):
        if m["k"] == "object":
            props = m["props"]
            c = m.get("cond")
            if c is not None:
                for kw in ("then", "else"):
                    c[kw] = [n for n in c[kw] if n in props and n != c["key"]]
                if c["key"] not in props or not (c["then"] or c["else"]):
                    del m["cond"]
            deps = m.get("deps")
            if deps is not None:
                for key in list(deps):
                    e = deps[key]
                    for kw in ("require", "forbid"):
                        if kw in e:
                            e[kw] = [n for n in e[kw] if n in props and n != key]
                            if not e[kw]:
                                del e[kw]
                    if key not in props or not e:
                        del deps[key]
                if not deps:
                    del m["deps"]
            if m.get("patterns") == {}:
                del m["patterns"]
        elif m["k"] == "array" and m.get("contains"):
            c, items = m["contains"], m["items"]
            ok = (items["k"] == "object" and c["key"] in items["props"]) or (
                items["k"] != "object" and c["key"] is None
            )
            if not ok:
                for kw in ("contains", "minContains", "maxContains"):
                    m.pop(kw, None)
        elif m["k"] == "tuple" and m["minItems"] is not None:
            m["minItems"] = min(m["minItems"], len(m["slots"]))


@st.composite
def mutate(draw: Any, model: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(mutated deep copy of ``model``, list of applied mutation labels)."""
    new = copy.deepcopy(model)
    labels: list[str] = []
    for _ in range(draw(_index(3)) + 1):
        nodes = _nodes(new)
        idx = draw(_index(len(nodes)))
        m, depth = nodes[idx]
        ops = _ops(m, depth)
        if not ops:
            continue
        op = _pick(draw, ops)
        if op == "kw":
            op = _pick(draw, _kw_ops(m, depth))
            labels.append(f"{op}@{idx}")
            _kw_mutation(draw, m, op)
            continue
        labels.append(f"{op}@{idx}")
        if op == "toggle_nullable":
            m["nullable"] = not m.get("nullable", False)
        elif op == "retype":
            fresh = draw(leaf_model(_pick(draw, [k for k in LEAF_KINDS if k != m["k"]])))
            m.clear()
            m.update(fresh)
        elif op == "add_prop":
            free = [n for n in NAMES if n not in m["props"]]
            if not free:
                continue
            name = _pick(draw, free)
            m["props"][name] = draw(node_model(depth + 1) if depth + 1 < MAX_DEPTH else leaf_model())
            if draw(st.booleans()):
                m["required"].append(name)
        elif op == "remove_prop":
            name = _pick(draw, sorted(m["props"]))
            del m["props"][name]
            m["required"] = [r for r in m["required"] if r != name]
        elif op == "toggle_closed":
            m["closed"] = not m["closed"]
        elif op == "add_required":
            free = [n for n in m["props"] if n not in m["required"]]
            if free:
                m["required"].append(_pick(draw, free))
        elif op == "remove_required":
            if m["required"]:
                m["required"].remove(_pick(draw, m["required"]))
        elif op in ("minLength", "maxLength"):
            _set_bound(draw, m, op, 0, 12)
        elif op in ("minimum", "maximum"):
            _set_bound(draw, m, op, -5, 100, NUMBER_BOUNDS if m["k"] == "number" else None)
        elif op in ("minItems", "maxItems"):
            _set_bound(draw, m, op, 0, 5)
        elif op == "int_number":
            m["k"] = "number" if m["k"] == "integer" else "integer"
        elif op == "to_enum":
            m.clear()
            m.update({"k": "enum", "values": draw(_STR_ENUM), "typed": draw(st.booleans()), "nullable": draw(_rare())})
        elif op == "union_add":
            m["types"].append(_pick(draw, [t for t in SCALARS if t not in m["types"]]))
        elif op == "union_remove":
            m["types"].remove(_pick(draw, m["types"]))
            if len(m["types"]) == 1:
                m.update({"k": m["types"][0], "minLength": None, "maxLength": None, "minimum": None, "maximum": None})
                del m["types"]
        elif op == "both_bounds":
            pair = {"string": ("minLength", "maxLength", 0, 12), "array": ("minItems", "maxItems", 0, 5)}.get(
                m["k"], ("minimum", "maximum", -5, 100)
            )
            lo, hi = sorted((_pick(draw, range(pair[2], pair[3] + 1)), _pick(draw, range(pair[2], pair[3] + 1))))
            m[pair[0]], m[pair[1]] = lo, hi
        elif op == "int_number_bounds":
            m["k"] = "number" if m["k"] == "integer" else "integer"
            lo, hi = sorted((_pick(draw, range(-5, 11)), _pick(draw, range(-5, 101))))
            m["minimum"], m["maximum"] = lo, hi
        elif op == "to_const":
            value = _pick(draw, STR_VALUES)
            m.clear()
            m.update({"k": "enum", "values": [value], "typed": False, "nullable": False})
        elif op == "enum_close":
            del m["open"]
        elif op == "variant_add":
            free = [n for n in NAMES if n not in m["base"] and n not in m["extra"]]
            if free:
                m["extra"][_pick(draw, free)] = draw(leaf_model())
        elif op == "variant_retype":
            pool = sorted(m["base"]) + sorted(m["extra"])
            name = _pick(draw, pool)
            where = m["base"] if name in m["base"] else m["extra"]
            where[name] = draw(leaf_model(_pick(draw, [k for k in LEAF_KINDS if k != where[name]["k"]])))
        elif op == "variant_merge":
            m["extra"] = {}
        elif op == "enum_add":
            pool = STR_VALUES if isinstance(m["values"][0], str) else INT_VALUES
            free = [v for v in pool if v not in m["values"]]
            if free:
                m["values"].append(_pick(draw, free))
        elif op == "enum_remove":
            m["values"].remove(_pick(draw, m["values"]))
        elif op == "enum_drop":
            kind = "string" if isinstance(m["values"][0], str) else "integer"
            nullable = m.get("nullable", False)
            m.clear()
            m.update(draw(leaf_model(kind)))
            m["nullable"] = nullable
        elif op == "add_slot":
            m["slots"].append(draw(leaf_model()))
        elif op == "remove_slot":
            m["slots"].pop()
        elif op == "toggle_rest":
            m["rest"] = "open" if m["rest"] == "closed" else "closed"
        elif op == "tuple_minItems":
            _set_bound(draw, m, "minItems", 0, len(m["slots"]))
    _normalize(new)
    return new, labels


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
