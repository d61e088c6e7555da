"""Intersection of normalized nodes: ``allOf`` members, a ``$ref`` target and its siblings, a union's
siblings distributed into every branch (a step of ``normalize``).

Keyword by keyword, never overwrite: both ``type``s in force → their intersection; two ``enum``s →
the common values; two bounds → the stricter; ``required`` → the union; two different ``pattern``s →
both kept, one in a leftover ``allOf`` member. ``additionalProperties`` sees only the ``properties``
of its own schema object (JSON Schema Core 2020-12 §10.3.2.3), so an object merge gives each
property the conjunction of what both sides apply to it. Subschemas are intersected lazily: a
synthetic ``allOf`` (``conj_raw``) whose members keep their own locations, normalized when the walk
reaches it. Raises ``LocalUndecidable`` (a ``Budget``) past ``MAX_BRANCHES`` union branches.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.issue import LocalUndecidable, canon, value_key
from mcp_schema_audit.engine.nodes import Node, Tokens, dict_at, names, union_branches, union_list
from mcp_schema_audit.engine.settle import finish, is_number, settle_union, tolerant, type_list, value_set
from mcp_schema_audit.schema import SchemaDoc, type_set

#: Union branches one node may expand into; more → the comparison of that tool stops with a warning.
MAX_BRANCHES = 64
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


#: Keywords beside ``unevaluatedProperties`` whose evaluated keys it sees (beside none of them it reads exactly as
#: ``additionalProperties``)
_EVALUATING = ("allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "$ref", "$dynamicRef")


def _scoped(part: Any) -> Any:
    """``part`` as it meets the node it is applied beside (an ``allOf`` member, a ``$ref`` target, a union branch):
    its closing ``unevaluatedProperties`` sees only the keys ``part`` evaluates itself, never the other node's
    (JSON Schema Core 2020-12 §11.3: annotations of adjacent keywords only), so with nothing beside it that
    evaluates keys it is spelled ``additionalProperties`` (located where it is written), which the merge scopes to
    its own ``properties``: ``allOf: [{properties: {a: {}}, unevaluatedProperties: false}]`` beside ``properties:
    {b: {}}`` rejects ``b``."""
    if (
        not isinstance(part, Node)
        or "additionalProperties" in part
        or "unevaluatedProperties" not in part
        or not _closes(part["unevaluatedProperties"])
        or any(k in part for k in _EVALUATING)
    ):
        return part
    out = Node({k: v for k, v in part.items() if k != "unevaluatedProperties"}, part.at, dict(part.origin))
    out["additionalProperties"] = part["unevaluatedProperties"]
    out.origin["additionalProperties"] = part.where(["unevaluatedProperties"])
    out.limits = dict(part.limits)
    return out


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


def _exclusive(branches: list[Any], at: Tokens) -> list[Any]:
    """The branches of a ``oneOf`` about to be distributed with an ``anyOf`` (the result is an ``anyOf``, JSON
    Schema Core 2020-12 §10.2.1.3: oneOf holds when exactly one branch does), each with ``not`` the others beside
    it, unless no value can meet two of them (``_disjoint``): ``allOf: [{anyOf: [A, B]}, {oneOf: [C, D]}]`` is
    ``anyOf: [A∧C∧¬D, A∧D∧¬C, B∧C∧¬D, B∧D∧¬C]``, never ``anyOf: [A∧C, …]``, which takes a value meeting C and D."""
    out = []
    for i, b in enumerate(branches):
        others = [o for j, o in enumerate(branches) if j != i and not _disjoint(b, o)]
        if not others or not isinstance(b, Node):
            out.append(b)
            continue
        rule = others[0] if len(others) == 1 else Node({"anyOf": others}, at)
        r = Node(b, b.at, dict(b.origin))
        r.limits = dict(b.limits)
        if set(rule) == {"not"} and isinstance(rule["not"], dict):  # ¬¬S is S: met in a leftover allOf member
            r["allOf"] = [*(b.get("allOf") or []), rule["not"]]
        elif "not" in b:  # b's own not stays: the others' go in a leftover allOf member
            r["allOf"] = [*(b.get("allOf") or []), Node({"not": rule}, b.at)]
        else:
            r["not"] = rule
            r.origin["not"] = (*at, "oneOf")
        out.append(r)
    return out


def _disjoint(a: Any, b: Any) -> bool:
    """Can no value meet both ``a`` and ``b``: types that do not overlap, closed value sets with no common value,
    or a property both require whose value sets (``const``/``enum``) share none (a tagged union)?"""
    if not isinstance(a, Node) or not isinstance(b, Node):
        return False
    ta, tb = type_set(a), type_set(b)
    if ta is not None and tb is not None and not _meet_types(sorted(ta), sorted(tb)):
        return True
    va, vb = value_set(a), value_set(b)
    if va is not None and vb is not None:
        return not {value_key(x) for x in va} & {value_key(x) for x in vb}
    pa, pb = dict_at(a, "properties"), dict_at(b, "properties")
    for k in set(names(a.get("required"))) & set(names(b.get("required"))):
        sa, sb = pa.get(k), pb.get(k)
        xa = value_set(sa) if isinstance(sa, dict) else None
        xb = value_set(sb) if isinstance(sb, dict) else None
        if xa is not None and xb is not None and not {value_key(x) for x in xa} & {value_key(x) for x in xb}:
            return True
    return False


class Intersection:
    """Intersects normalized nodes of one ``SchemaDoc`` (see the module docstring).

    ``members``: id of each synthetic ``allOf`` made by ``conj_raw`` → (it, its members' locations), so
    ``Normalizer`` locates the members where they are written.
    """

    def __init__(self, doc: SchemaDoc) -> None:
        self.doc = doc
        self.members: dict[int, tuple[Any, list[Tokens]]] = {}

    def conj(self, parts: list[Any], at: Tokens) -> Any:
        """The intersection of normalized nodes (``False`` when one is ``False``): unions distributed, so the
        result is a plain ``Node`` or a union ``Node`` of plain branches."""
        alts: list[Any] = [None]
        kinds = []
        unions = [u[0] for u in map(union_branches, parts) if u is not None]
        for part in parts:
            if part is False:
                return False
            if not isinstance(part, Node):
                return part  # not a schema: the walk reports it
            u = union_branches(part)
            if u is not None:
                kinds.append(u[0])
            branches = u[1] if u is not None else [part]
            if u is not None and u[0] == "oneOf" and set(unions) != {"oneOf"}:
                branches = _exclusive(branches, part.at)
            if alts != [None]:
                branches = [_scoped(b) for b in branches]
            out = []
            for a in alts:
                for b in branches:
                    c = b if a is None else self._meet(a, b, at_b=u is not None)
                    if c is not False:
                        out.append(c)
                    if len(out) > MAX_BRANCHES:
                        raise LocalUndecidable(f"more than {MAX_BRANCHES} union branches")
            alts = out
        done: list[Any] = []
        for alt in alts:
            alt = finish(alt, self.doc, merged=True) if alt is not None else Node({}, at)
            if alt is False:
                continue
            u = union_branches(alt)
            done.extend(u[1] if u is not None else [alt])
        kind = kinds[0] if len(kinds) == 1 else "anyOf"
        return settle_union(kind, done, at, self.doc)

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
        leftover = self._meet_keywords(r, b)
        if leftover is None:
            return False
        values = _meet_values(a, b)
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

    def _meet_keywords(self, r: Node, b: Node) -> dict[str, Any] | None:
        """Merge ``b``'s keywords other than the object ones into ``r`` (a copy of the other node), each by its
        rule: the keywords left for a leftover ``allOf`` member, or None when the types exclude each other.
        ``enum``/``const`` are settled after (``_meet_values``)."""
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
                    return None
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
        return leftover

    def _meet_objects(self, r: Node, a: Node, b: Node) -> Any:
        """Merge ``b``'s object keywords into ``r`` (a copy of ``a``): ``None`` when done, a dict of keywords
        left for a leftover ``allOf`` member, or ``False`` when the intersection accepts nothing."""
        keys = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")
        if not any(k in b for k in keys):
            return None
        a_props = dict_at(a, "properties")
        b_props = dict_at(b, "properties")
        a_pat = dict_at(a, "patternProperties")
        b_pat = dict_at(b, "patternProperties")
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
            if props[key] is False and key in names(r.get("required")):
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
        self.members[id(syn)] = (syn, [at_x, at_y])
        return syn
