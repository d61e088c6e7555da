"""Normalization: every raw schema node becomes a ``Node`` that means the same and reads one way.

The walk compares normalized nodes only, so each class of spelling difference is settled here,
once, instead of in every comparison:

- **intersection, never overwrite**: ``allOf`` members, the target of a ``$ref`` and its sibling
  keywords, and the siblings of an ``anyOf``/``oneOf`` are intersected keyword by keyword (both
  ``type``s in force → their intersection; two ``enum``s → the common values; two bounds → the
  stricter; ``required`` → the union; two different ``pattern``s → both kept, one in a leftover
  ``allOf``). A union's siblings go into every branch (JSON Schema Core 2020-12 §10.2.1: the
  keywords of one schema object all apply), and a branch the siblings exclude disappears.
  ``additionalProperties`` sees only the ``properties`` of its own schema object (§10.3.2.3), so an
  object merge gives each property the conjunction of what both sides apply to it;
- **unions flattened**: ``type`` lists, nullable spellings, nested ``anyOf`` become one list of
  single-type branches; an ``anyOf`` branch whose values another branch accepts (an open enum with
  a plain-string fallback) is absorbed; identical branches collapse; one branch is the node itself;
- **equivalent spellings**: ``const``/``enum`` keep only the values their own type and sibling
  keywords accept (and stand for the whole node: ``type`` is implied); integer bounds are inclusive
  (``exclusiveMinimum: 0`` ≡ ``minimum: 1``); ``not: {not: S}`` is ``S``;
- **no-op keywords dropped**: annotations and unknown keywords, ``propertyNames: {type: string}``,
  ``additionalProperties: {}``, ``minLength: 0``, ``required: []``, keywords of a type the node
  excludes (``maxLength`` on an integer), and bounds at the interoperability limits (RFC 7493 §2.2:
  integers beyond ±(2^53−1) are not interoperable; zod 4 adds these bounds to every ``.int()``),
  which are kept aside in ``Node.limits`` so the walk can report them at info.

Normalization is shallow and lazy: a node's own keywords are settled, its subschemas (properties,
items, …) are normalized when the walk reaches them, so recursive schemas terminate and ``$ref``
targets are normalized once. Every ``Node`` keeps the JSON Pointer of where its keywords came from
(``nodes.Node``). Raises ``Budget`` for in-place cycles and union explosions (``MAX_BRANCHES``).
"""

from __future__ import annotations

import math
from typing import Any

from mcp_schema_audit.engine.issue import Budget, canon, value_key
from mcp_schema_audit.engine.nodes import (
    ASSERTIONS,
    KEYWORDS_OF_TYPE,
    TYPED_KEYWORDS,
    Node,
    Tokens,
    union_branches,
    union_list,
)
from mcp_schema_audit.schema import RefError, SchemaDoc, json_type

#: Union branches one node may expand into; more → the comparison of that tool stops with a warning.
MAX_BRANCHES = 64
#: In-place applicators (``allOf``/``anyOf``/``$ref``) followed from one node before giving up.
MAX_INPLACE_DEPTH = 32
#: The interoperability limit of JSON numbers (RFC 7493 §2.2, I-JSON): ±(2^53−1).
INTEROP_LIMIT = 2**53 - 1
#: Bound keywords of which the stricter of two values holds when both apply.
_STRICTER = {
    "minimum": max,
    "exclusiveMinimum": max,
    "minLength": max,
    "minItems": max,
    "minProperties": max,
    "minContains": max,
    "maximum": min,
    "exclusiveMaximum": min,
    "maxLength": min,
    "maxItems": min,
    "maxProperties": min,
    "maxContains": min,
}
#: Keywords whose value is a schema that accepts everything when it is ``true`` or ``{}``.
_OPEN_WHEN_TRUE = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "additionalItems",
    "propertyNames",
)
_APPLICATORS = ("allOf", "anyOf", "oneOf", "$ref")
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


def is_number(x: Any) -> bool:
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


def _meet_types(a: list[str], b: list[str]) -> list[str]:
    out = []
    for t in a:
        if t in b:
            out.append(t)
        elif t == "number" and "integer" in b or t == "integer" and "number" in b:
            out.append("integer")
    return list(dict.fromkeys(out))


def _closes(value: Any) -> bool:
    """Does ``additionalProperties``/``unevaluatedProperties`` ``value`` constrain undeclared keys?"""
    return tolerant(value) is not True


class Normalizer:
    """Turns raw nodes of one ``SchemaDoc`` into ``Node``s (see the module docstring), memoized.

    ``root_type``: a type the document's root always has (``"object"`` for an inputSchema: MCP
    ``arguments`` is always an object), intersected into the root.
    """

    def __init__(self, doc: SchemaDoc, root_type: str | None = None) -> None:
        self.doc = doc
        self.root_type = root_type
        self._memo: dict[tuple[int, Tokens], tuple[Any, Any]] = {}
        self._active: set[tuple[int, Tokens]] = set()
        self._members: dict[int, tuple[Any, list[Tokens]]] = {}  # id(synthetic allOf) → (it, member locations)
        self._where: dict[int, Tokens] | None = None

    # -- entry points ------------------------------------------------------------------------------------
    def norm(self, raw: Any, at: Tokens = ()) -> Any:
        """The normalized ``Node`` of ``raw`` (a subschema of this document located at ``at``), ``False``
        for a schema that accepts nothing, or ``raw`` itself when it is not a schema (neither an object
        nor a boolean: the walk reports it). Raises ``Budget`` (in-place cycle, too many branches)."""
        if isinstance(raw, Node):
            return raw
        if raw is False:
            return False
        if raw is True:
            raw = {}
        if not isinstance(raw, dict):
            return raw
        key = (id(raw), at)
        hit = self._memo.get(key)
        if hit is not None:
            return hit[1]
        if key in self._active or len(self._active) > MAX_INPLACE_DEPTH:
            raise Budget("an in-place $ref/allOf/anyOf cycle (a schema that applies itself at the same place)")
        self._active.add(key)
        try:
            node = self._norm(raw, at)
        finally:
            self._active.discard(key)
        self._memo[key] = (raw, node)
        return node

    def locate(self, raw: Any) -> Tokens | None:
        """Where ``raw`` (an object of this document) lives, for ``$ref`` targets without a local pointer."""
        if self._where is None:
            where: dict[int, Tokens] = {}
            stack: list[tuple[Any, Tokens]] = [(self.doc.root, ())]
            while stack and len(where) < 500_000:
                value, at = stack.pop()
                if isinstance(value, dict):
                    where.setdefault(id(value), at)
                    stack.extend((v, (*at, k)) for k, v in value.items())
                elif isinstance(value, list):
                    stack.extend((v, (*at, i)) for i, v in enumerate(value))
            self._where = where
        return self._where.get(id(raw))

    def deref(self, raw: Any, at: Tokens) -> tuple[Any, Tokens]:
        """Follow a bare ``$ref`` chain (no sibling keywords) to its target: ``(target, its location)``.
        Raises ``RefError`` for a missing, remote or cyclic chain."""
        for _ in range(32):
            if not (isinstance(raw, dict) and isinstance(raw.get("$ref"), str)):
                return raw, at
            target, tokens = self.doc.lookup(raw["$ref"])
            located = tuple(tokens) if not (tokens and str(tokens[0]).startswith("$ref:")) else self.locate(target)
            raw, at = target, located if located is not None else at
        raise RefError("$ref chain too long or cyclic")

    # -- one node ------------------------------------------------------------------------------------------
    def _norm(self, raw: dict[str, Any], at: Tokens) -> Any:
        base = Node({k: v for k, v in raw.items() if k in ASSERTIONS and k not in _APPLICATORS}, at)
        parts: list[Any] = []
        inner = base.get("not")
        if isinstance(inner, dict) and set(inner) == {"not"}:
            # double negation: not {not S} is S itself
            del base["not"]
            parts.append(self.norm(inner["not"], (*at, "not", "not")))
        if isinstance(raw.get("$ref"), str):
            target, tokens = self.doc.lookup(raw["$ref"])
            located = tuple(tokens) if not (tokens and str(tokens[0]).startswith("$ref:")) else self.locate(target)
            parts.append(self.norm(target, located if located is not None else (*at, "$ref")))
        members = raw.get("allOf")
        if isinstance(members, list):
            known = self._members.get(id(raw))
            for i, member in enumerate(members):
                where = known[1][i] if known is not None and i < len(known[1]) else (*at, "allOf", i)
                parts.append(self.norm(member, where))
        for kw in ("anyOf", "oneOf"):
            subs = raw.get(kw)
            if isinstance(subs, list) and subs:
                branches = [self.norm(sub, (*at, kw, i)) for i, sub in enumerate(subs)]
                parts.append(self._union(kw, [b for b in branches if b is not False], at))
        if self.root_type is not None and at == () and raw is self.doc.root and "type" not in raw:
            parts.append(Node({"type": self.root_type}, at))
        if not parts:
            return self._finish(base)
        return self.conj([self._finish(base), *parts], at)

    def _union(self, kw: str, branches: list[Any], at: Tokens) -> Any:
        if not branches:
            return False
        return Node({kw: branches}, at)

    # -- intersection ----------------------------------------------------------------------------------------
    def conj(self, parts: list[Any], at: Tokens) -> Any:
        """The intersection of normalized nodes (``False`` when one is ``False``): unions distributed, so the
        result is a plain ``Node`` or a union ``Node`` of plain branches."""
        alts: list[Any] = [None]
        kinds = []
        for part in parts:
            if part is False:
                return False
            if not isinstance(part, Node):
                return part  # not a schema: the walk reports it
            u = union_branches(part)
            if u is not None:
                kinds.append(u[0])
            branches = u[1] if u is not None else [part]
            out = []
            for a in alts:
                for b in branches:
                    c = b if a is None else self._meet(a, b, at_b=u is not None)
                    if c is not False:
                        out.append(c)
                    if len(out) > MAX_BRANCHES:
                        raise Budget(f"more than {MAX_BRANCHES} union branches")
            alts = out
        done = []
        for alt in alts:
            alt = self._finish(alt, merged=True) if alt is not None else Node({}, at)
            if alt is False:
                continue
            u = union_branches(alt)
            done.extend(u[1] if u is not None else [alt])
        kind = kinds[0] if len(kinds) == 1 else "anyOf"
        return self._settle_union(kind, done, at)

    def _settle_union(self, kind: str, branches: list[Any], at: Tokens) -> Any:
        """Branches deduplicated (and, in an ``anyOf``, enum branches another branch covers absorbed)."""
        if kind == "anyOf":  # in a oneOf, two equal branches reject every value they accept: kept
            seen: dict[str, Any] = {}
            for b in branches:
                seen.setdefault(canon(b), b)
            branches = list(seen.values())
        out = branches
        if kind == "anyOf" and len(out) > 1:
            out = [b for i, b in enumerate(out) if not self._absorbed(b, [o for j, o in enumerate(out) if j != i])]
        if not out:
            return False
        if len(out) == 1:
            return out[0]
        return Node({kind: out}, at)

    def _absorbed(self, branch: Node, others: list[Node]) -> bool:
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
                check = self.doc.validator_for(other)
                if all(check.is_valid(x) for x in values):
                    return True
            except Exception:  # an undecidable check absorbs nothing
                continue
        return False

    def _meet(self, a: Node, b: Node, at_b: bool = False) -> Any:
        """Two plain nodes intersected keyword by keyword (see the module docstring). ``at_b``: the result is
        located at ``b`` (a union branch), not at ``a``."""
        r = Node(a, b.at if at_b else a.at, dict(a.origin))
        if at_b:  # the result stands where b (a union branch) is: a's keywords keep their own places
            for k in a:
                r.origin.setdefault(k, a.where([k]))
        r.limits = {**a.limits}
        for k, lim in b.limits.items():
            r.limits[k] = lim if k not in r.limits else _STRICTER.get(k, max)(r.limits[k], lim)
        leftover: dict[str, Any] = {}
        for k, bv in b.items():
            if k in ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties"):
                continue
            if k not in r:
                r[k] = bv
                r.origin[k] = b.where([k])
                continue
            av = r[k]
            if canon(av) == canon(bv) and k not in ("allOf",):
                continue
            if k == "type":
                ta, tb = type_list(r), type_list(b)
                if ta is None or tb is None:
                    leftover[k] = bv
                    continue
                both = _meet_types(ta, tb)
                if not both:
                    return False
                r[k] = both[0] if len(both) == 1 else both
                if both != ta:  # b narrowed it: b's keyword is the one in force
                    r.origin[k] = b.where([k])
            elif k in ("enum", "const"):
                continue  # settled below, with the other side's values
            elif k in _STRICTER and is_number(av) and is_number(bv):
                if _STRICTER[k](av, bv) == bv and bv != av:
                    r[k] = bv
                    r.origin[k] = b.where([k])
            elif k == "required" and isinstance(av, list) and isinstance(bv, list):
                r[k] = union_list(av, bv)
            elif k == "uniqueItems" and isinstance(av, bool) and isinstance(bv, bool):
                r[k] = av or bv
                if bv and not av:
                    r.origin[k] = b.where([k])
            elif k == "nullable":
                r[k] = av is True and bv is True
            elif k == "dependentRequired" and isinstance(av, dict) and isinstance(bv, dict):
                r[k] = {
                    **av,
                    **{
                        key: union_list(av.get(key, []), val)
                        if isinstance(val, list) and isinstance(av.get(key, []), list)
                        else val
                        for key, val in bv.items()
                    },
                }
            elif k == "allOf" and isinstance(av, list) and isinstance(bv, list):
                r[k] = [*av, *bv]
            elif k == "items" and isinstance(av, (dict, bool)) and isinstance(bv, (dict, bool)):
                r[k] = self.conj_raw(av, r.where([k]), bv, b.where([k]))
            else:
                leftover[k] = bv
        values = self._meet_values(a, b)
        if values is not None:
            if not values[0]:
                return False
            vals, kw, origin = values
            r.pop("enum", None)
            r.pop("const", None)
            r[kw] = vals[0] if kw == "const" else vals
            r.origin[kw] = origin
        obj = self._meet_objects(r, a, b)
        if obj is False:
            return False
        if obj is not None:
            leftover.update(obj)
        if leftover:
            member = Node(leftover, b.at, {k: b.where([k]) for k in leftover})
            r["allOf"] = [*(r.get("allOf") or []), member]
        return r

    @staticmethod
    def _meet_values(a: Node, b: Node) -> tuple[list[Any], str, Tokens] | None:
        """The common closed value set of ``a`` and ``b`` (``const``/``enum``): ``(values, keyword, origin)``,
        or None when neither side has one."""

        def values(n: Node) -> list[Any] | None:
            if "const" in n:
                return [n["const"]]
            return list(n["enum"]) if isinstance(n.get("enum"), list) else None

        va, vb = values(a), values(b)
        if va is None and vb is None:
            return None
        if va is None or vb is None:
            side = a if va is not None else b
            kw = "const" if "const" in side else "enum"
            return list(va if va is not None else vb or []), kw, side.where([kw])
        keys = {value_key(x) for x in vb}
        both = [x for x in va if value_key(x) in keys]
        side = b if len(vb) <= len(va) else a
        kw = "const" if "const" in side and len(both) == 1 else "enum"
        src = "const" if "const" in side else "enum"
        return both, kw, side.where([src])

    def _meet_objects(self, r: Node, a: Node, b: Node) -> Any:
        """Merge ``b``'s object keywords into ``r`` (a copy of ``a``): ``None`` when done, a dict of keywords
        left for a leftover ``allOf`` member, or ``False`` when the intersection accepts nothing."""
        keys = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")
        if not any(k in b for k in keys):
            return None
        a_props = a.get("properties") if isinstance(a.get("properties"), dict) else {}
        b_props = b.get("properties") if isinstance(b.get("properties"), dict) else {}
        a_pat = a.get("patternProperties") if isinstance(a.get("patternProperties"), dict) else {}
        b_pat = b.get("patternProperties") if isinstance(b.get("patternProperties"), dict) else {}
        a_add, b_add = tolerant(a.get("additionalProperties", True)), tolerant(b.get("additionalProperties", True))
        scoped = (_closes(a_add) and any(k not in a_props for k in b_props)) or (
            _closes(b_add) and any(k not in b_props for k in a_props)
        )
        if scoped and (a_pat or b_pat or "unevaluatedProperties" in a or "unevaluatedProperties" in b):
            return {k: b[k] for k in keys if k in b}
        props: dict[str, Any] = dict(a_props)
        for key, bs in b_props.items():
            if key in a_props:
                props[key] = self.conj_raw(a_props[key], a.where(["properties", key]), bs, b.where(["properties", key]))
            elif scoped and _closes(a_add):
                props[key] = self.conj_raw(a_add, a.where(["additionalProperties"]), bs, b.where(["properties", key]))
            else:
                props[key] = bs
            if props[key] is False and key in self._required(r):
                return False
            r.origin[("properties", key)] = b.where(["properties", key])
        if scoped and _closes(b_add):
            for key in a_props:
                if key not in b_props:
                    props[key] = self.conj_raw(
                        a_props[key], a.where(["properties", key]), b_add, b.where(["additionalProperties"])
                    )
                    r.origin.setdefault(("properties", key), a.where(["properties", key]))
        if props:
            r["properties"] = props
            for key in a_props:
                r.origin.setdefault(("properties", key), a.where(["properties", key]))
        pats = dict(a_pat)
        for pat, bs in b_pat.items():
            pats[pat] = (
                self.conj_raw(a_pat[pat], a.where(["patternProperties", pat]), bs, b.where(["patternProperties", pat]))
                if pat in a_pat
                else bs
            )
            r.origin[("patternProperties", pat)] = b.where(["patternProperties", pat])
        if pats:
            r["patternProperties"] = pats
            for pat in a_pat:
                r.origin.setdefault(("patternProperties", pat), a.where(["patternProperties", pat]))
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if kw in b:
                if kw in a and canon(a[kw]) != canon(b[kw]):
                    r[kw] = self.conj_raw(a[kw], a.where([kw]), b[kw], b.where([kw]))
                elif kw not in a:
                    r[kw] = b[kw]
                if kw not in a or canon(a[kw]) != canon(b[kw]):
                    r.origin[kw] = b.where([kw]) if kw not in a or b[kw] is False else a.where([kw])
        return None

    @staticmethod
    def _required(node: dict[str, Any]) -> list[str]:
        req = node.get("required")
        return [k for k in req if isinstance(k, str)] if isinstance(req, list) else []

    def conj_raw(self, x: Any, at_x: Tokens, y: Any, at_y: Tokens) -> Any:
        """Two raw subschemas as one (``True``/``{}`` absorbed, ``False`` wins): a synthetic ``allOf`` whose
        members keep their own locations, normalized (and located at ``at_x``) when the walk reaches it."""
        x2, y2 = tolerant(x), tolerant(y)
        if x2 is False or y2 is False:
            return False
        if x2 is True:
            return y
        if y2 is True:
            return x
        if canon(x) == canon(y):
            return x
        syn = {"allOf": [x, y]}
        self._members[id(syn)] = (syn, [at_x, at_y])
        return syn

    # -- settling one plain node ----------------------------------------------------------------------
    def _finish(self, node: Node, merged: bool = False) -> Any:
        """Drop no-ops, fold ``enum``/``const`` with their type, make integer bounds inclusive, set the
        interoperability bounds aside, split a ``type`` list into branches. Idempotent. ``merged``: the node
        is an intersection of several schema objects (a value set they leave empty accepts nothing)."""
        if union_branches(node) is not None:
            return node
        for kw in _OPEN_WHEN_TRUE:
            if kw in node and tolerant(node[kw]) is True:
                del node[kw]
        pn = node.get("propertyNames")
        if (
            isinstance(pn, dict)
            and {k for k in pn if k in ASSERTIONS} == {"type"}
            and (pn.get("type") == "string" or isinstance(pn.get("type"), list) and "string" in pn["type"])
        ):
            del node["propertyNames"]  # property names are always strings
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
        values = (
            node.get("enum") if isinstance(node.get("enum"), list) else ([node["const"]] if "const" in node else None)
        )
        if values is not None:
            return self._fold_values(node, values, types, merged)
        if types is not None:
            allowed = set().union(*(KEYWORDS_OF_TYPE.get(t, frozenset()) for t in types))
            for kw in [k for k in node if k in TYPED_KEYWORDS and k not in allowed]:
                del node[kw]
            if node.get("multipleOf") == 1 and types == ["integer"]:
                del node["multipleOf"]
            if "integer" in types or "number" in types:
                self._bounds(node, integer=types == ["integer"])
            if len(types) > 1:
                return self._split(node, types)
        elif any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            self._bounds(node, integer=False)
        return node

    def _fold_values(self, node: Node, values: list[Any], types: list[str] | None, merged: bool = False) -> Any:
        """An ``enum``/``const`` node: only the values its ``type`` and sibling keywords accept; the value set
        then stands for the whole node."""
        kw = "const" if "const" in node else "enum"
        if "const" in node and isinstance(node.get("enum"), list):
            keys = {value_key(x) for x in node["enum"]}
            values = [x for x in values if value_key(x) in keys]
        if types is not None:
            values = [x for x in values if json_type(x) in types or (json_type(x) == "integer" and "number" in types)]
        rest = {k: v for k, v in node.items() if k not in ("enum", "const", "type", "$id")}
        if rest and values and len(values) <= 1000:
            try:
                check = self.doc.validator_for(rest)
                values = [x for x in values if _accepts(check, x)]
            except Exception:  # an uncompilable or hostile sibling decides nothing: values kept
                pass
        if not values:
            # an intersection that leaves no value accepts nothing; a value set its own type contradicts in one
            # schema object stays as written, for the walk to report (it accepts nothing either)
            return False if merged else node
        out = Node({kw: values[0] if kw == "const" else values}, node.at, {kw: node.where([kw])})
        if any(k in canon(rest) for k in _HOST_SENSITIVE):
            # Python filtered the values; hosts reading these keywords differently (ECMAScript regexes,
            # formats, nullable) may reject some of them: the keywords stay, for the per-host comparison
            out.update(rest)
            out.origin.update({k: node.where([k]) for k in rest})
        return out

    def _bounds(self, node: Node, integer: bool) -> None:
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

    def _split(self, node: Node, types: list[str]) -> Any:
        """A node with a ``type`` list as one branch per type (nullable spellings coincide)."""
        branches = []
        for t in types:
            allowed = KEYWORDS_OF_TYPE.get(t, frozenset())
            b = Node(
                {k: v for k, v in node.items() if k not in TYPED_KEYWORDS or k in allowed}, node.at, dict(node.origin)
            )
            b["type"] = t
            b.origin["type"] = node.where(["type"])
            if "null" in types:
                b.pop("nullable", None)
            b.limits = dict(node.limits) if t in ("integer", "number") else {}
            branches.append(self._finish(b))
        return self._settle_union("anyOf", [b for b in branches if b is not False], node.at)


def _accepts(check: Any, value: Any) -> bool:
    try:
        return bool(check.is_valid(value))
    except Exception:  # undecidable (hostile regex …): keep the value
        return True
