"""Renderings of a schema model (``schema_models``) as JSON Schema, each an equivalent spelling.

A **rendering** of the model to JSON Schema (2020-12, no ``$schema``) driven by a seed that
hypothesis draws (per node: see ``_Renderer``). Every random choice of the renderer is an
*equivalent spelling* from docs/verdicts.md (Direction and severity) (or a direct instance of one): property /
``enum`` / ``required`` / ``anyOf`` order, ``const x`` ↔ ``enum [x]``, ``true`` ↔ ``{}`` (and an open object's
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
"""

from __future__ import annotations

import json
import random
from typing import Any

from schema_models import DISABLED

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
        if k == "raw":  # a subschema given as JSON Schema (``schema_classes``): spelled as it is
            return json.loads(json.dumps(m["schema"]))
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
