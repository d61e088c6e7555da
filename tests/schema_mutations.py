"""Hypothesis strategies for real-looking MCP tool schemas, their mutations and equivalent rewrites.

Used by ``test_property_crosscheck.py``. Schemas are generated in two steps:

1. a small **model** (plain dicts, easy to mutate and to read in a shrunk failure)::

       {"k": "object", "props": {"id": <model>, ...}, "required": ["id"], "closed": True, "nullable": False}
       {"k": "array", "items": <model>, "minItems": None, "maxItems": 3, "nullable": False}
       {"k": "string", "minLength": 1, "maxLength": None, "nullable": True}
       {"k": "integer" | "number", "minimum": 0, "maximum": None, "nullable": False}
       {"k": "boolean", "nullable": False}
       {"k": "enum", "values": ["a", "b"], "typed": True, "nullable": False}
       {"k": "union", "types": ["string", "integer"], "nullable": False}   # Union[str, int]
       {"k": "map", "values": <model>, "nullable": False}   # additionalProperties: <schema>
       {"k": "any"}

2. a **rendering** of the model to JSON Schema (2020-12, no ``$schema``) driven by a seed that
   hypothesis draws (per node: see ``_Renderer``). Every random choice of the renderer is an
   *equivalent spelling* from DESIGN.md §2 (or a direct instance of one): property / ``enum`` / ``required``
   / ``anyOf`` order, ``const x`` ↔ ``enum [x]``, ``true`` ↔ ``{}`` (and an open object's
   ``additionalProperties`` absent ↔ ``true`` ↔ ``{}``), ``type: [T, "null"]`` ↔
   ``anyOf: [{type: T}, {type: "null"}]`` (for an enum T: ``{type: [T, "null"], enum: [..., null]}``
   or ``{enum: [..., null]}``; and ``type: [A, B]`` ↔ ``anyOf: [{type: A}, {type: B}]``),
   a single-branch ``anyOf: [X]`` ↔ ``X``, inline ↔ local ``$ref`` into ``$defs`` (identical
   subschemas share one definition), ``title``/``description`` annotations. Two renderings of the
   same model are therefore equivalent schemas.

``mutate`` applies 1–3 semantic changes to a model (add/remove properties, toggle closure,
widen/narrow enums, unions and bounds, add/remove required entries, nullable on/off, retype a field).
"""

from __future__ import annotations

import copy
import json
import random
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

NAMES = ("id", "name", "count", "score", "enabled", "tags", "kind", "items", "meta", "note", "limit", "cursor")
STR_VALUES = ("a", "b", "c", "d", "e")
INT_VALUES = (0, 1, 2, 3, 7)
LEAF_KINDS = ("string", "integer", "number", "boolean", "enum", "union", "any")
SCALARS = ("string", "integer", "number", "boolean")
NUMBER_BOUNDS = tuple(range(-5, 11)) + (0.5, 2.5, 99.5, 100)
MAX_DEPTH = 2  # root object = 0; nested objects / array items at 1; leaves below


@lru_cache(maxsize=None)
def _rare(n: int = 4) -> st.SearchStrategy[bool]:
    """True with probability 1/n; shrinks towards False."""
    return st.integers(0, n - 1).map(lambda x: x == n - 1)


@lru_cache(maxsize=None)
def _opt_int(lo: int, hi: int) -> st.SearchStrategy[int | None]:
    """None (shrinks here) or an int in [lo, hi]."""
    return st.one_of(st.none(), st.integers(lo, hi))


# Strategies are built once and cached: constructing and validating fresh strategy objects on every
# draw dominated the generation time.
def _pick(draw: Any, seq: Any) -> Any:
    seq = list(seq)
    return seq[draw(_index(len(seq)))]


@lru_cache(maxsize=None)
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


# -- models ------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def leaf_model(kind: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    return _leaf_model(kind)


@st.composite
def _leaf_model(draw: Any, kind: str | None = None) -> dict[str, Any]:
    kind = kind or _pick(draw, LEAF_KINDS)
    nullable = draw(_rare()) if kind != "any" else False
    if kind == "string":
        lo, hi = draw(_opt_int(0, 4)), draw(_opt_int(0, 12))
        if lo is not None and hi is not None and hi < lo:
            lo, hi = hi, lo
        return {"k": "string", "minLength": lo, "maxLength": hi, "nullable": nullable}
    if kind in ("integer", "number"):
        lo, hi = draw(_opt_int(-5, 10)), draw(_opt_int(-5, 100))
        if kind == "number" and draw(_rare(3)):
            lo, hi = draw(_opt_bound), draw(_opt_bound)
        if lo is not None and hi is not None and hi < lo:
            lo, hi = hi, lo
        return {"k": kind, "minimum": lo, "maximum": hi, "nullable": nullable}
    if kind == "boolean":
        return {"k": "boolean", "nullable": nullable}
    if kind == "union":
        return {"k": "union", "types": draw(_UNION_TYPES), "nullable": nullable}
    if kind == "enum":
        values = draw(_ENUM_VALUES)
        return {"k": "enum", "values": values, "typed": draw(st.booleans()), "nullable": nullable}
    return {"k": "any"}


_opt_bound = st.one_of(st.none(), st.sampled_from(NUMBER_BOUNDS))
_UNION_TYPES = st.lists(st.sampled_from(SCALARS), min_size=2, max_size=3, unique=True)
_ENUM_VALUES = st.one_of(st.lists(st.sampled_from(STR_VALUES), min_size=1, max_size=4, unique=True),
                         st.lists(st.sampled_from(INT_VALUES), min_size=1, max_size=4, unique=True))
_STR_ENUM = st.lists(st.sampled_from(STR_VALUES), min_size=1, max_size=3, unique=True)


@lru_cache(maxsize=None)
def node_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    if depth >= MAX_DEPTH:
        return leaf_model()
    return st.one_of(leaf_model(), leaf_model(), leaf_model(), array_model(depth), object_model(depth),
                     map_model(depth))


@lru_cache(maxsize=None)
def object_model(depth: int, root: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return _object_model(depth, root)


@lru_cache(maxsize=None)
def _names(root: bool) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(NAMES), min_size=1, max_size=8 if root else 3, unique=True)


@st.composite
def _object_model(draw: Any, depth: int, root: bool = False) -> dict[str, Any]:
    names = draw(_names(root))
    props = {n: draw(node_model(depth + 1)) for n in names}
    required = [n for n in names if draw(st.booleans())]
    return {"k": "object", "props": props, "required": required, "closed": draw(_rare(3)),
            "nullable": False if root else draw(_rare())}


@lru_cache(maxsize=None)
def map_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "object", "additionalProperties": <values>}`` (a Record<string, T>)."""
    return st.builds(lambda values, nullable: {"k": "map", "values": values, "nullable": nullable},
                     st.one_of(leaf_model(), object_model(depth + 1)), _rare())


@lru_cache(maxsize=None)
def array_model(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return _array_model(depth)


@st.composite
def _array_model(draw: Any, depth: int) -> dict[str, Any]:
    items = draw(st.one_of(object_model(depth + 1), leaf_model()))  # mostly array-of-objects
    lo, hi = draw(_opt_int(0, 2)), draw(_opt_int(1, 5))
    if lo is not None and hi is not None and hi < lo:
        lo, hi = hi, lo
    return {"k": "array", "items": items, "minItems": lo, "maxItems": hi, "nullable": draw(_rare())}


def tool_model() -> st.SearchStrategy[dict[str, Any]]:
    """A tool's input or output schema model: a non-nullable object with 1–8 properties."""
    return object_model(0, root=True)


# -- rendering ---------------------------------------------------------------------------------------
_TYPE = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
         "object": "object", "array": "array"}


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

    def base(self, m: dict[str, Any], rnd: random.Random, path: str) -> Any:
        k = m["k"]
        if k == "any":
            return True if rnd.random() < 0.5 else {}
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
        if k == "array":
            out["items"] = self.node(m["items"], path + "/[]")
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
        return out

    def node(self, m: dict[str, Any], path: str = "", root: bool = False) -> Any:
        rnd = self.rng(path)
        base = self.base(m, rnd, path)
        if m.get("nullable"):
            if m["k"] == "enum" and rnd.random() < 0.4:
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
def _nodes(m: dict[str, Any], depth: int = 0, out: list[tuple[dict[str, Any], int]] | None = None) -> list[tuple[dict[str, Any], int]]:
    out = [] if out is None else out
    out.append((m, depth))
    if m["k"] == "object":
        for child in m["props"].values():
            _nodes(child, depth + 1, out)
    elif m["k"] == "array":
        _nodes(m["items"], depth + 1, out)
    elif m["k"] == "map":
        _nodes(m["values"], depth + 1, out)
    return out


def _ops(m: dict[str, Any], depth: int) -> list[str]:
    ops = [] if depth == 0 else ["toggle_nullable", "retype"]
    k = m["k"]
    if k == "object":
        ops += ["add_prop", "toggle_closed", "add_required", "remove_required"]
        if len(m["props"]) > 1:
            ops.append("remove_prop")
    elif k == "string":
        ops += ["minLength", "maxLength", "to_enum"]
    elif k in ("integer", "number"):
        ops += ["minimum", "maximum", "int_number"]
    elif k == "enum":
        ops += ["enum_add", "enum_drop"] + (["enum_remove"] if len(m["values"]) > 1 else [])
    elif k == "array":
        ops += ["minItems", "maxItems"]
    elif k == "union":
        ops += ["union_add"] if len(m["types"]) < len(SCALARS) else []
        ops += ["union_remove"]
    if k == "any":
        ops = [o for o in ops if o != "toggle_nullable"]
    return ops


def _set_bound(draw: Any, m: dict[str, Any], kw: str, lo: int, hi: int, values: Any = None) -> None:
    """Widen, narrow, add or drop one bound (keeping min <= max when both exist)."""
    other = {"minLength": "maxLength", "maxLength": "minLength", "minimum": "maximum", "maximum": "minimum",
             "minItems": "maxItems", "maxItems": "minItems"}[kw]
    cur = m.get(kw)
    choices = [None] + list(values if values is not None else range(lo, hi + 1))
    new = _pick(draw, [c for c in choices if c != cur] or [None])
    if new is not None and m.get(other) is not None:
        if kw.startswith("min") and new > m[other]:
            new = m[other]
        if kw.startswith("max") and new < m[other]:
            new = m[other]
    m[kw] = new


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
            m.update({"k": "enum", "values": draw(_STR_ENUM),
                      "typed": draw(st.booleans()), "nullable": draw(_rare())})
        elif op == "union_add":
            m["types"].append(_pick(draw, [t for t in SCALARS if t not in m["types"]]))
        elif op == "union_remove":
            m["types"].remove(_pick(draw, m["types"]))
            if len(m["types"]) == 1:
                m.update({"k": m["types"][0], "minLength": None, "maxLength": None, "minimum": None,
                          "maximum": None})
                del m["types"]
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
    return new, labels


# -- closing for instance generation -------------------------------------------------------------------
def close_objects(schema: Any, root: Any = None) -> Any:
    """A copy of ``schema`` where every object subschema whose ``additionalProperties`` only
    *tolerates* extra keys (absent, ``true``, ``{}``, annotations only, or a local ``$ref`` to one of
    those) gets ``additionalProperties: false``.

    Used only to draw instances: it narrows the schema to the values it *declares* (DESIGN.md §2:
    ``properties`` and ``additionalProperties`` *schemas* are declarations, an open object is not;
    so ``{"type": "object"}`` declares only ``{}``, and ``additionalProperties: {"type": "string"}``
    is kept). The generated schemas use no ``not``/``if``, so the result is a subset of ``schema``.
    Only schema positions are visited (``properties`` maps, ``items``, ``additionalProperties``,
    ``anyOf``/``oneOf``/``allOf``, ``$defs``), never ``enum``/``const`` values or property names.
    """
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for kw in ("properties", "$defs", "definitions", "patternProperties"):
        if isinstance(out.get(kw), dict):
            out[kw] = {k: close_objects(v, root) for k, v in out[kw].items()}
    for kw in ("items", "additionalProperties"):
        if isinstance(out.get(kw), dict):
            out[kw] = close_objects(out[kw], root)
    for kw in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(kw), list):
            out[kw] = [close_objects(v, root) for v in out[kw]]
    types = out.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types) or "properties" in out
    if is_object and _tolerates_anything(schema.get("additionalProperties", True), root):
        out["additionalProperties"] = False
    return out


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
