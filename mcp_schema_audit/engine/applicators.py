"""Keywords that constrain a value through other schemas: ``allOf`` left unmerged, ``not``,
``if``/``then``/``else``, ``dependentSchemas`` (and draft-07 schema-valued ``dependencies``),
``contains``/``minContains``/``maxContains``.

These are a mixin of the engine's comparer (``engine.Comparer``): they see one pair of nodes,
P (producing) and V (validating), and return ``Issue``s in P/V terms. Each follows the same
three steps, so a verdict is never a silent guess:

1. **witness search**: values P accepts are built from P's declarations and from V's conditions
   (a value that triggers V's ``if``, that matches V's ``not``, an array with too few or too many
   items matching V's ``contains``); the first one that P accepts and V rejects, checked with
   python ``jsonschema``, makes the change ``breaking`` (the engine then confirms it per host
   profile on the whole instance);
2. **proof**: when no witness turns up, a sufficient condition for "every value P declares meets
   V's keyword" is checked (P inside V's ``then`` and ``else``; P disjoint from V's ``not``; P's
   ``contains`` inside V's with a count at least as strict); proven changes give no finding
   (or ``info`` when P only got stricter);
3. otherwise a ``schema-undecidable`` warning names the keyword and why.

Reference: JSON Schema 2020-12 Core §10.2 (applicators), Validation §6.4.4-6.4.5 (minContains,
maxContains); draft-07 Validation §6.5.7 (dependencies).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from mcp_schema_audit.engine.conditions import Cond, conditionals
from mcp_schema_audit.engine.issue import NO_WITNESS, Issue, canon, short
from mcp_schema_audit.engine.nodes import names
from mcp_schema_audit.engine.sampler import MAX_SAMPLE_SIZE, NoSample, regex_examples, sample, string_candidates
from mcp_schema_audit.schema import RefError

#: Issue kinds that mean "P may declare a value V rejects" (or that the engine could not tell).
UNSAFE_KINDS = frozenset(
    {
        "enum-extra-p",
        "const-changed",
        "enum-only-v",
        "type-extra-p",
        "type-only-v",
        "prop-extra-p-closed",
        "required-extra-v",
        "opened-p",
        "looser-p",
        "format",
        "pattern",
        "branch-extra-p",
        "oneof-overlap",
        "undecidable",
        "invalid",
    }
)
#: The same for plain set inclusion (inside ``not``): a key an open object merely tolerates counts too.
SET_UNSAFE_KINDS = UNSAFE_KINDS | {"prop-extra-v"}
_MISSING = object()
_KEYWORDS = (
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "contains",
    "minContains",
    "maxContains",
)
#: Longest array built while searching ``contains`` witnesses.
_MAX_ARRAY = 100


def _blend(base: Any, issue: Issue) -> Any:
    """Put the part of ``issue``'s witness that makes the difference into ``base`` (both instances of one node)."""
    w = issue.witness
    if not isinstance(base, dict) or not isinstance(w, dict):
        return w
    out = dict(base)
    key = issue.inst[0] if issue.inst else None
    if issue.kind == "required-extra-v" and key is not None:
        out.pop(key, None)
    elif key is not None and key in w:
        out[key] = w[key]
    else:
        out.update(w)
    return out


class ApplicatorMixin:
    """``not``, conditionals, unmerged ``allOf`` and ``contains`` for ``engine.Comparer`` (see the module docstring).

    Relies on the comparer's ``p_doc``/``v_doc``, ``compare``, ``_valid``, ``_pick``, ``_sample_p``,
    ``_common``, ``_deref``, ``_prefix``, ``_values``, ``_types_of`` and ``_types_overlap``.
    """

    p_doc: Any
    v_doc: Any

    def _applicators(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        """All issues of this module's keywords at one node pair."""
        if not any(k in p or k in v for k in _KEYWORDS):
            return []  # the common case, kept cheap
        return (
            self._all_of(p, v, depth)
            + self._not(p, v, depth)
            + self._conditionals(p, v, depth)
            + self._contains(p, v, depth)
        )

    # -- helpers --------------------------------------------------------------------------------------
    def _inside(self, p: Any, v: Any, depth: int, kinds: frozenset[str] = UNSAFE_KINDS) -> bool:
        """Proven: every value P's node declares is accepted by V's node (a comparison with no unsafe issue)."""
        return not any(i.kind in kinds for i in self.compare(p, v, depth + 1))  # type: ignore[attr-defined]

    def _equivalent(self, a: Any, b: Any, depth: int) -> bool:
        """Proven: P's node ``a`` and V's node ``b`` accept the same values (inclusion both ways, as sets)."""
        return self._inside(a, b, depth, SET_UNSAFE_KINDS) and self._swapped()._inside(b, a, depth, SET_UNSAFE_KINDS)

    def _swapped(self) -> Any:
        """A comparer with the roles exchanged (V's node producing, P's validating), made once."""
        if getattr(self, "_swap", None) is None:
            self._swap = type(self)(self.v_doc, self.p_doc)  # type: ignore[call-arg]
        return self._swap

    def _pick_valid(self, p: Any, v: Any, cands: list[Any]) -> Any:
        """The first candidate P accepts and V rejects with python-sdk, else with some other host profile
        (keywords only some hosts read: draft-07 ``dependencies`` in a 2020-12 schema, ``nullable`` …)."""
        cands = [c for c in cands if c is not NO_WITNESS]
        for cand in cands:
            if self._valid(self.p_doc, p, cand) and self._valid(self.v_doc, v, cand) is False:  # type: ignore[attr-defined]
                return cand
        return self._pick_any_profile(p, v, cands)  # type: ignore[attr-defined]

    def _samples_p(self, p: dict[str, Any], extra: list[Any] = ()) -> list[Any]:  # type: ignore[assignment]
        """Values P declares: its sample, one with every declared property, and samples of P with each of
        ``extra`` (subschemas of P's document, e.g. P's own ``then``) merged in."""
        out = [self._sample_p(p)]  # type: ignore[attr-defined]
        props = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        if props:
            out.append(self._sample_p({**p, "required": list(props)}))  # type: ignore[attr-defined]
        rest = {
            k: val
            for k, val in p.items()
            if k not in ("if", "then", "else", "not", "dependentSchemas", "dependencies", "contains")
        }
        for sub in extra:
            with contextlib.suppress(NoSample, RecursionError):
                out.append(sample({"allOf": [rest, sub]}, self.p_doc))
        for k in range(1, 4):
            chosen = self._choose(rest, k)
            if chosen is None:
                break
            with contextlib.suppress(NoSample, RecursionError):
                out.append(sample(chosen, self.p_doc))
        return [x for x in out if x is not NO_WITNESS]

    def _choose(self, p: dict[str, Any], k: int) -> dict[str, Any] | None:
        """P with alternative ``k`` (modulo their count) taken in its own ``anyOf``/``oneOf`` and in those of
        its ``allOf`` members, so a sample can follow it (``sample`` alone takes the first); None when P has none."""
        found = False

        def take(node: Any) -> Any:
            nonlocal found
            try:
                node, _ = self._deref(node, self.p_doc)  # type: ignore[attr-defined]
            except RefError:
                return node
            if not isinstance(node, dict):
                return node
            for kw in ("anyOf", "oneOf"):
                subs = node.get(kw)
                if isinstance(subs, list) and len(subs) > 1:
                    found = True
                    branch = subs[k % len(subs)]
                    rest = {key: val for key, val in node.items() if key != kw}
                    return {"allOf": [rest, branch]} if isinstance(branch, dict) else rest
            return node

        out = take(p)
        if isinstance(out, dict) and isinstance(out.get("allOf"), list):
            out = {**out, "allOf": [take(m) for m in out["allOf"]]}
        return out if found else None

    # -- allOf ----------------------------------------------------------------------------------------
    def _all_of(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        """An ``allOf`` of V the engine could not merge (members with ``anyOf``, ``not``, ``if`` …): P must meet
        every member. A member also in P (same text, or P's member at the same index inside it) is met."""
        vs = v.get("allOf")
        if not isinstance(vs, list):
            return []
        ps = p.get("allOf") if isinstance(p.get("allOf"), list) else []
        have = {canon(x) for x in ps}
        out: list[Issue] = []
        variants: list[Any] | None = None
        for i, vi in enumerate(vs):
            if canon(vi) in have and not _has_ref(vi):
                continue
            if i < len(ps) and self._inside(ps[i], vi, depth):
                continue
            for issue in self.compare(p, vi, depth + 1):  # type: ignore[attr-defined]
                if issue.kind not in UNSAFE_KINDS:
                    continue  # P against a fragment of V: only what V's member rejects is news
                if issue.witness is NO_WITNESS or not self._valid(self.p_doc, p, issue.witness):  # type: ignore[attr-defined]
                    # the member's witness ignores the rest of P (P's own allOf), or none was found against the
                    # bare member: rebuild it from P's alternatives, one sample of P per JSON type among them
                    if variants is None:
                        variants = self._samples_p(p) + [self._sample_typed(p, t) for t in _JSON_TYPES]  # type: ignore[attr-defined]
                    blended = [_blend(b, issue) for b in variants] if issue.witness is not NO_WITNESS else []
                    issue = replace(issue, witness=self._pick_valid(p, v, blended + variants))
                out.append(issue)
        return out

    # -- not ------------------------------------------------------------------------------------------
    def _not(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        """V's ``not: N``: P must declare no value N matches.

        Breaks when a value P declares matches N: before ``{"type": "string"}``, after
        ``{"type": "string", "not": {"const": ""}}`` as an inputSchema property rejects ``""`` the model
        was told it may send. Proof without a witness: P disjoint from N, or N inside P's own ``not``.
        """
        np_, nv = p.get("not", _MISSING), v.get("not", _MISSING)
        if (canon(np_) == canon(nv) and not _has_ref(nv)) if np_ is not _MISSING and nv is not _MISSING else np_ is nv:
            return []
        if nv is _MISSING:
            return [
                Issue(
                    "looser-v",
                    ["not"],
                    [],
                    np_,
                    None,
                    "the {P} schema excludes the values its 'not' schema matches; the {V} schema does not",
                )
            ]
        p_steps = ["not"] if np_ is not _MISSING else []
        if np_ is not _MISSING and self._equivalent(np_, nv, depth):
            return []  # the same exclusion, spelled differently
        cands = [self._common(p, nv)] + self._samples_p(p)  # type: ignore[attr-defined]
        with contextlib.suppress(NoSample, RecursionError):
            cands.append(sample(nv, self.v_doc))
        cands += self._values(p) or []  # type: ignore[attr-defined]
        try:
            n_node, _ = self._deref(nv, self.v_doc)  # type: ignore[attr-defined]
            if isinstance(n_node, dict):
                cands += (self._values(n_node) or [])[:1000]  # type: ignore[attr-defined]
        except RefError:
            pass
        w = self._pick_valid(p, v, cands)
        if w is not NO_WITNESS:
            return [
                Issue(
                    "looser-p",
                    p_steps,
                    ["not"],
                    None if np_ is _MISSING else np_,
                    nv,
                    f"the {{P}} schema allows {short(w)}, which the {{V}} schema's 'not' excludes",
                    w,
                )
            ]
        if self._disjoint(p, nv, depth) or (
            np_ is not _MISSING and self._swapped()._inside(nv, np_, depth, SET_UNSAFE_KINDS)
        ):
            return (
                []
                if np_ is _MISSING
                else [
                    Issue(
                        "looser-v",
                        ["not"],
                        ["not"],
                        np_,
                        nv,
                        "'not' changed; the {P} schema still excludes every value the {V} schema's 'not' matches",
                    )
                ]
            )
        return [
            Issue(
                "undecidable",
                p_steps,
                ["not"],
                None if np_ is _MISSING else np_,
                nv,
                "'not' in the {V} schema: no value of the {P} schema it excludes was found, and none "
                "could be ruled out",
            )
        ]

    def _disjoint(self, p: Any, n: Any, depth: int = 0) -> bool:
        """Proven: no value P's node declares matches ``n`` (a node of V's document)."""
        self._tick()  # type: ignore[attr-defined]
        if depth > 32:
            return False
        try:
            p, _ = self._deref(p, self.p_doc)  # type: ignore[attr-defined]
            n, _ = self._deref(n, self.v_doc)  # type: ignore[attr-defined]
        except RefError:
            return False
        if p is False or n is False:
            return True
        if not isinstance(p, dict) or not isinstance(n, dict):
            return False
        for kw in ("anyOf", "oneOf"):
            if isinstance(n.get(kw), list) and n[kw]:
                base = {k: val for k, val in n.items() if k != kw}
                return all(self._disjoint(p, {**base, **b} if isinstance(b, dict) else b, depth + 1) for b in n[kw])
        for doc, a, b in ((self.p_doc, p, n), (self.v_doc, n, p)):
            vals = self._values(a)  # type: ignore[attr-defined]
            if (
                vals is not None
                and len(vals) <= 1000
                and all(
                    self._valid(self.v_doc if doc is self.p_doc else self.p_doc, b, x) is False  # type: ignore[attr-defined]
                    for x in vals
                )
            ):
                return True
        tp, tn = self._types_of(p), self._types_of(n)  # type: ignore[attr-defined]
        if tp is not None and tn is not None and not self._types_overlap({"type": sorted(tp)}, {"type": sorted(tn)}):  # type: ignore[attr-defined]
            return True
        if tp is None or not tp <= {"object"}:
            return False
        # P's values are objects: a key n requires that P never has, or a shared key whose values are disjoint
        pprops = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        nprops = n.get("properties") if isinstance(n.get("properties"), dict) else {}
        preq, nreq = set(names(p.get("required"))), set(names(n.get("required")))
        closed = p.get("additionalProperties") is False and not p.get("patternProperties")
        if closed and any(isinstance(k, str) and k not in pprops for k in nreq):
            return True
        for key, ns in nprops.items():
            if key in pprops and (key in nreq or key in preq) and self._disjoint(pprops[key], ns, depth + 1):
                return True
        return False

    # -- if/then/else, dependentSchemas -----------------------------------------------------------------
    def _conditionals(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        """V's conditionals must hold for every value P declares.

        Breaks when P declares a value that meets V's condition but not its consequence: before
        ``{"properties": {"kind": {"enum": ["a", "b"]}, "x": {}}}``, after the same with
        ``"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}`` as an
        inputSchema rejects ``{"kind": "a"}``. The same conditional on both sides (same ``if``, same
        ``dependentSchemas`` key) compares ``then`` with ``then`` and ``else`` with ``else``.
        """
        if all(
            canon(p.get(k)) == canon(v.get(k)) and not _has_ref(v.get(k))
            for k in ("if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies")
        ):
            return []
        # P's draft-07 `dependencies` in a 2019-09/2020-12 schema bind only Ajv hosts: P is read without them
        pc = {c.key: c for c in conditionals(p, legacy=self.p_doc.dialect not in ("2020-12", "2019-09"))}
        vc = {c.key: c for c in conditionals(v)}
        for key, c in vc.items():  # the same test spelled differently (const ↔ one-value enum, $ref …)
            if key not in pc and c.steps == ["if"]:
                twin = next(
                    (
                        k
                        for k, o in pc.items()
                        if k not in vc and o.steps == ["if"] and self._equivalent(o.if_, c.if_, depth)
                    ),
                    None,
                )
                if twin is not None:
                    pc[key] = pc.pop(twin)
        out: list[Issue] = []
        for key, c in pc.items():
            if key not in vc:
                out.append(
                    Issue(
                        "looser-v",
                        c.steps,
                        [],
                        c.then,
                        None,
                        "the {P} schema adds a condition the {V} schema does not have",
                    )
                )
        for key, c in vc.items():
            mine = pc.get(key)
            if (
                mine is not None
                and canon((mine.then, mine.else_)) == canon((c.then, c.else_))
                and not _has_ref((c.if_, c.then, c.else_))
            ):
                continue
            out += self._one_conditional(p, v, c, mine, depth)
        return out

    def _one_conditional(
        self, p: dict[str, Any], v: dict[str, Any], c: Cond, mine: Cond | None, depth: int
    ) -> list[Issue]:
        out: list[Issue] = []
        branch_issues: list[Issue] = []  # unsafe issues between the matching then/else schemas
        if mine is not None:
            for ps, vs, p_steps, v_steps in (
                (mine.then, c.then, mine.then_steps, c.then_steps),
                (mine.else_, c.else_, mine.else_steps, c.else_steps),
            ):
                if ps is True and vs is True:
                    continue
                got = self._child(p, p_steps, ps, v, v_steps, vs, depth)  # type: ignore[attr-defined]
                for issue in got:
                    if issue.kind not in UNSAFE_KINDS:
                        out.append(issue)
                    else:
                        branch_issues.append(issue)
            if not branch_issues:
                return out
        # V's consequences P may miss: witness search, then proof
        triggers = self._samples_p(p, [c.if_] + ([mine.if_, mine.then] if mine else []))
        common = self._common(p, c.if_) if isinstance(c.if_, (dict, bool)) else NO_WITNESS  # type: ignore[attr-defined]
        if common is not NO_WITNESS:
            triggers.insert(0, common)
        # values of P that fail V's condition (so V's else applies): what P declares and the condition rejects
        others = (
            [
                i.witness
                for i in self.compare(p, c.if_, depth + 1)  # type: ignore[attr-defined]
                if i.kind in UNSAFE_KINDS and i.witness is not NO_WITNESS
            ]
            if c.else_ is not True
            else []
        )
        cands: list[Any] = []
        for branch, bases in ((c.then, triggers), (c.else_, others + triggers)):
            if branch is True:
                continue
            for issue in self.compare(p, branch, depth + 1):  # type: ignore[attr-defined]
                if issue.kind in UNSAFE_KINDS and issue.witness is not NO_WITNESS:
                    cands += [_blend(t, issue) for t in bases] + [issue.witness]
        cands += others
        for issue in branch_issues:
            if issue.witness is not NO_WITNESS:
                cands += [_blend(t, issue) for t in triggers] + [issue.witness]
        cands += triggers
        w = self._pick_valid(p, v, cands)
        what = "if/then/else" if c.steps == ["if"] else f"{c.steps[0]} {c.steps[1]!r}"
        if w is not NO_WITNESS:
            return out + [
                Issue(
                    "looser-p",
                    mine.steps if mine else [],
                    c.steps,
                    mine.then if mine else None,
                    c.then,
                    f"the {{P}} schema allows {short(w)}, which fails the {{V}} schema's {what}",
                    w,
                )
            ]
        then_ok = c.then is True or self._inside(p, c.then, depth) or self._disjoint(p, c.if_, depth)
        else_ok = c.else_ is True or self._inside(p, c.else_, depth) or self._inside(p, c.if_, depth)
        if then_ok and else_ok:
            return out
        return out + [
            Issue(
                "undecidable",
                mine.steps if mine else [],
                c.steps,
                mine.then if mine else None,
                c.then,
                f"the {{V}} schema's {what}: no value of the {{P}} schema failing it was found, "
                "and the {P} schema could not be proven to meet it",
            )
        ]

    # -- contains -------------------------------------------------------------------------------------
    def _contains(self, p: dict[str, Any], v: dict[str, Any], depth: int) -> list[Issue]:
        """V's ``contains`` with ``minContains`` (default 1) and ``maxContains``: how many items match.

        Breaks when P declares an array with too few (or too many) items matching V's ``contains``:
        before ``{"type": "array", "items": {"type": "string"}}``, after the same with
        ``"contains": {"const": "id"}`` as an inputSchema rejects ``[]``.
        """
        keys = ("contains", "minContains", "maxContains")
        if all(canon(p.get(k)) == canon(v.get(k)) for k in keys) and not _has_ref(v.get("contains")):
            return []
        types = self._types_of(p)  # type: ignore[attr-defined]
        if types is not None and "array" not in types:
            return []  # contains constrains arrays only
        cp, cv = p.get("contains", _MISSING), v.get("contains", _MISSING)
        min_p, max_p = _count(p, "minContains", 1), _count(p, "maxContains", None)
        min_v, max_v = _count(v, "minContains", 1), _count(v, "maxContains", None)
        changed = [k for k in keys if canon(p.get(k)) != canon(v.get(k))]
        p_steps = [k for k in changed + list(keys) if k in p][:1]
        v_steps = [k for k in changed + list(keys) if k in v][:1]
        if cv is not _MISSING and min_v == 0 and max_v is None and not (cp is not _MISSING and min_p >= 1):
            # minContains: 0 makes contains vacuous where it is read; a draft-07 host (ts-sdk-v1) ignores
            # minContains and still requires one matching item
            w = self._pick_any_profile(
                p,
                v,
                [
                    [],
                    *(
                        [x]
                        for x in self._samples_p(p.get("items", {}) if isinstance(p.get("items"), dict) else {})
                        if x is not NO_WITNESS
                    ),
                ],
            )  # type: ignore[attr-defined]
            if w is not NO_WITNESS:
                return [
                    Issue(
                        "looser-p",
                        p_steps,
                        v_steps,
                        cp if cp is not _MISSING else None,
                        cv,
                        f"the {{P}} schema allows {short(w)}; hosts that ignore minContains: 0 (draft-07 "
                        "Ajv) still require an item matching the {V} schema's 'contains'",
                        w,
                    )
                ]
        if cv is _MISSING or (min_v == 0 and max_v is None):
            return (
                [
                    Issue(
                        "looser-v",
                        p_steps,
                        v_steps,
                        cp if cp is not _MISSING else None,
                        None,
                        "the {P} schema requires items matching 'contains'; the {V} schema does not",
                    )
                ]
                if cp is not _MISSING
                else []
            )
        same = cp is not _MISSING and self._equivalent(cp, cv, depth)
        if same and (min_p, max_p) == (min_v, max_v):
            return []  # the same contains, spelled differently
        items = p.get("items", True) if not isinstance(p.get("items"), list) else True
        inside = self._common(items, cv)  # type: ignore[attr-defined]
        pool_any = (self._samples_p(items) if isinstance(items, dict) else []) + [None, True, 0, 0.5, "x", "", {}, []]
        outside = self._pick(items, cv, pool_any)  # type: ignore[attr-defined]
        mine = NO_WITNESS
        if cp is not _MISSING:
            with contextlib.suppress(NoSample, RecursionError):
                mine = sample(cp, self.p_doc)
        mine_out = NO_WITNESS  # an item P's contains declares that V's contains does not match
        if cp is not _MISSING:
            own = self._samples_p(cp) if isinstance(cp, dict) else []  # type: ignore[attr-defined]
            mine_out = self._pick(
                cp,
                cv,
                [
                    x
                    for x in (*own, *string_candidates(), *pool_any)  # type: ignore[attr-defined]
                    if x is not NO_WITNESS
                ],
            )
        cands: list[Any] = [[]]
        pool = [x for x in (outside, mine, inside, mine_out) if x is not NO_WITNESS]
        for x in pool:
            for n in {1, min_p, max(min_v - 1, 0), (max_v or 0) + 1}:
                if 0 <= n <= _MAX_ARRAY:
                    cands.append([x] * n)
        if mine is not NO_WITNESS and outside is not NO_WITNESS and min_p <= _MAX_ARRAY:
            cands.append([mine] * min_p + [outside])
        if inside is not NO_WITNESS and mine is not NO_WITNESS and max_v is not None and max_v < _MAX_ARRAY:
            cands.append([mine] * min_p + [inside] * (max_v + 1))
        prefix = self._tuple(p, self.p_doc)[0]  # type: ignore[attr-defined]
        if prefix and len(prefix) <= _MAX_ARRAY:
            # a tuple: its slots come first, each filled with a value failing V's contains when it has one
            head = []
            for slot in prefix:
                own = self._sample_p(slot)  # type: ignore[attr-defined]
                out = (
                    self._pick(
                        slot,
                        cv,
                        [
                            x
                            for x in (*self._samples_p(slot), *pool_any)  # type: ignore[attr-defined]
                            if x is not NO_WITNESS
                        ],
                    )
                    if isinstance(slot, dict)
                    else NO_WITNESS
                )
                head.append(out if out is not NO_WITNESS else own)
            if NO_WITNESS not in head:
                cands += [
                    head[:k] + tail
                    for k in range(1, len(head) + 1)
                    for tail in list(cands)[:12]
                    if k == len(head) or not tail
                ]
        cands = [c for c in cands if len(c) <= min(_MAX_ARRAY, MAX_SAMPLE_SIZE)]
        w = self._pick_valid(p, v, cands)
        if w is not NO_WITNESS:
            return [
                Issue(
                    "looser-p",
                    p_steps,
                    v_steps,
                    cp if cp is not _MISSING else None,
                    cv,
                    f"the {{P}} schema allows {short(w)}, which has too few or too many items matching the "
                    "{V} schema's 'contains'",
                    w,
                )
            ]
        enough = (
            min_v == 0
            or (cp is not _MISSING and min_p >= min_v and self._inside(cp, cv, depth))
            or (
                # every item matches V's contains (the prefix slots too), and there are enough of them
                _count(p, "minItems", 0) >= min_v
                and items is not False
                and self._inside(items, cv, depth)
                and all(self._inside(x, cv, depth) for x in prefix)
            )
        )
        few = (
            max_v is None
            or _count(p, "maxItems", None) is not None
            and _count(p, "maxItems", 0) <= max_v
            or (same and max_p is not None and max_p <= max_v)
            or (self._disjoint(items, cv, depth))
        )
        if enough and few:
            return [
                Issue(
                    "looser-v",
                    p_steps,
                    v_steps,
                    cp if cp is not _MISSING else None,
                    cv,
                    "'contains' changed; every array of the {P} schema still meets the {V} schema's",
                )
            ]
        return [
            Issue(
                "undecidable",
                p_steps,
                v_steps,
                cp if cp is not _MISSING else None,
                cv,
                "'contains' in the {V} schema: no array of the {P} schema failing it was found, and none "
                "could be ruled out",
            )
        ]


_JSON_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")


def _count(node: dict[str, Any], kw: str, default: Any) -> Any:
    x = node.get(kw, default)
    if isinstance(x, float) and x.is_integer() and 0 <= x < 2**63:
        x = int(x)  # 2.0 counts as 2 for jsonschema and Ajv
    return x if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else default


def _has_ref(value: Any) -> bool:
    """Does ``value`` (a subschema, or a tuple of them) use ``$ref``? Then equal text may still differ."""
    return '"$ref"' in canon(value)


def pattern_keys(pattern: str, taken: Any = (), count: int = 2) -> list[str]:
    """Up to ``count`` property names built from ``pattern`` (for ``patternProperties`` witnesses), none in
    ``taken``."""
    return [k for k in regex_examples(pattern, count=max(count, 4)) if k not in taken][:count]
